package ui

import (
	"context"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"strings"

	"myclaw/agent"
	"myclaw/approval"
)

// endTurnCmd ends a fake turn and returns the command of its end.
func endTurnCmd(t *testing.T, m Model) (Model, tea.Cmd) {
	m = startFakeTurn(t, m, "go")
	m = events(m, agent.DoneEvent{Reason: agent.DoneStop})
	return updateCmd(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true}}})
}

// runAll runs the leaves of a batch each in a goroutine (some wait for
// events that never come), and waits until out holds want or a while
// passes.
func runAll(cmd tea.Cmd, out *syncBuffer, want string) {
	var leaves func(c tea.Cmd)
	leaves = func(c tea.Cmd) {
		if c == nil {
			return
		}
		go func() {
			if b, ok := c().(tea.BatchMsg); ok {
				for _, c := range b {
					leaves(c)
				}
			}
		}()
	}
	leaves(cmd)
	deadline := time.Now().Add(5 * time.Second)
	if want == "" {
		deadline = time.Now().Add(200 * time.Millisecond)
	}
	for time.Now().Before(deadline) && out.String() != want {
		time.Sleep(10 * time.Millisecond)
	}
}

func (s *syncBuffer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Reset()
}

func TestNotifyOnlyWhenUnfocused(t *testing.T) {
	for _, tc := range []struct {
		name, mode, term string
		blur             bool
		want             string
	}{
		{"focused bell", NotifyBell, "xterm", false, ""},
		{"unfocused bell", NotifyBell, "xterm", true, "\a"},
		{"unfocused osc 9", NotifyOSC, "xterm-ghostty", true, "\x1b]9;myclaw: the turn finished\x07"},
		{"unfocused osc 777", NotifyOSC, "foot", true, "\x1b]777;notify;myclaw;the turn finished\x07"},
		{"off", NotifyOff, "xterm", true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := &syncBuffer{}
			m := New(newFake(), Options{Notify: tc.mode, Output: out})
			m.notify.term = tc.term
			m = update(m, sizeMsg(testWidth, testHeight))
			if tc.blur {
				m = update(m, tea.BlurMsg{})
			}
			_, cmd := endTurnCmd(t, m)
			runAll(cmd, out, tc.want)
			if got := out.String(); got != tc.want {
				t.Fatalf("wrote %q; want %q", got, tc.want)
			}
		})
	}
}

func TestNotifyApprovalWaiting(t *testing.T) {
	out := &syncBuffer{}
	m := New(newFake(), Options{Notify: NotifyBell, Output: out})
	m = update(m, sizeMsg(testWidth, testHeight))
	m = update(m, tea.BlurMsg{})
	m = update(m, tea.FocusMsg{})
	m = update(m, tea.BlurMsg{})
	p := &pendingApproval{req: approval.Request{CallID: "c1", Tool: "shell_run", Summary: "Run `make`"}, ctx: context.Background(), reply: make(chan approval.Decision, 1)}
	_, cmd := updateCmd(m, approvalRequestMsg{p: p})
	runAll(cmd, out, "\a")
	if out.String() != "\a" {
		t.Fatalf("wrote %q; want a bell for the waiting approval", out.String())
	}
	out.Reset()
	m = update(m, tea.FocusMsg{})
	_, cmd = updateCmd(m, approvalRequestMsg{p: p})
	runAll(cmd, out, "")
	if out.String() != "" {
		t.Fatalf("wrote %q while focused", out.String())
	}
}

func TestWarningNotices(t *testing.T) {
	m := newTestModel(t, newFake())
	m = startFakeTurn(t, m, "go")
	m = events(m, agent.NoticeEvent{Text: "Loaded a/AGENTS.md"}, agent.NoticeEvent{Text: "Could not save the rule: disk full", Warning: true})
	got := screen(m)
	if !strings.Contains(got, "! Could not save the rule: disk full") || strings.Contains(got, "! Loaded") {
		t.Fatalf("notices not told apart:\n%s", got)
	}
}
