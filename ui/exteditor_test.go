package ui

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// fakeEditor is a script that rewrites the file it is given, the way a
// person would in their editor.
func fakeEditor(t *testing.T, script string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake editor is a shell script")
	}
	p := filepath.Join(t.TempDir(), "fake-editor")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExternalEditorRoundTrip(t *testing.T) {
	ed := fakeEditor(t, `for f; do :; done; sed 's/draft/final/' "$f" > "$f.new" && mv "$f.new" "$f"; printf '\nsecond line\n' >> "$f"`)
	env := func(k string) string {
		if k == "EDITOR" {
			return ed + " --wait"
		}
		return ""
	}
	cmd, finish, err := prepareEditor("a draft prompt", env)
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Args[1] != "--wait" {
		t.Fatalf("argv %q: the editor's own arguments are lost", cmd.Args)
	}
	file := cmd.Args[len(cmd.Args)-1]
	msg := finish(cmd.Run()).(editorDoneMsg)
	if msg.err != nil || msg.text != "a final prompt\nsecond line" {
		t.Fatalf("got %q, %v", msg.text, msg.err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the temporary file %s was left behind", file)
	}
	// Through the model: the text lands in the input.
	m := newTestModel(t, newFake())
	m = typeText(m, "a draft prompt")
	m = update(m, msg)
	if got := m.input.ta.value(); got != "a final prompt\nsecond line" {
		t.Fatalf("input %q", got)
	}
}

func TestExternalEditorFailureKeepsPrompt(t *testing.T) {
	ed := fakeEditor(t, "exit 3")
	cmd, finish, err := prepareEditor("keep me", func(k string) string {
		if k == "VISUAL" {
			return ed
		}
		return "ignored-editor"
	})
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Args[0] != ed {
		t.Fatalf("$VISUAL does not win over $EDITOR: %q", cmd.Args)
	}
	m := newTestModel(t, newFake())
	m = typeText(m, "keep me")
	m = update(m, finish(cmd.Run()))
	if m.input.ta.value() != "keep me" || !strings.Contains(m.tr.text(m.c), "the prompt is unchanged") {
		t.Fatalf("input %q, transcript:\n%s", m.input.ta.value(), m.tr.text(m.c))
	}
	if _, _, err := prepareEditor("x", func(string) string { return "" }); !errors.Is(err, errNoEditor) {
		t.Fatalf("no editor: %v", err)
	}
}

func TestCtrlGOpensEditor(t *testing.T) {
	m := newTestModel(t, newFake())
	_, cmd := updateCmd(m, tea.KeyMsg{Type: tea.KeyCtrlG})
	if cmd == nil {
		t.Fatal("ctrl+g gives no command")
	}
	m2 := New(newFake(), Options{EditorKey: "ctrl+e"})
	if _, cmd := updateCmd(m2, tea.KeyMsg{Type: tea.KeyCtrlE}); cmd == nil {
		t.Fatal("the configured key does not open the editor")
	}
}

// An editor run in the TUI's place reads the terminal itself, not the
// paste reader: exec would otherwise wait, after the editor quit, for one
// more key to be read from the terminal.
func TestEditorGetsTheTerminalAsStdin(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "tty")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in := newPasteReader(f).input()
	c := ttyExec{exec.Command("true")}
	c.SetStdin(in)
	if c.Stdin != f {
		t.Errorf("the editor's stdin is %T; want the terminal's *os.File", c.Stdin)
	}
	c = ttyExec{exec.Command("true")}
	r := strings.NewReader("")
	c.SetStdin(r)
	if c.Stdin != r {
		t.Errorf("a plain reader was not passed on: %T", c.Stdin)
	}
}
