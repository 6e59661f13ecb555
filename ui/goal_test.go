package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"myclaw/agent"
	"myclaw/approval"
)

// goalFake is a backend that runs goals: it records the request; the test
// plays the run's events.
type goalFake struct {
	*fakeBackend
	reqs []GoalRequest
}

func (g *goalFake) RunGoal(ctx context.Context, req GoalRequest, emit func(agent.Event), ap approval.Approver) error {
	g.reqs = append(g.reqs, req)
	return nil
}

func TestParseGoal(t *testing.T) {
	for _, c := range []struct {
		line string
		want GoalRequest
		err  string
	}{
		{`make the tests pass --check "go test ./..."`, GoalRequest{Text: "make the tests pass", Check: "go test ./..."}, ""},
		{`fix it --check 'make check' --max-iterations 5 --token-budget 90000 --time-budget 20m --network --rollback-worse`,
			GoalRequest{Text: "fix it", Check: "make check", MaxIterations: 5, TokenBudget: 90000, TimeBudget: 20 * time.Minute, Network: true, RollbackWorse: true}, ""},
		{`--check true`, GoalRequest{}, "needs the goal"},
		{`fix it`, GoalRequest{}, "needs --check"},
		{`fix it --check "go test`, GoalRequest{}, "quote is not closed"},
		{`fix it --check true --max-iterations 0`, GoalRequest{}, "positive number"},
		{`fix it --check true --time-budget soon`, GoalRequest{}, "duration"},
		{`fix it --check true --fast`, GoalRequest{}, "no option --fast"},
		// An unquoted command would run as its first word alone, the rest
		// taken for the goal: the check could never pass.
		{`make ok.txt exist --check test -f ok.txt`, GoalRequest{}, `quote the command: --check "test -f ok.txt"`},
		{`fix it --check "make check" --network and more`, GoalRequest{}, `quote the command`},
	} {
		got, err := parseGoal(strings.Fields(c.line))
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: got %v; want an error with %q", c.line, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.line, err)
		case c.err == "" && got != c.want:
			t.Errorf("%s: got %+v; want %+v", c.line, got, c.want)
		}
	}
}

// goalRunning starts /goal and plays a run up to iteration 2's turn: the
// first check failed with 3 failures.
func goalRunning(t *testing.T, w, h int) (Model, *goalFake) {
	t.Helper()
	f := &goalFake{fakeBackend: newFake()}
	m := update(newTestModel(t, f), sizeMsg(w, h))
	m = startFakeTurn(t, m, `/goal make the parser tests pass --check "go test ./parse/..." --token-budget 200000 --time-budget 30m`)
	check := call("goal_check_1", "shell_run", `{"command":"go test ./parse/..."}`)
	code := 1
	b := agent.GoalBudget{Iteration: 1, MaxIterations: 10, TokensUsed: 8200, TokenBudget: 200000, ElapsedMS: 41000, TimeBudgetMS: 30 * 60 * 1000}
	m = events(m,
		agent.GoalStepEvent{Step: agent.GoalStepTurn, Check: "go test ./parse/...", Budget: agent.GoalBudget{Iteration: 1, MaxIterations: 10, TokenBudget: 200000, TimeBudgetMS: 30 * 60 * 1000}},
		agent.TextDelta{Text: "I fixed the off-by-one in `parse.go`."},
		agent.DoneEvent{Reason: agent.DoneStop, Rounds: 2},
		agent.GoalStepEvent{Step: agent.GoalStepCheck, Check: "go test ./parse/...", Budget: b},
		agent.ToolCallEvent{Call: check, Phase: "started"},
		agent.ToolResultEvent{Call: check, Status: agent.StatusOK, ExitCode: &code, Untrusted: true, Source: "shell:go test ./parse/...", RetrievedAt: testTime,
			Body: "--- FAIL: TestParse (0.00s)\n--- FAIL: TestSplit (0.00s)\n--- FAIL: TestJoin (0.00s)\nFAIL\n", Summary: "Ran `go test ./parse/...`: exit 1"},
		agent.GoalIterationEvent{Iteration: 1, Check: "go test ./parse/...", GoalCheck: agent.GoalCheck{ExitCode: 1, Failures: 3}, Changed: true, Budget: b},
		agent.GoalStepEvent{Step: agent.GoalStepTurn, Check: "go test ./parse/...", Budget: agent.GoalBudget{Iteration: 2, MaxIterations: 10, TokensUsed: 8200, TokenBudget: 200000, ElapsedMS: 41000, TimeBudgetMS: 30 * 60 * 1000}},
	)
	m.turn.elapsed = 41 * time.Second
	return m, f
}

