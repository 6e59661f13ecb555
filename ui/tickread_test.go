package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/agent"
)

// While a publish tick is pending, nobody waits on the turn's channel for
// each token: the tick takes what streamed meanwhile and shows it, then
// waits on the channel again, and the end of the turn still arrives.
func TestThePublishTickReadsWhatStreamedMeanwhile(t *testing.T) {
	m := New(newFake(), Options{Workspace: "/work/project"})
	m = update(m, sizeMsg(80, 20))
	more, finish := make(chan struct{}), make(chan struct{})
	m, cmd := m.startRun("stream", func(ctx context.Context, emit func(agent.Event)) error {
		emit(agent.TextDelta{Text: "alpha "})
		<-more
		emit(agent.TextDelta{Text: "beta gamma"})
		<-finish
		return nil
	})
	cmds := cmd().(tea.BatchMsg)
	go cmds[0]() // the turn's goroutine
	m, cmd = updateCmd(m, cmds[1]())
	if !m.tickPending || !m.turn.atTick {
		t.Fatalf("after a delta with a tick pending: tickPending %v, atTick %v; want the channel left to the tick", m.tickPending, m.turn.atTick)
	}
	if cmd == nil {
		t.Fatal("got no command; want the publish tick")
	}
	close(more)
	for deadline := time.Now().Add(10 * time.Second); len(m.turn.ch) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the second delta never reached the channel")
		}
	}
	m, cmd = updateCmd(m, renderTickMsg{})
	if s := screen(m); !strings.Contains(s, "alpha beta gamma") {
		t.Fatalf("the tick did not show what streamed meanwhile; screen:\n%s", s)
	}
	if cmd == nil {
		t.Fatal("the tick did not wait on the channel again")
	}
	close(finish)
	m = runCmd(t, m, cmd)
	if m.turn != nil {
		t.Fatal("the turn did not end after the tick waited on the channel again")
	}
	if s := screen(m); !strings.Contains(s, "alpha beta gamma") {
		t.Fatalf("the answer is gone at the end; screen:\n%s", s)
	}
}
