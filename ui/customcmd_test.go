package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeCmd(t *testing.T, dir, name, content string) {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadCommands(t *testing.T) {
	user, proj := t.TempDir(), t.TempDir()
	writeCmd(t, user, "review.md", "---\ndescription: Review a file\nargument-hint: FILE [FOCUS]\n---\nReview $1 with care for $2.\nAll: $ARGUMENTS\n")
	writeCmd(t, user, "help.md", "shadow the builtin")
	writeCmd(t, user, "plain.md", "# Summarise the diff\nSay what changed.")
	writeCmd(t, user, "bad name.md", "x")
	writeCmd(t, proj, "review.md", "the project's review")
	writeCmd(t, proj, "deploy.md", "deploy it")

	cmds, notices := LoadCommands(CommandDir{user, "user", true}, CommandDir{proj, "project", false})
	names := []string{}
	for _, c := range cmds {
		names = append(names, c.Name)
	}
	if strings.Join(names, " ") != "plain review" {
		t.Fatalf("commands %q; want plain review", names)
	}
	all := strings.Join(notices, "\n")
	for _, want := range []string{"/help is a builtin command and cannot be replaced", "bad name.md: a command name uses", "Ignored 2 commands in " + proj + ": this folder is not trusted"} {
		if !strings.Contains(all, want) {
			t.Errorf("notices lack %q:\n%s", want, all)
		}
	}
	if cmds[0].Desc != "Summarise the diff" || cmds[1].Desc != "Review a file" || cmds[1].Hint != "FILE [FOCUS]" {
		t.Errorf("descriptions %+v", cmds)
	}
	if got := cmds[1].expand(`main.go "error handling"`); got != "Review main.go with care for error handling.\nAll: main.go \"error handling\"" {
		t.Errorf("expand: %q", got)
	}
	if got := cmds[0].expand("only HEAD~1"); got != "# Summarise the diff\nSay what changed.\n\nonly HEAD~1" {
		t.Errorf("expand without placeholders: %q", got)
	}
	// Trusted, the project's commands load; the user's review wins.
	cmds, notices = LoadCommands(CommandDir{user, "user", true}, CommandDir{proj, "project", true})
	if len(cmds) != 3 || !strings.Contains(strings.Join(notices, "\n"), "/review is already defined by "+filepath.Join(user, "review.md")) {
		t.Fatalf("trusted: %d commands, notices %q", len(cmds), notices)
	}
}

// A command file's front matter is drawn in /help and the completion
// list: its escape sequences (a window title, the clipboard through OSC 52)
// show there as text and never reach the terminal.
func TestCustomCommandHintCannotDriveTheTerminal(t *testing.T) {
	dir := t.TempDir()
	writeCmd(t, dir, "review.md", "---\ndescription: Review\x1b]0;pwned\x07 a file\nargument-hint: FILE\x1b]52;c;ZXZpbA==\x07 \u202e[x]\n---\nReview $1.")
	cmds, _ := LoadCommands(CommandDir{dir, "user", true})
	if len(cmds) != 1 {
		t.Fatalf("%d commands; want 1", len(cmds))
	}
	c := cmds[0]
	if want := `FILE\e]52;c;ZXZpbA==\a ⟨U+202E⟩[x]`; c.Hint != want {
		t.Errorf("hint %q; want %q", c.Hint, want)
	}
	if want := `Review\e]0;pwned\a a file`; c.Desc != want {
		t.Errorf("description %q; want %q", c.Desc, want)
	}
	m := New(newFake(), Options{Workspace: "/work/project", Commands: func() ([]CustomCommand, []string) {
		return LoadCommands(CommandDir{dir, "user", true})
	}})
	m = update(m, sizeMsg(testWidth, testHeight))
	m = runCmd(t, m, loadCustomCommands(m.loadCommands))
	m = typeText(m, "/rev")
	if s := screen(m); strings.Contains(s, "\x1b]") || !strings.Contains(s, `/review FILE\e]52`) {
		t.Fatalf("completion shows the hint raw or not at all:\n%q", s)
	}
}

func TestCustomCommandRunsAndCompletes(t *testing.T) {
	dir := t.TempDir()
	writeCmd(t, dir, "review.md", "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1.")
	f := newFake()
	m := New(f, Options{Workspace: "/work/project", Commands: func() ([]CustomCommand, []string) {
		return LoadCommands(CommandDir{dir, "user", true})
	}})
	m = update(m, sizeMsg(testWidth, testHeight))
	m = runCmd(t, m, loadCustomCommands(m.loadCommands))
	m = typeText(m, "/rev")
	if !strings.Contains(screen(m), "/review FILE") || !strings.Contains(screen(m), "Review a file (user)") {
		t.Fatalf("completion lacks the custom command:\n%s", screen(m))
	}
	m = update(m, keyMsg("tab"))
	m = typeText(m, "main.go")
	m, cmd := updateCmd(m, keyMsg("enter"))
	drainTurn(t, m, cmd)
	if len(f.prompts) != 1 || f.prompts[0] != "Review main.go." {
		t.Fatalf("prompts %q; want the expanded file", f.prompts)
	}
	m = typeText(m, "/help")
	m = update(m, keyMsg("enter"))
	if !strings.Contains(m.tr.text(m.c), "your commands") {
		t.Fatalf("/help does not list custom commands")
	}
}
