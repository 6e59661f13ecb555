package ui

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"myclaw/agent"
	"myclaw/history"
)

// answerTurn plays one turn that answers text.
func answerTurn(t *testing.T, m Model, prompt string, text ...string) Model {
	t.Helper()
	m = startFakeTurn(t, m, prompt)
	for i, s := range text {
		if i > 0 { // a new round: the answer so far is finished
			m = events(m, agent.ReasoningDelta{Text: "thinking"})
		}
		m = events(m, agent.TextDelta{Text: s})
	}
	m = events(m, agent.DoneEvent{Reason: agent.DoneStop})
	return update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true}}})
}

// copied runs a /copy line and returns what reached the terminal, decoded
// from its OSC 52 sequence ("" when none was written), and the last block.
func copied(t *testing.T, m Model, line string) (Model, string, string) {
	t.Helper()
	var out bytes.Buffer
	m.notify.w = &out
	m = runLine(t, m, line)
	got := out.String()
	if got == "" {
		return m, "", lastBlock(m)
	}
	b64, ok := strings.CutPrefix(got, "\x1b]52;c;")
	b64, ok2 := strings.CutSuffix(b64, "\x07")
	if !ok || !ok2 {
		t.Fatalf("%s wrote %q; want one OSC 52 sequence", line, got)
	}
	text, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	return m, string(text), lastBlock(m)
}

func TestCopyAnswers(t *testing.T) {
	t.Setenv("TMUX", "")
	t.Setenv("TERM", "xterm-256color")
	m := newTestModel(t, newFake())
	m, got, said := copied(t, m, "/copy")
	if got != "" || !strings.Contains(said, "nothing to copy yet") {
		t.Fatalf("/copy before any answer copied %q and said %q", got, said)
	}
	m = answerTurn(t, m, "first", "The first answer.")
	// A turn's answer is all its text, across rounds.
	m = answerTurn(t, m, "second", "Run this:\n\n```sh\ngo test ./...\n```\n", "\nThen:\n\n```\ngo vet ./...\n```\n")

	m, got, said = copied(t, m, "/copy")
	if !strings.HasPrefix(got, "Run this:") || !strings.HasSuffix(got, "go vet ./...\n```") || !strings.Contains(said, "copied the last answer (11 lines") {
		t.Fatalf("/copy copied %q and said %q", got, said)
	}
	m, got, said = copied(t, m, "/copy 2")
	if got != "The first answer." || !strings.Contains(said, "answer 2 from last") {
		t.Fatalf("/copy 2 copied %q and said %q", got, said)
	}
	m, got, _ = copied(t, m, "/copy code")
	if got != "go vet ./..." {
		t.Fatalf("/copy code copied %q; want the last code block", got)
	}
	m, got, said = copied(t, m, "/copy code 1")
	if got != "go test ./..." || !strings.Contains(said, "code block 1 of 2") {
		t.Fatalf("/copy code 1 copied %q and said %q", got, said)
	}
	for line, want := range map[string]string{
		"/copy 3":      "there are only 2 answers to copy",
		"/copy code 5": "the last answer has 2 code blocks",
		"/copy x":      "usage: /copy",
	} {
		var got string
		m, got, said = copied(t, m, line)
		if got != "" || !strings.Contains(said, want) {
			t.Errorf("%s copied %q and said %q; want nothing copied and %q", line, got, said, want)
		}
	}
	m = answerTurn(t, m, "big", strings.Repeat("x", maxCopyBytes+1))
	if _, got, said := copied(t, m, "/copy"); got != "" || !strings.Contains(said, "nothing was copied") {
		t.Fatalf("an oversized answer: copied %d bytes and said %q", len(got), said)
	}
}

func TestClipboardTextIsInert(t *testing.T) {
	got := clipboardText("ok\x1b]52;c;AAAA\x07 \x1b[31mred\u202e\u200b\r\nnext\tcol 👩\u200d💻")
	if got != "ok red\nnext\tcol 👩\u200d💻" {
		t.Fatalf("clipboardText = %q", got)
	}
}

