package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"myclaw/agent"
	"myclaw/tools"
)

func TestPlanChecklistGolden(t *testing.T) {
	m := newTestModel(t, newFake())
	m = m.handleEvent(agent.PlanEvent{Items: []tools.PlanItem{
		{Text: "read the failing test", Status: tools.PlanDone},
		{Text: "fix the off-by-one in parse", Status: tools.PlanInProgress},
		{Text: "run go test ./...", Status: tools.PlanPending},
	}})
	golden.RequireEqual(t, []byte(screen(m)))
}

func TestPlanUpdatesAndGoesWhenDone(t *testing.T) {
	m := newTestModel(t, newFake())
	m = m.handleEvent(agent.PlanEvent{Items: []tools.PlanItem{{Text: "step one", Status: tools.PlanInProgress}}})
	if s := screen(m); !strings.Contains(s, "▶ step one") || !strings.Contains(s, "plan · 0 of 1 done") {
		t.Fatalf("plan not shown:\n%s", s)
	}
	m = m.handleEvent(agent.PlanEvent{Items: []tools.PlanItem{{Text: "step one", Status: tools.PlanDone}}})
	if s := screen(m); strings.Contains(s, "step one") {
		t.Fatalf("a finished plan stays on screen after the turn:\n%s", s)
	}
}

func TestCompactionCardGolden(t *testing.T) {
	m := newTestModel(t, newFake())
	m = m.addBlock(compactionBlock(agent.CompactionEvent{Replaced: 42, Tokens: 310, Auto: true,
		Summary: "## Goal\nfix the parser\n## Decisions\nkeep the API\n## Files touched\nparse.go"}))
	golden.RequireEqual(t, []byte(screen(m)))
}
