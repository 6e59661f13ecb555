package ui

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/tools"
)

// planFake is the fake backend with plan mode's AcceptPlan.
type planFake struct {
	*fakeBackend
	pmu      sync.Mutex
	accepted []tools.Proposal
	levels   []approval.Level
}

func (p *planFake) AcceptPlan(pr tools.Proposal, level approval.Level) {
	p.pmu.Lock()
	defer p.pmu.Unlock()
	p.accepted = append(p.accepted, pr)
	p.levels = append(p.levels, level)
	p.SetAutonomy(level)
}

func testProposal() tools.Proposal {
	return tools.Proposal{
		Rationale: "The parser drops the last field when a line ends without a newline; fixing the loop bound and adding a test covers it without touching callers.",
		Steps: []tools.PlanStep{
			{Title: "Add a failing test for a line without a final newline", Files: []string{"parse/parse_test.go"}},
			{Title: "Fix the loop bound in Split", Files: []string{"parse/parse.go"}},
			{Title: "Note the fix in the changelog and the package documentation", Files: []string{"CHANGELOG.md", "parse/doc.go", "docs/parsing.md"}},
		},
	}
}

// proposedModel is a model whose turn submitted testProposal and ended.
func proposedModel(t *testing.T, b Backend) Model {
	t.Helper()
	m := newTestModel(t, b)
	m = startFakeTurn(t, m, "plan the parser fix")
	p := testProposal()
	m = events(m, agent.PlanEvent{Items: p.Items(), Proposal: &p}, agent.DoneEvent{Reason: agent.DoneStop, Rounds: 2})
	m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true}}})
	if m.turn != nil || !m.reviewing() {
		t.Fatalf("the plan is not up for review once the turn ended:\n%s", screen(m))
	}
	return m
}

func TestPlanCardGolden(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			f := newFake()
			f.level = approval.Plan
			m := update(proposedModel(t, f), sizeMsg(size[0], size[1]))
			s := screen(m)
			for _, want := range []string{"◆ plan · 3 steps · 5 files", "1. Add a failing test", "parse/parse.go", "y accept (ask) · a accept (auto-edit) · e edit · n reject · esc later"} {
				if !strings.Contains(s, want) {
					t.Errorf("the screen lacks %q", want)
				}
			}
			golden.RequireEqual(t, []byte(s))
		})
	}
}

// Accepting the plan turns its steps into the checklist, leaves plan mode
// for the level chosen and has the model carry out the plan, as accepted.
func TestAcceptingAPlanFillsTheTodoList(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want approval.Level
	}{{"y", approval.Ask}, {"a", approval.AutoEdit}} {
		t.Run(tc.key, func(t *testing.T) {
			f := &planFake{fakeBackend: newFake()}
			f.level = approval.Plan
			m := proposedModel(t, f)
			m, cmd := updateCmd(m, keyMsg(tc.key))
			if m.review != nil {
				t.Fatal("the review stays up after accepting")
			}
			want := testProposal().Items()
			if len(m.plan) != len(want) || m.plan[0] != want[0] || m.plan[2].Status != tools.PlanPending {
				t.Fatalf("checklist %+v; want the plan's steps, pending", m.plan)
			}
			if s := screen(m); !strings.Contains(s, "plan · 0 of 3 done") || !strings.Contains(s, "☐ Add a failing test") {
				t.Errorf("the checklist is not shown:\n%s", s)
			}
			if m.status.level != tc.want {
				t.Errorf("status level %s; want %s", m.status.level, tc.want)
			}
			m = drainTurn(t, m, cmd)
			if len(f.accepted) != 1 || f.levels[0] != tc.want || f.Autonomy() != tc.want {
				t.Fatalf("accepted %v at %v (now %s); want the plan at %s", f.accepted, f.levels, f.Autonomy(), tc.want)
			}
			if len(f.prompts) != 1 || !strings.Contains(f.prompts[0], "The user accepted the plan") || !strings.Contains(f.prompts[0], "2. Fix the loop bound in Split\n   files: parse/parse.go") {
				t.Errorf("prompts %q; want the accepting prompt with the steps", f.prompts)
			}
		})
	}
}

