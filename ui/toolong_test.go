package ui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"myclaw/agent"
)

// tooLongModel holds a prompt with a paste of ~3.2k tokens, sent to a
// window with used tokens in use that it does not fit: the choices show
// instead.
func tooLongModel(t *testing.T, b Backend, window, used int) (Model, string) {
	t.Helper()
	ws := t.TempDir()
	m := New(b, Options{Workspace: ws})
	m = update(m, sizeMsg(testWidth, testHeight))
	m.status.window, m.status.tokens = window, used
	m = typeText(m, "why does this fail? ")
	m = update(m, pasteMsg(bigPaste(1000)))
	m, cmd := updateCmd(m, keyMsg("enter"))
	if m.turn != nil || m.picker == nil {
		t.Fatalf("sent without a word: turn %v, picker %v", m.turn != nil, m.picker != nil)
	}
	_ = cmd // saving the prompt history
	return m, ws
}

func TestTooLongMessageAsksFirst(t *testing.T) {
	f := newFake()
	m, _ := tooLongModel(t, f, 2000, 500)
	golden.RequireEqual(t, []byte(strings.Join(m.bottomView(), "\n")))
	// Esc: back to the prompt, the message as it was.
	m = update(m, keyMsg("esc"))
	if m.picker != nil || m.input.ta.value() != "why does this fail? [pasted 1000 lines]" || len(m.input.pastes) != 1 {
		t.Fatalf("after esc: input %q, %d pastes", m.input.ta.value(), len(m.input.pastes))
	}
	// Sent anyway: whole, the paste a chip in the transcript.
	m, _ = updateCmd(m, keyMsg("enter"))
	next, cmd := updateCmd(m, keyMsg("enter"))
	m, cmd = runCmdNoTurn(t, next, cmd)
	m = drainTurn(t, m, cmd)
	want := "why does this fail? " + strings.ReplaceAll(bigPaste(1000), "\r\n", "\n")
	if len(f.prompts) != 1 || f.prompts[0] != want {
		t.Fatalf("sent %d prompts; want the message whole", len(f.prompts))
	}
	if !strings.Contains(m.tr.text(m.c), "❯ why does this fail? [pasted 1000 lines]") {
		t.Fatalf("transcript:\n%s", m.tr.text(m.c))
	}
}

func TestTooLongMessageAttachedAsFile(t *testing.T) {
	f := newFake()
	m, ws := tooLongModel(t, f, 2000, 500)
	m = update(m, keyMsg("down"))
	next, cmd := updateCmd(m, keyMsg("enter"))
	m, cmd = runCmdNoTurn(t, next, cmd)
	m = drainTurn(t, m, cmd)
	if len(f.prompts) != 1 || !strings.Contains(f.prompts[0], "in the file "+pastesDir+"/message-") || len(f.prompts[0]) > 300 {
		t.Fatalf("sent %q", f.prompts)
	}
	rel := strings.Fields(strings.SplitAfter(f.prompts[0], "in the file ")[1])[0]
	data, err := os.ReadFile(filepath.Join(ws, rel))
	if err != nil || string(data) != "why does this fail? "+strings.ReplaceAll(bigPaste(1000), "\r\n", "\n") {
		t.Fatalf("the file %s holds %d bytes (%v); want the message", rel, len(data), err)
	}
	if ig, err := os.ReadFile(filepath.Join(ws, pastesDir, ".gitignore")); err != nil || !strings.Contains(string(ig), "*") {
		t.Fatalf("no .gitignore keeps the file out of git: %q %v", ig, err)
	}
	if m.input.ta.value() != "" {
		t.Fatalf("input %q", m.input.ta.value())
	}
}