// The goal's status at 80×24 and 120×40: the iteration, the last check's
// verdict and the budget left on the status line; each iteration and
// verdict in the transcript.
func TestGoalStatusGolden(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(strings.ReplaceAll(sizeName(size.w, size.h), " ", ""), func(t *testing.T) {
			m, _ := goalRunning(t, size.w, size.h)
			s := screen(m)
			status := lines(s)[len(lines(s))-1]
			want := "goal 2/10 · ✗ 3 · 191k tok 29m left · ⠋ 41s · esc cancels"
			if size.w >= 110 {
				want = "goal 2/10 · ✗ 3 failing · 191k tok 29m left · ⠋ 41s · esc cancels"
			}
			if !strings.Contains(status, want) {
				t.Fatalf("status line %q", status)
			}
			golden.RequireEqual(t, []byte(s))
		})
	}
}

func sizeName(w, h int) string { return strings.Join([]string{itoa(w), itoa(h)}, "x") }

func itoa(n int) string {
	var b []byte
	for n > 0 || len(b) == 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// The result ends the run in the transcript, and the goal leaves the
// status line with the turn.
func TestGoalResultAndStatusGoWithTheTurn(t *testing.T) {
	m, f := goalRunning(t, 80, 24)
	if len(f.reqs) != 0 {
		t.Fatal("the run started before its command ran")
	}
	m = events(m, agent.GoalResultEvent{Reason: agent.GoalMaxIterations, Iterations: 2,
		Message: "The goal is not met after 2 iterations (the limit). Best: iteration 1, 3 failures (exit 1); /undo (or myclaw undo) takes the workspace back to it."})
	if s := screen(m); !strings.Contains(s, "! goal not met: The goal is not met after 2 iterations") {
		t.Fatalf("screen:\n%s", s)
	}
	m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true}}})
	if s := screen(m); strings.Contains(lines(s)[len(lines(s))-1], "goal") {
		t.Fatalf("the goal stayed on the status line:\n%s", s)
	}
}

// /goal runs the backend's goal with what it parsed; a bad line says how
// /goal is written; a backend without goals says so.
func TestGoalCommand(t *testing.T) {
	f := &goalFake{fakeBackend: newFake()}
	m := newTestModel(t, f)
	m = typeText(m, `/goal fix it --check "make check" --max-iterations 3`)
	m, cmd := updateCmd(m, keyMsg("enter"))
	if m.turn == nil || m.goal == nil {
		t.Fatal("no goal run started")
	}
	m = drainTurn(t, m, cmd)
	if len(f.reqs) != 1 || f.reqs[0] != (GoalRequest{Text: "fix it", Check: "make check", MaxIterations: 3}) {
		t.Fatalf("requests %+v", f.reqs)
	}

	m = typeText(m, `/goal fix it`)
	m, _ = updateCmd(m, keyMsg("enter"))
	if s := screen(m); m.turn != nil || !strings.Contains(s, "/goal needs --check CMD") || !strings.Contains(s, "usage: /goal TEXT") {
		t.Fatalf("screen:\n%s", s)
	}

	m = newTestModel(t, newFake())
	m = typeText(m, `/goal fix it --check true`)
	m, _ = updateCmd(m, keyMsg("enter"))
	if s := screen(m); m.turn != nil || !strings.Contains(s, "/goal is not available here") {
		t.Fatalf("screen:\n%s", s)
	}
}
