package ui

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"myclaw/agent"
)

func TestWelcomeLine(t *testing.T) {
	f := newFake()
	m := update(New(f, Options{Version: "1.4.0", Server: "http://localhost:11434/v1"}), sizeMsg(100, 30))
	if got := screen(m); !strings.Contains(got, "myclaw 1.4.0 · test-model at http://localhost:11434/v1 · checking the server…") ||
		!strings.Contains(got, "edits and commands wait for your approval") {
		t.Fatalf("first frame:\n%s", got)
	}
	if got := screen(update(m, serverCheckedMsg{})); !strings.Contains(got, "· server ready") {
		t.Fatalf("after the check:\n%s", got)
	}
	if got := screen(update(m, serverCheckedMsg{err: errors.New("no server")})); !strings.Contains(got, "· server check failed (below)") {
		t.Fatalf("after a failed check:\n%s", got)
	}
}

func TestServerCheckSaysOneSentence(t *testing.T) {
	m := newTestModel(t, newFake())
	err := &agent.UserError{Msg: "No model server at http://localhost:11434/v1.", Hint: "Start Ollama (ollama serve, then ollama pull qwen2.5-coder:7b).",
		Err: errors.New("dial tcp 127.0.0.1:11434: connect: connection refused")}
	got := lastBlock(update(m, serverCheckedMsg{err: err}))
	if !strings.Contains(got, "✗ No model server at http://localhost:11434/v1.") || !strings.Contains(got, "Start Ollama") || strings.Contains(got, "dial tcp") {
		t.Fatalf("server check block:\n%s", got)
	}
}

// The start-up check learns the model's window: the status line shows the
// server's figure before the first turn, not the guess.
func TestServerCheckRefreshesTheWindow(t *testing.T) {
	f := newFake()
	m := newTestModel(t, f)
	f.mu.Lock()
	f.status = agent.Status{Model: "test-model", TokensUsed: 4600, ContextWindow: 65536, WindowSource: "context_length"}
	f.mu.Unlock()
	m, cmd := updateCmd(m, serverCheckedMsg{})
	m = runCmd(t, m, cmd)
	if got := screen(m); !strings.Contains(got, "/65.5k") {
		t.Fatalf("status after the check does not show the server's window:\n%s", got)
	}
}

// A notice wraps at spaces: a date or an id with hyphens stays whole.
func TestNoticeWrapsAtSpaces(t *testing.T) {
	c := testCommon()
	text := "Resumed session 20261202-0155-ab12 (14 earlier messages, last used 2026-12-02 01:55): the model remembers them."
	for w := 60; w <= 100; w++ {
		c.width = w
		c.gen++
		for _, b := range []block{noticeBlock(text), warnBlock(text)} {
			for _, l := range b.lines(c) {
				if strings.HasSuffix(ansi.Strip(l), "-") {
					t.Errorf("at %d columns the notice broke a word after a hyphen: %q", w, ansi.Strip(l))
				}
			}
		}
	}
}

// A word wider than the width is broken; a character wider than it does
// not hang the wrap.
func TestWrapWordsBreaksLongWords(t *testing.T) {
	if got := strings.Join(wrapWords("ab cdefghij k", 4), "|"); got != "ab|cdef|ghij|k" {
		t.Errorf("wrapWords = %q", got)
	}
	if got := wrapWords("世界", 1); len(got) == 0 {
		t.Error("no lines")
	}
}

// The start-up check's outcome and the window it learned reach the screen
// together, with nothing left to refresh after them.
func TestServerCheckShowsItsOutcomeWithTheWindow(t *testing.T) {
	f := newFake()
	m := newTestModel(t, f)
	f.mu.Lock()
	f.status = agent.Status{Model: "test-model", TokensUsed: 4600, ContextWindow: 65536, WindowSource: "context_length"}
	f.mu.Unlock()
	m, cmd := updateCmd(m, checkServerStatus(context.Background(), f)())
	if got := screen(m); !strings.Contains(got, "· server ready") || !strings.Contains(got, "/65.5k") {
		t.Fatalf("after the check:\n%s", got)
	}
	if cmd != nil {
		t.Fatalf("the check leaves %T to do", cmd())
	}
	f.mu.Lock()
	f.checkErr = errors.New("no server")
	f.mu.Unlock()
	m = update(newTestModel(t, f), checkServerStatus(context.Background(), f)())
	if got := screen(m); !strings.Contains(got, "· server check failed (below)") || !strings.Contains(got, "/65.5k") {
		t.Fatalf("after a failed check:\n%s", got)
	}
}
