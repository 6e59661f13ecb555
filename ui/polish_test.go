package ui

import (
	"errors"
	"fmt"
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

// Scrolled up while output arrives, the last row says so; following the
// bottom again clears it.
func TestNewOutputIndicator(t *testing.T) {
	m := newTestModel(t, newFake())
	for i := range 40 {
		m.tr.add(noticeBlock(fmt.Sprintf("line %d", i)))
	}
	const mark = "↓ new output · ctrl+end to follow"
	m = startFakeTurn(t, m, "go")
	m = update(m, keyMsg("pgup"))
	if strings.Contains(screen(m), mark) {
		t.Fatal("the indicator shows before any new output")
	}
	m = events(m, agent.TextDelta{Text: "streaming"})
	if got := lines(screen(m)); !strings.Contains(strings.Join(got, "\n"), mark) {
		t.Fatalf("scrolled up during a stream, no indicator:\n%s", strings.Join(got, "\n"))
	}
	m = update(m, keyMsg("ctrl+end"))
	if strings.Contains(screen(m), mark) {
		t.Fatal("the indicator stays after following the bottom again")
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