// n asks for a reason, which goes to the model; plan mode stays on.
func TestRejectingAPlanSendsTheReason(t *testing.T) {
	f := &planFake{fakeBackend: newFake()}
	m := proposedModel(t, f)
	m = update(m, keyMsg("n"))
	if s := screen(m); !strings.Contains(s, "rejecting the plan: type why") {
		t.Fatalf("no reason asked for:\n%s", s)
	}
	m = typeText(m, "keep the changelog out")
	m, cmd := updateCmd(m, keyMsg("enter"))
	m = drainTurn(t, m, cmd)
	if m.review != nil || len(f.accepted) != 0 {
		t.Fatal("a rejected plan stays up or was accepted")
	}
	if len(f.prompts) != 1 || !strings.Contains(f.prompts[0], "rejected the plan. Their reason: keep the changelog out") || !strings.Contains(f.prompts[0], "submit it again with plan_submit") {
		t.Errorf("prompts %q; want the reason sent for a revision", f.prompts)
	}
	if s := screen(m); !strings.Contains(s, "✗ plan rejected: keep the changelog out") {
		t.Errorf("the rejection is not in the transcript:\n%s", s)
	}
}

// An edit that parses replaces the plan under review; one that does not
// is kept for the next edit and its error named; Esc sets the plan aside
// and /plan brings it back.
func TestEditingAPlan(t *testing.T) {
	f := &planFake{fakeBackend: newFake()}
	m := proposedModel(t, f)
	m, cmd := updateCmd(m, keyMsg("e"))
	if cmd == nil || m.review.sent == "" || !strings.HasPrefix(m.review.sent, "# Edit the plan") {
		t.Fatal("e opens no editor on the plan")
	}
	bad := "Why.\n\n1. One\n2. Two\n   files: ../x\n"
	m = update(m, planEditedMsg{text: bad})
	if s := screen(m); !strings.Contains(s, `the edited plan is not valid: step 2, file "../x": the path leaves the`) {
		t.Errorf("the invalid edit is not named:\n%s", s)
	}
	if m.review.draft != bad {
		t.Error("the invalid edit is not kept for the next edit")
	}
	m = update(m, planEditedMsg{text: "Shorter.\n\n1. Fix the loop bound\n   files: parse/parse.go\n"})
	if !m.review.edited || len(m.review.plan.Steps) != 1 {
		t.Fatalf("the edit did not replace the plan: %+v", m.review.plan)
	}
	if s := screen(m); !strings.Contains(s, "plan · 1 step · 1 file · as you edited it") {
		t.Errorf("the edited plan is not shown:\n%s", s)
	}
	m = update(m, keyMsg("esc"))
	if m.reviewing() {
		t.Fatal("esc did not set the plan aside")
	}
	m = typeText(m, "/plan")
	m = update(m, keyMsg("enter"))
	if !m.reviewing() {
		t.Fatal("/plan did not bring the plan back")
	}
	m, cmd = updateCmd(m, keyMsg("y"))
	drainTurn(t, m, cmd)
	if len(f.accepted) != 1 || len(f.accepted[0].Steps) != 1 || !strings.Contains(f.prompts[0], "after editing it") {
		t.Errorf("accepted %+v with %q; want the edited plan", f.accepted, f.prompts)
	}
}

// /plan enters plan mode and /plan off leaves it for ask.
func TestPlanCommand(t *testing.T) {
	f := newFake()
	m := newTestModel(t, f)
	m = typeText(m, "/plan")
	m, cmd := updateCmd(m, keyMsg("enter"))
	m = runCmd(t, m, cmd)
	if f.Autonomy() != approval.Plan || !strings.Contains(statusRow(m), "· plan ·") {
		t.Fatalf("level %s, status %q; want plan", f.Autonomy(), statusRow(m))
	}
	if s := screen(m); !strings.Contains(s, "plan mode: only read-only tools") {
		t.Errorf("/plan does not say what plan mode does:\n%s", s)
	}
	m = typeText(m, "/plan off")
	m, cmd = updateCmd(m, keyMsg("enter"))
	m = runCmd(t, m, cmd)
	if f.Autonomy() != approval.Ask || !strings.Contains(statusRow(m), "· ask ·") {
		t.Errorf("level %s, status %q after /plan off; want ask", f.Autonomy(), statusRow(m))
	}
}

// A call that writes a file the accepted plan does not name says so in
// the pane that asks about it and on its card.
func TestPaneAndCardSayNotInThePlan(t *testing.T) {
	req := writeRequest()
	req.OutsidePlan = []string{"notes/todo.md"}
	m, _ := withPane(t, req)
	if s := screen(m); !strings.Contains(s, "⚠ not in the plan: notes/todo.md") {
		t.Errorf("the pane does not flag the call:\n%s", s)
	}
	c := call("c9", "fs_write", `{"path":"other.txt","content":"x"}`)
	m = events(m, agent.ToolCallEvent{Call: c, Phase: "started", OutsidePlan: []string{"other.txt"}},
		agent.ToolResultEvent{Call: c, Status: agent.StatusOK, Summary: "Create other.txt (1 B)"})
	if s := screen(m); !strings.Contains(s, "not in the plan: other.txt") {
		t.Errorf("the card does not flag the call:\n%s", s)
	}
}
