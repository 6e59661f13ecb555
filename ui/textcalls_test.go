package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"myclaw/agent"
)

// textCallModel is a turn in which the model wrote its call as text: the
// first paragraph is on screen before the call's text streams.
func textCallModel(t *testing.T) Model {
	m := newTestModel(t, newFake())
	m = startFakeTurn(t, m, "What time is it?")
	m = events(m, agent.TextDelta{Text: "Let me check the clock.\n\n"})
	m = events(m, agent.TextDelta{Text: "<tool_call>\n{\"name\": \"time_now\", \"arguments\": {}}\n"})
	m = update(m, renderTickMsg{}) // the call's text is on screen as it streams
	if !strings.Contains(screen(m), "<tool_call>") {
		t.Fatalf("the streamed call's text is not on screen:\n%s", screen(m))
	}
	c := call("text_call_1", "time_now", `{}`)
	c.FromText = true
	m = events(m,
		agent.TextDelta{Text: "</tool_call>"},
		agent.NoticeEvent{Text: "The model wrote a tool call as text; running it as a call.", TextCalls: true, Answer: "Let me check the clock."},
		agent.ToolCallEvent{Call: c, Phase: "started"},
		agent.ToolResultEvent{Call: c, Status: agent.StatusOK, Summary: "2026-01-02 10:00 UTC", Duration: time.Millisecond},
		agent.TextDelta{Text: "It is ten o'clock."},
		agent.DoneEvent{Reason: agent.DoneStop, Rounds: 2},
	)
	return update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true}}})
}

func TestTextCallLeavesTheAnswerGolden(t *testing.T) {
	m := textCallModel(t)
	if s := screen(m); strings.Contains(s, "tool_call") || strings.Contains(s, `"arguments"`) {
		t.Errorf("the call's text stays on screen after it ran as a call:\n%s", s)
	}
	golden.RequireEqual(t, []byte(screen(m)))
}

func TestTextCallIsNotCopied(t *testing.T) {
	m := textCallModel(t)
	if n := len(m.answers); n != 1 || strings.Contains(m.answers[0].text, "tool_call") || !strings.HasPrefix(m.answers[0].text, "Let me check the clock.") {
		t.Fatalf("answers %+v; want one without the call's text", m.answers)
	}
}
