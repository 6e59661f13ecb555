package ui

import (
	"slices"
	"strings"
	"testing"

	"myclaw/agent"
)

// A resumed session of 1,000 turns shows them all: paging up from the
// bottom reaches the first prompt, and Ctrl+Home goes straight to it.
func TestResumeFirstTurnReachable(t *testing.T) {
	m := New(newFake(), Options{Workspace: "/work/project", Earlier: seededEarlier(1000)})
	m = update(m, sizeMsg(testWidth, testHeight))
	if v := m.View(); !strings.Contains(v, "So a keystroke costs") || strings.Contains(v, "turn 1:") {
		t.Fatalf("first frame should show the last turn only:\n%s", v)
	}
	const first = "turn 1: why does the frame"
	pages := 0
	for v := m.View(); !strings.Contains(v, first); v = m.View() {
		if pages++; pages > 20000 {
			t.Fatal("paging up never reached the first turn")
		}
		m = update(m, keyMsg("pgup"))
	}
	if pages < 100 {
		t.Fatalf("reached the first turn after %d pages: were all turns shown?", pages)
	}
	if n := len(m.tr.warm); n > warmLimit+testHeight {
		t.Errorf("%d blocks keep rendered lines after paging through; want at most about %d", n, warmLimit)
	}
	m = update(m, keyMsg("ctrl+end"))
	m = update(m, keyMsg("ctrl+home"))
	if v := m.View(); !strings.Contains(v, first) {
		t.Fatalf("ctrl+home does not show the first turn:\n%s", v)
	}
}

// A block whose lines were dropped renders them again the same.
func TestDroppedBlockRendersAgain(t *testing.T) {
	m := newTestModel(t, newFake())
	card := newToolCard(call("1", "fs_read", `{"path":"ui/view.go"}`))
	card.finish(agent.ToolResultEvent{Call: card.call, Status: agent.StatusOK, Summary: "Read ui/view.go (120 lines)", Body: "line one\nline two"})
	think := &reasoningBlock{}
	think.write("First I look.\n\nThen I *think* about\nthe frame.")
	think.finish()
	m.c.showThink = true
	blocks := []block{
		userBlock("why is it slow?"),
		&mdBlock{src: "The **frame** is `cached`:\n\n- one\n- two\n\n```go\nx := 1\n```\n"},
		card,
		think,
		noticeBlock("a notice"),
		m.welcome,
	}
	for i, b := range blocks {
		want := slices.Clone(b.lines(m.c))
		if len(want) == 0 {
			t.Fatalf("block %d rendered nothing", i)
		}
		d, ok := b.(dropper)
		if !ok {
			t.Fatalf("block %d (%T) cannot drop its lines", i, b)
		}
		d.dropLines()
		if got := b.lines(m.c); !slices.Equal(got, want) {
			t.Errorf("block %d (%T) after a drop:\n%q\nwant\n%q", i, b, got, want)
		}
	}
}

// Paging a long session to its end drops the lines of the first turns;
// going back draws them as they were.
func TestFarBlocksDroppedAndRedrawn(t *testing.T) {
	m := New(newFake(), Options{Workspace: "/work/project", Earlier: seededEarlier(300)})
	m = update(m, sizeMsg(testWidth, testHeight))
	m.View()
	m = update(m, keyMsg("ctrl+home"))
	top := m.View()
	firstAnswer := m.tr.blocks[2].(*mdBlock)
	if !firstAnswer.cache.ok {
		t.Fatal("the first answer is on screen but was not rendered")
	}
	for !m.tr.follow {
		m = update(m, keyMsg("pgdown"))
		m.View()
	}
	if firstAnswer.cache.ok || firstAnswer.cache.lines != nil {
		t.Fatal("the first answer keeps its lines while far off screen")
	}
	m = update(m, keyMsg("ctrl+home"))
	if got := m.View(); got != top {
		t.Fatalf("the top drawn again differs:\n%s\nwant\n%s", got, top)
	}
}
