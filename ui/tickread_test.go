package ui

import (
	"context"
	"fmt"
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
	now := time.Unix(1e9, 0)
	m.c.now = func() time.Time { return now }
	m, cmd := m.startRun("stream", func(ctx context.Context, emit func(agent.Event)) error {
		emit(agent.TextDelta{Text: "alpha "})
		<-more
		emit(agent.TextDelta{Text: "beta gamma"})
		<-finish
		return nil
	})
	cmds := cmd().(tea.BatchMsg)
	go cmds[0]()        // the turn's goroutine
	m.lastPublish = now // text was shown 5 ms before this delta
	now = now.Add(5 * time.Millisecond)
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

// A delta that comes a frame or more after text was last shown (a model
// typing at its pace, read once a frame) is shown at once, without a
// publish tick; one soon after waits for the tick.
func TestADeltaAFrameAfterTheLastIsShownAtOnce(t *testing.T) {
	m := New(newFake(), Options{Workspace: "/work/project"})
	m = update(m, sizeMsg(80, 20))
	now := time.Unix(1e9, 0)
	m.c.now = func() time.Time { return now }
	ch := make(chan turnItem, 4)
	m.turn = &turnState{id: 1, ch: ch, cancel: func() {}}
	m.lastPublish = now
	now = now.Add(frameInterval)
	m, cmd := updateCmd(m, eventsMsg{turn: 1, items: []turnItem{{ev: agent.TextDelta{Text: "alpha "}}}})
	if s := screen(m); !strings.Contains(s, "alpha") || m.tickPending {
		t.Fatalf("a delta a frame after the last publication: tickPending %v; screen:\n%s", m.tickPending, s)
	}
	if cmd == nil {
		t.Fatal("nobody waits on the turn's channel")
	}
	now = now.Add(frameInterval / 4)
	m, _ = updateCmd(m, eventsMsg{turn: 1, items: []turnItem{{ev: agent.TextDelta{Text: "beta"}}}})
	if s := screen(m); strings.Contains(s, "beta") || !m.tickPending {
		t.Fatalf("a delta soon after: tickPending %v; screen:\n%s", m.tickPending, s)
	}
	m, _ = updateCmd(m, renderTickMsg{})
	if s := screen(m); !strings.Contains(s, "alpha beta") {
		t.Fatalf("the tick did not show it; screen:\n%s", s)
	}
}

// While text streams, the spinner turns in the frames that show it, at
// most once a spinnerInterval, and its own tick only looks in now and
// then; when the text stops, the tick turns it again.
func TestTheSpinnerTurnsWithTheText(t *testing.T) {
	m := New(newFake(), Options{Workspace: "/work/project"})
	m = update(m, sizeMsg(80, 20))
	now := time.Unix(1e9, 0)
	m.c.now = func() time.Time { return now }
	ch := make(chan turnItem, 4)
	m.turn = &turnState{id: 1, ch: ch, cancel: func() {}, start: now, spunAt: now}
	delta := func(text string) {
		now = now.Add(frameInterval)
		m, _ = updateCmd(m, eventsMsg{turn: 1, items: []turnItem{{ev: agent.TextDelta{Text: text}}}})
	}
	for i := range 6 { // 6 frames: 198 ms
		delta(fmt.Sprintf("w%d ", i))
	}
	if m.turn.frame != 1 {
		t.Fatalf("after 198 ms of text the spinner turned %d times; want once", m.turn.frame)
	}
	m, cmd := updateCmd(m, spinnerTickMsg{turn: 1, now: now})
	if m.turn.frame != 1 {
		t.Fatal("the spinner's tick turned it right after the text did")
	}
	if cmd == nil {
		t.Fatal("the spinner's tick stopped")
	}
	now = now.Add(spinnerInterval)
	m, _ = updateCmd(m, spinnerTickMsg{turn: 1, now: now})
	if m.turn.frame != 2 {
		t.Fatalf("with no text for %v the tick did not turn the spinner (frame %d)", spinnerInterval, m.turn.frame)
	}
}
