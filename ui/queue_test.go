package ui

import (
	"context"
	"strings"
	"testing"

	"encoding/json"

	"myclaw/agent"
)

func TestPromptSentDuringATurnIsQueued(t *testing.T) {
	f := newFake()
	m := startFakeTurn(t, newTestModel(t, f), "first")
	m = update(typeText(m, "second"), keyMsg("enter"))
	m = update(typeText(m, "third"), keyMsg("enter"))
	s := screen(m)
	if !strings.Contains(s, "⧗ queued: second") || !strings.Contains(s, "⧗ queued: third") || strings.Contains(s, "a turn is running") {
		t.Fatalf("queued prompts not shown:\n%s", s)
	}
	// ↑ on an empty prompt takes the last one back.
	m = update(m, keyMsg("up"))
	if m.input.ta.value() != "third" || len(m.queued) != 1 {
		t.Fatalf("input %q, queue %q; want third back in the input", m.input.ta.value(), m.queued)
	}
	for range len("third") {
		m = update(m, keyMsg("backspace")) // dropped
	}
	// The turn ends: the queued prompt starts the next one.
	m, cmd := updateCmd(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true}}})
	if m.turn == nil || len(m.queued) != 0 || cmd == nil {
		t.Fatalf("after the turn: turn %v, queue %q; want the queued prompt running", m.turn != nil, m.queued)
	}
	if !strings.Contains(m.tr.text(m.c), "❯ second") {
		t.Fatalf("the queued prompt is not in the transcript:\n%s", m.tr.text(m.c))
	}
	// A cancelled turn sends nothing: the queue goes back to the input.
	m = update(typeText(m, "fourth"), keyMsg("enter"))
	m = update(m, keyMsg("esc"))
	m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true, err: context.Canceled}}})
	if m.turn != nil || m.input.ta.value() != "fourth" {
		t.Fatalf("after a cancel: turn %v, input %q; want fourth back in the input", m.turn != nil, m.input.ta.value())
	}
	// A draft in the input does not leave the queue stranded: the queued
	// prompts follow it in the input, and nothing is sent later unasked.
	m.input.setValue("")
	m = startFakeTurn(t, m, "fifth")
	m = update(typeText(m, "sixth"), keyMsg("enter"))
	m = typeText(m, "draft")
	m = update(m, keyMsg("esc"))
	m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true, err: context.Canceled}}})
	if len(m.queued) != 0 || m.input.ta.value() != "draft\n\nsixth" || strings.Contains(screen(m), "⧗ queued") {
		t.Fatalf("after a cancel with a draft: queue %q, input %q", m.queued, m.input.ta.value())
	}
}

func TestQueuedCallsShowAsCards(t *testing.T) {
	m := newTestModel(t, newFake())
	m = startFakeTurn(t, m, "go")
	c1 := agent.Call{ID: "q1", Tool: "fs_write", Args: json.RawMessage(`{"path":"a.txt"}`)}
	c2 := agent.Call{ID: "q2", Tool: "shell_run", Args: json.RawMessage(`{"command":"go test ./..."}`)}
	m = events(m,
		agent.ToolCallEvent{Call: c1, Phase: "queued", Position: 1, Count: 2},
		agent.ToolCallEvent{Call: c2, Phase: "queued", Position: 2, Count: 2},
		agent.ToolCallEvent{Call: c1, Phase: "proposed"},
		agent.ApprovalEvent{CallID: "q1", Tool: "fs_write", Phase: "asked"},
	)
	got := screen(m)
	if !strings.Contains(got, "fs_write a.txt  waiting for approval") || !strings.Contains(got, "○ shell_run go test ./...  queued · 2 of 2") {
		t.Fatalf("queued cards:\n%s", got)
	}
	m = events(m, agent.ToolCallEvent{Call: c2, Phase: "started"})
	if got := screen(m); strings.Contains(got, "queued · 2 of 2") {
		t.Fatalf("the started call still says queued:\n%s", got)
	}
}
