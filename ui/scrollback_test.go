package ui

import (
	"strings"
	"testing"

	"myclaw/agent"

	"github.com/charmbracelet/x/ansi"
)

// On exit the conversation is written out as the transcript drew it, every
// turn of it, not only what the screen showed last.
func TestScrollbackTextHoldsTheWholeConversation(t *testing.T) {
	m := newTestModel(t, newFake())
	for _, q := range []string{"first question", "second question"} {
		m = startFakeTurn(t, m, q)
		m = events(m, agent.TextDelta{Text: "answer to the " + q + "\n\n" + strings.Repeat("line\n\n", testHeight)}, agent.DoneEvent{Reason: agent.DoneStop, Rounds: 1})
	}
	text := ansi.Strip(m.scrollbackText())
	for _, want := range []string{"first question", "answer to the first question", "second question", "answer to the second question"} {
		if !strings.Contains(text, want) {
			t.Fatalf("no %q in what exit writes:\n%s", want, text)
		}
	}
	if strings.Contains(ansi.Strip(screen(m)), "answer to the first question") {
		t.Fatal("the first answer is still on screen: the test shows nothing about the scrollback")
	}
}