func TestTooLongMessageCompactsFirst(t *testing.T) {
	f := &slowCompactor{fakeBackend: newFake(), started: make(chan struct{})}
	if m, _ := tooLongModel(t, f, 2000, 500); len(m.picker.items) != 2 {
		t.Fatalf("compaction offered for a message bigger than the window: %v", m.picker.items)
	}
	m, _ := tooLongModel(t, f, 5000, 3000)
	m = update(m, keyMsg("down"))
	m = update(m, keyMsg("down"))
	next, cmd := updateCmd(m, keyMsg("enter"))
	m, cmd = updateCmd(next, cmd())
	if m.compactCancel == nil || len(m.queued) != 1 || !strings.HasSuffix(m.queued[0], "log line 1000\n") {
		t.Fatalf("compaction %v, queue of %d", m.compactCancel != nil, len(m.queued))
	}
	_ = cmd
}

// runCmdNoTurn runs the picker's command and hands its message to the
// model, returning the command that starts the turn through drainTurn.
func runCmdNoTurn(t *testing.T, m Model, cmd tea.Cmd) (Model, tea.Cmd) {
	t.Helper()
	if cmd == nil {
		t.Fatal("the choice did nothing")
	}
	return updateCmd(m, cmd())
}

// The workspace is the repository's to shape: a link planted as the
// pastes folder, its .gitignore or a message file makes the attachment
// fail, naming why, and writes nothing outside the workspace.
func TestPasteFileStaysInTheWorkspace(t *testing.T) {
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	for name, plant := range map[string]func(ws, outside, victim string) error{
		"folder is a link out": func(ws, outside, _ string) error { return os.Symlink(outside, filepath.Join(ws, pastesDir)) },
		".gitignore is a link out": func(ws, _, victim string) error {
			if err := os.Mkdir(filepath.Join(ws, pastesDir), 0o700); err != nil {
				return err
			}
			return os.Symlink(victim, filepath.Join(ws, pastesDir, ".gitignore"))
		},
		"message file is a link out": func(ws, _, victim string) error {
			if err := os.Mkdir(filepath.Join(ws, pastesDir), 0o700); err != nil {
				return err
			}
			return os.Symlink(victim, filepath.Join(ws, pastesDir, "message-20261202-100000.txt"))
		},
	} {
		t.Run(name, func(t *testing.T) {
			ws, outside := t.TempDir(), t.TempDir()
			victim := filepath.Join(outside, "victim")
			if err := os.WriteFile(victim, []byte("keep me\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := plant(ws, outside, victim); err != nil {
				t.Skipf("cannot plant a link here: %v", err)
			}
			path, err := writePasteFile(ws, "secret paste\n", now)
			if got, _ := os.ReadFile(victim); string(got) != "keep me\n" {
				t.Fatalf("the file outside the workspace now holds %q", got)
			}
			entries, _ := os.ReadDir(outside)
			if len(entries) != 1 {
				t.Fatalf("%d entries outside the workspace; want only the victim", len(entries))
			}
			if err == nil {
				// A link left alone may be stepped over: the message went
				// to a file of its own inside the workspace.
				got, rerr := os.ReadFile(filepath.Join(ws, filepath.FromSlash(path)))
				if rerr != nil || string(got) != "secret paste\n" {
					t.Fatalf("wrote %s: %q, %v", path, got, rerr)
				}
			}
		})
	}
}

// failingCompactor's Compact fails at once, compacting nothing.
type failingCompactor struct{ *fakeBackend }

func (failingCompactor) Compact(context.Context, string) (agent.CompactionEvent, error) {
	return agent.CompactionEvent{}, errors.New("the model returned an empty summary, nothing was compacted")
}
func (failingCompactor) Uncompact() (string, error) { return "", nil }
func (failingCompactor) Keep() (string, error)      { return "", nil }

// A compaction that fails gives the message back as it was, chips and all.
func TestTooLongMessageBackWhenCompactionFails(t *testing.T) {
	f := failingCompactor{newFake()}
	m, _ := tooLongModel(t, f, 5000, 3000)
	m = update(m, keyMsg("down"))
	m = update(m, keyMsg("down"))
	next, cmd := updateCmd(m, keyMsg("enter"))
	m, cmd = updateCmd(next, cmd())
	m, _ = updateCmd(m, cmd())
	if len(f.prompts) != 0 || len(m.queued) != 0 {
		t.Fatalf("sent %d prompts, %d queued; want the message back in the input", len(f.prompts), len(m.queued))
	}
	if got := m.input.ta.value(); got != "why does this fail? [pasted 1000 lines]" || len(m.input.pastes) != 1 {
		t.Fatalf("input %.80q, %d pastes; want the message with its chip", got, len(m.input.pastes))
	}
	if !strings.Contains(m.tr.text(m.c), "nothing was compacted") {
		t.Fatalf("transcript:\n%s", m.tr.text(m.c))
	}
}

// A context already over the window is not the fault of a short message:
// it goes without a word. A message that tips a context that fits over
// the window is asked about, in tokens counted right.
func TestTooLongOnlyWhenTheMessageIsTheProblem(t *testing.T) {
	f := newFake()
	m := New(f, Options{Workspace: t.TempDir()})
	m = update(m, sizeMsg(testWidth, testHeight))
	m.status.window, m.status.tokens = 65536, 70300
	m = typeText(m, "continue please")
	m, cmd := updateCmd(m, keyMsg("enter"))
	if m.picker != nil || m.turn == nil {
		t.Fatalf("a 4-token message over a full context: picker %v, turn %v", m.picker != nil, m.turn != nil)
	}
	_ = drainTurn(t, m, cmd)

	m = New(f, Options{Workspace: t.TempDir()})
	m = update(m, sizeMsg(testWidth, testHeight))
	m.status.window, m.status.tokens = 1000, 1000
	m = typeText(m, "ok")
	m, _ = updateCmd(m, keyMsg("enter"))
	if m.picker == nil || !strings.HasPrefix(m.picker.title, "This message (~1 token) and the context (~1k) exceed") {
		t.Fatalf("a message that tips a full context over: picker %v", m.picker)
	}
}

// A custom command's prompt is checked as a typed one; attached as a file,
// the file holds the prompt and the transcript the line typed.
func TestTooLongCustomCommand(t *testing.T) {
	f := newFake()
	ws := t.TempDir()
	m := New(f, Options{Workspace: ws})
	m = update(m, sizeMsg(testWidth, testHeight))
	m.status.window, m.status.tokens = 2000, 1000
	m.c.setCustom([]CustomCommand{{Name: "greet", Body: "Hello $ARGUMENTS.\n" + strings.Repeat("Be kind and thorough. ", 200), Path: "/cfg/greet.md", Scope: "user"}})
	m = typeText(m, "/greet Alice")
	m.input.closed = true
	m, _ = updateCmd(m, keyMsg("enter"))
	if m.picker == nil || len(f.prompts) != 0 {
		t.Fatalf("the prompt of /greet (~1.1k tokens of a 2k window) went unasked: %d prompts", len(f.prompts))
	}
	if got := m.input.ta.value(); got != "/greet Alice" {
		t.Fatalf("input %q while asking", got)
	}
	m = update(m, keyMsg("down"))
	next, cmd := updateCmd(m, keyMsg("enter"))
	m, cmd = runCmdNoTurn(t, next, cmd)
	m = drainTurn(t, m, cmd)
	if len(f.prompts) != 1 || !strings.Contains(f.prompts[0], "in the file "+pastesDir+"/message-") {
		t.Fatalf("sent %q", f.prompts)
	}
	rel := strings.Fields(strings.SplitAfter(f.prompts[0], "in the file ")[1])[0]
	if data, err := os.ReadFile(filepath.Join(ws, rel)); err != nil || !strings.HasPrefix(string(data), "Hello Alice.\nBe kind") {
		t.Fatalf("the file %s holds %.40q (%v); want the prompt", rel, data, err)
	}
	if tr := m.tr.text(m.c); !strings.Contains(tr, "❯ /greet Alice") {
		t.Fatalf("transcript:\n%s", tr)
	}
}
