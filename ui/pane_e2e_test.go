package ui

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/history"
	"myclaw/tools"
	"myclaw/tools/builtin"
)

// scriptedCall is one tool call the scripted server makes.
type scriptedCall struct{ name, args string }

// recordingAgent is the real agent; Run also keeps every event it
// emitted, as headless mode would print them.
type recordingAgent struct {
	*agent.Agent
	mu     sync.Mutex
	events []agent.Event
}

func (r *recordingAgent) Run(ctx context.Context, prompt string, emit func(agent.Event), ap approval.Approver) error {
	return r.Agent.Run(ctx, prompt, func(ev agent.Event) {
		r.mu.Lock()
		r.events = append(r.events, ev)
		r.mu.Unlock()
		emit(ev)
	}, ap)
}

func (r *recordingAgent) results() []agent.ToolResultEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []agent.ToolResultEvent
	for _, ev := range r.events {
		if res, ok := ev.(agent.ToolResultEvent); ok {
			out = append(out, res)
		}
	}
	return out
}

// scriptedAgent is the real agent over fs_write and shell_run in a fresh
// workspace, with an audit log, talking to a 127.0.0.1 server whose first
// answer makes calls and whose later answers say "All done.".
func scriptedAgent(t *testing.T, calls ...scriptedCall) (*recordingAgent, string, string) {
	t.Helper()
	url := e2eModel(t, func(n int, chunk func(map[string]any, any)) {
		if n > 1 {
			chunk(map[string]any{"role": "assistant", "content": "All done."}, nil)
			chunk(map[string]any{}, "stop")
			return
		}
		for i, c := range calls {
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": fmt.Sprintf("c%d", i+1), "type": "function",
				"function": map[string]any{"name": c.name, "arguments": c.args}}}}, nil)
		}
		chunk(map[string]any{}, "tool_calls")
	})
	auditPath := filepath.Join(t.TempDir(), "audit.jsonl")
	audit, err := approval.OpenAudit(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	a, ws := e2eAgent(t, url, func(ws *builtin.Workspace, store *history.Store) []tools.Tool {
		return []tools.Tool{builtin.NewFsWrite(ws, store.Blobs()), builtin.NewShellRun(builtin.ShellOptions{Dir: ws.Dir(), OutputDir: t.TempDir()})}
	}, audit)
	return &recordingAgent{Agent: a}, ws, auditPath
}

// auditDecisions reads the decisions of the audit log, in order.
func auditDecisions(t *testing.T, path string) []approval.AuditEntry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []approval.AuditEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e approval.AuditEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

// One Esc at the pane of a three-call answer ends the turn: none of the
// three calls runs, each is marked cancelled, and the turn is over.
func TestEscAtThePaneEndsTheTurn(t *testing.T) {
	a, ws, auditPath := scriptedAgent(t,
		scriptedCall{"fs_write", `{"path":"one.txt","content":"1"}`},
		scriptedCall{"fs_write", `{"path":"two.txt","content":"2"}`},
		scriptedCall{"fs_write", `{"path":"three.txt","content":"3"}`})
	tm := teatest.NewTestModel(t, New(a, Options{Workspace: ws}), teatest.WithInitialTermSize(testWidth, testHeight))
	tm.Type("write three files")
	send(tm, "enter")
	waitFor(t, tm, "approve fs_write? · call 1 of 3")
	send(tm, "esc")
	waitFor(t, tm, "⊘ cancelled")
	m := quitProgram(t, tm)
	if m.turn != nil || m.pane != nil || len(m.queue) > 0 {
		t.Fatalf("after one esc: turn %v, pane %v, queue %d; want the turn over", m.turn != nil, m.pane != nil, len(m.queue))
	}
	for _, name := range []string{"one.txt", "two.txt", "three.txt"} {
		if _, err := os.Stat(filepath.Join(ws, name)); !os.IsNotExist(err) {
			t.Errorf("%s was written after esc (%v)", name, err)
		}
	}
	res := a.results()
	if len(res) != 3 {
		t.Fatalf("got %d results; want one for each of the three calls: %+v", len(res), res)
	}
	for _, r := range res {
		if r.Status != agent.StatusCancelled {
			t.Errorf("call %s ended %s; want cancelled", r.Call.ID, r.Status)
		}
	}
	for _, c := range m.cards {
		if c.status != agent.StatusCancelled {
			t.Errorf("card of %s shows %q; want cancelled", c.call.ID, c.status)
		}
	}
	if d := auditDecisions(t, auditPath); len(d) != 1 || d[0].Decision != "cancelled" || d[0].By != "user" {
		t.Errorf("audit %+v; want the call asked about recorded as cancelled", d)
	}
}

// e, a new command, Enter: the edited call is shown once more, Enter
// approves it, and the command that ran is the edited one on the card, in
// the journal, in the audit log and in the events.
func TestEditThenEnterRunsTheEditedCommand(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("shell_run needs bash, which is not installed here")
	}
	a, ws, auditPath := scriptedAgent(t, scriptedCall{"shell_run", `{"command":"echo model > out.txt"}`})
	tm := teatest.NewTestModel(t, New(a, Options{Workspace: ws}), teatest.WithInitialTermSize(testWidth, testHeight))
	tm.Type("write out.txt")
	send(tm, "enter")
	waitFor(t, tm, "approve shell_run?", "$ echo model > out.txt")
	send(tm, "e")
	waitFor(t, tm, "edit the command")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlU})
	tm.Type("echo user > out.txt")
	send(tm, "enter")
	waitFor(t, tm, "approve shell_run? · as you edited it", "$ echo user > out.txt")
	send(tm, "enter")
	waitFor(t, tm, "All done.")
	m := quitProgram(t, tm)
	if b, err := os.ReadFile(filepath.Join(ws, "out.txt")); err != nil || string(b) != "user\n" {
		t.Fatalf("out.txt holds %q (%v); want the edited command's output", b, err)
	}
	view := m.tr.text(m.c)
	if !strings.Contains(view, "shell_run echo user > out.txt") || !strings.Contains(view, "ran with the arguments as you edited them") ||
		strings.Contains(view, "shell_run echo model") {
		t.Fatalf("the card does not show the command that ran:\n%s", view)
	}
	entries, err := a.History()
	if err != nil || len(entries) != 1 || !strings.Contains(string(entries[0].Args), "echo user") {
		t.Fatalf("journal %+v (%v); want the edited command", entries, err)
	}
	audit := auditDecisions(t, auditPath)
	if len(audit) == 0 || audit[len(audit)-1].Decision != string(approval.Edit) || !strings.Contains(audit[len(audit)-1].Summary, "echo user") ||
		audit[len(audit)-1].ArgsSHA != approval.ArgsDigest(entries[0].Args) {
		t.Fatalf("audit %+v; want the edited call approved last", audit)
	}
	res := a.results()
	if len(res) != 1 {
		t.Fatalf("results %+v; want one", res)
	}
	b, _ := json.Marshal(res[0])
	if !strings.Contains(string(b), `echo user \u003e out.txt`) || !strings.Contains(string(b), `"edited":true`) {
		t.Fatalf("the result event %s does not carry the edited command", b)
	}
}
