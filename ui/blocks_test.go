package ui

import (
	"errors"
	"strings"
	"testing"

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
