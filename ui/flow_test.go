package ui

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"

	"myclaw/agent"
	"myclaw/approval"
)

// waitLimit bounds each wait of the end-to-end flows. It is a limit for a
// hung test, not a speed target.
const waitLimit = 20 * time.Second

func startProgram(t *testing.T, f *fakeBackend) *teatest.TestModel {
	t.Helper()
	return teatest.NewTestModel(t, New(f, Options{Workspace: "/work/project"}), teatest.WithInitialTermSize(testWidth, testHeight))
}

// waitFor waits until everything in texts has been drawn since the last wait.
func waitFor(t *testing.T, tm *teatest.TestModel, texts ...string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		s := ansi.Strip(string(b))
		for _, text := range texts {
			if !strings.Contains(s, text) {
				return false
			}
		}
		return true
	},
		teatest.WithDuration(waitLimit), teatest.WithCheckInterval(10*time.Millisecond))
}

func send(tm *teatest.TestModel, keys ...string) {
	for _, k := range keys {
		tm.Send(keyMsg(k))
	}
}

// quitProgram leaves with ctrl+c twice and returns the final model, its
// goroutines stopped.
func quitProgram(t *testing.T, tm *teatest.TestModel) Model {
	t.Helper()
	send(tm, "ctrl+c", "ctrl+c")
	m := tm.FinalModel(t, teatest.WithFinalTimeout(waitLimit)).(Model)
	if !m.shared.shutdown(waitLimit) {
		t.Errorf("got a turn still running after quitting")
	}
	return m
}

func TestFlowPromptAndAnswer(t *testing.T) {
	f := newFake()
	f.runFn = func(ctx context.Context, prompt string, emit func(agent.Event), ap approval.Approver) error {
		emit(agent.TextDelta{Text: "Hello **there**"})
		emit(agent.TextDelta{Text: ", world."})
		emit(agent.UsageEvent{TotalTokens: 2048, ContextWindow: 8192})
		emit(agent.DoneEvent{Reason: agent.DoneStop, Rounds: 1})
		f.mu.Lock()
		f.status.TokensUsed, f.status.ContextWindow = 2048, 8192
		f.mu.Unlock()
		return nil
	}
	tm := startProgram(t, f)
	waitFor(t, tm, "test-model")
	tm.Type("say hi")
	send(tm, "enter")
	waitFor(t, tm, "Hello there, world.", "2k/8.2k tokens")
	m := quitProgram(t, tm)
	if len(f.prompts) != 1 || f.prompts[0] != "say hi" {
		t.Errorf("got prompts %q; want [say hi]", f.prompts)
	}
	if m.status.tokens != 2048 || m.turn != nil {
		t.Errorf("got tokens %d, turn %v; want 2048 and no turn", m.status.tokens, m.turn)
	}
}

// approvalFlow runs a turn that asks for a write and reports the decision.
func approvalFlow(t *testing.T, keys func(tm *teatest.TestModel)) approval.Decision {
	t.Helper()
	f := newFake()
	got := make(chan approval.Decision, 1)
	f.runFn = func(ctx context.Context, prompt string, emit func(agent.Event), ap approval.Approver) error {
		req := writeRequest()
		c := agent.Call{ID: req.CallID, Tool: req.Tool, Args: req.Args}
		emit(agent.ToolCallEvent{Call: c, Phase: "proposed", Summary: req.Summary})
		d, err := ap.Approve(ctx, req)
		if err != nil {
			return err
		}
		got <- d
		if d.Approved() {
			emit(agent.ToolResultEvent{Call: c, Status: agent.StatusOK, Summary: "wrote notes/todo.md", Reversible: true})
		} else {
			emit(agent.ToolResultEvent{Call: c, Status: agent.StatusDenied, Message: "denied by the user: " + d.Reason})
		}
		emit(agent.DoneEvent{Reason: agent.DoneStop, Rounds: 1})
		return nil
	}
	tm := startProgram(t, f)
	tm.Type("update the todo list")
	send(tm, "enter")
	waitFor(t, tm, "approve fs_write?")
	keys(tm)
	var d approval.Decision
	select {
	case d = <-got:
	case <-time.After(waitLimit):
		t.Fatal("got no decision from the pane")
	}
	if d.Approved() {
		waitFor(t, tm, "wrote notes/todo.md")
	} else {
		waitFor(t, tm, "denied by the user")
	}
	quitProgram(t, tm)
	return d
}

func TestFlowApproveWrite(t *testing.T) {
	d := approvalFlow(t, func(tm *teatest.TestModel) { send(tm, "y") })
	if d.Choice != approval.ApproveOnce || d.By != "user" {
		t.Errorf("got %+v; want approve once by the user", d)
	}
}

func TestFlowDenyWithReason(t *testing.T) {
	d := approvalFlow(t, func(tm *teatest.TestModel) {
		send(tm, "r")
		waitFor(t, tm, "reason (the model reads it)")
		tm.Type("keep the old list")
		send(tm, "enter")
	})
	if d.Choice != approval.Deny || d.Reason != "keep the old list" {
		t.Errorf("got %+v; want a denial with the reason", d)
	}
}

func TestFlowUndo(t *testing.T) {
	f := newFake()
	f.undoOut = "Reverted fs_write notes/todo.md (restored 4 lines)"
	tm := startProgram(t, f)
	tm.Type("/undo")
	send(tm, "enter")
	waitFor(t, tm, "Reverted fs_write notes/todo.md")
	quitProgram(t, tm)
	if len(f.undoCalls) != 1 || f.undoCalls[0] != [2]any{1, false} {
		t.Errorf("got undo calls %v; want one of 1 without force", f.undoCalls)
	}
}

func TestFlowCancelTurn(t *testing.T) {
	f := newFake()
	ended := make(chan error, 1)
	f.runFn = func(ctx context.Context, prompt string, emit func(agent.Event), ap approval.Approver) error {
		emit(agent.TextDelta{Text: "Working on it"})
		<-ctx.Done()
		ended <- ctx.Err()
		emit(agent.DoneEvent{Reason: agent.DoneCancelled})
		return ctx.Err()
	}
	tm := startProgram(t, f)
	tm.Type("long job")
	send(tm, "enter")
	waitFor(t, tm, "Working on it")
	send(tm, "esc")
	waitFor(t, tm, "⊘ cancelled")
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got ctx error %v; want context.Canceled", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("got no cancellation in the turn")
	}
	m := quitProgram(t, tm)
	if m.turn != nil {
		t.Errorf("got a running turn after the cancel")
	}
	if s := m.tr.text(m.c); bytes.Contains([]byte(s), []byte("✗")) {
		t.Errorf("got an error line for a cancel:\n%s", s)
	}
}

// Quitting while a turn runs cancels it and waits for it to return.
func TestFlowQuitCancelsTurn(t *testing.T) {
	f := newFake()
	ended := make(chan error, 1)
	f.runFn = func(ctx context.Context, prompt string, emit func(agent.Event), ap approval.Approver) error {
		emit(agent.TextDelta{Text: "Busy"})
		<-ctx.Done()
		ended <- ctx.Err()
		return ctx.Err()
	}
	tm := startProgram(t, f)
	tm.Type("work")
	send(tm, "enter")
	waitFor(t, tm, "Busy")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("/quit")})
	send(tm, "enter")
	m := tm.FinalModel(t, teatest.WithFinalTimeout(waitLimit)).(Model)
	if !m.shared.shutdown(waitLimit) {
		t.Fatal("got the turn still running after shutdown")
	}
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("got %v; want the turn cancelled by quitting", err)
	}
}