func TestMouseToggle(t *testing.T) {
	m := newTestModel(t, newFake())
	m, cmd := updateCmd(m, keyMsg("f2"))
	if !strings.Contains(screen(m), "mouse off") {
		t.Errorf("the status line does not say the mouse is off:\n%s", screen(m))
	}
	if !m.c.mouseOff || cmd == nil || fmt.Sprintf("%T", cmd()) != "tea.disableMouseMsg" || !strings.Contains(lastBlock(m), "mouse capture off: drag to select") {
		t.Fatalf("f2: mouseOff %v, cmd %v, said %q", m.c.mouseOff, cmd, lastBlock(m))
	}
	m = typeText(m, "/mouse on")
	m.input.closed = true
	m, cmd = updateCmd(m, keyMsg("enter"))
	if m.c.mouseOff || cmd == nil || fmt.Sprintf("%T", cmd()) != "tea.enableMouseCellMotionMsg" {
		t.Fatalf("/mouse on: mouseOff %v", m.c.mouseOff)
	}
}

func TestQuitSummary(t *testing.T) {
	f := newFake()
	f.status.SessionID, f.status.UndoDepth = "20261201-0900-ab12", 0
	// A run that did nothing (a fresh fork, a resumed session) still says
	// how to come back to it.
	if got, want := quitSummary(f, 80), "myclaw: session 20261201-0900-ab12\n  resume: myclaw --continue  (or myclaw --session 20261201-0900-ab12)\n"; got != want {
		t.Fatalf("a run where nothing happened: %q; want %q", got, want)
	}
	f.status.UndoDepth = 2
	f.entries = []history.Entry{{Seq: 1, State: history.StateApplied}, {Seq: 2, State: history.StateIrreversible}, {Seq: 3, State: history.StateApplied}}
	c := &costFake{fakeBackend: f, rep: runOnly(agent.Usage{Requests: 3, PromptTokens: 12000, CompletionTokens: 345, Cost: 0.0123, CostKnown: true}, agent.Prices{})}
	want := "myclaw: session 20261201-0900-ab12 · this run: 3 requests · 12.3k tokens · $0.0123\n" +
		"  2 calls changed files; undo can revert 2 steps (myclaw undo)\n" +
		"  resume: myclaw --continue  (or myclaw --session 20261201-0900-ab12)\n"
	if got := quitSummary(c, 0); got != want {
		t.Fatalf("quitSummary =\n%s\nwant\n%s", got, want)
	}
	// A resumed session: this run's part, then the whole session's cost.
	c.rep.Usage = agent.Usage{Requests: 5, PromptTokens: 20000, CompletionTokens: 600, Cost: 0.0200, CostKnown: true}
	want = "myclaw: session 20261201-0900-ab12 · this run: 3 requests · 12.3k tokens · $0.0123 (session $0.0200)\n" +
		"  2 calls changed files; undo can revert 2 steps (myclaw undo)\n" +
		"  resume: myclaw --continue  (or myclaw --session 20261201-0900-ab12)\n"
	if got := quitSummary(c, 0); got != want {
		t.Fatalf("quitSummary of a resumed session =\n%s\nwant\n%s", got, want)
	}
	// Estimated tokens carry ~, and are this run's alone: a long session
	// resumed sums a whole conversation's estimate per earlier request,
	// millions that say nothing of this run. At 80 columns the line
	// breaks at a space, not inside a word.
	c.rep = runOnly(agent.Usage{Requests: 2, PromptTokens: 5000, CompletionTokens: 400, Estimated: true}, agent.Prices{})
	c.rep.Usage = agent.Usage{Requests: 3002, PromptTokens: 3_481_600_000, CompletionTokens: 700_000, Estimated: true}
	got := quitSummary(c, 80)
	want = "myclaw: session 20261201-0900-ab12 · this run: 2 requests · ~5.4k tokens\n  2 calls"
	if !strings.HasPrefix(got, want) || strings.Contains(got, "M tokens") {
		t.Fatalf("quitSummary of a long resumed session =\n%s\nwant it to start\n%s\nand no session total", got, want)
	}
	c.rep.Run.Cost, c.rep.Run.CostKnown = 0.0123, true
	c.rep.Cost, c.rep.CostKnown = 12.5, true
	got = quitSummary(c, 80)
	want = "myclaw: session 20261201-0900-ab12 · this run: 2 requests · ~5.4k tokens ·\n" +
		"    $0.0123 (session $12.50)\n"
	if !strings.HasPrefix(got, want) {
		t.Fatalf("quitSummary at 80 columns =\n%s\nwant it to start\n%s", got, want)
	}
	for _, l := range strings.Split(got, "\n") {
		if ansi.StringWidth(l) > 80 {
			t.Errorf("line wider than 80 columns: %q", l)
		}
	}
}
