package ui

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/tools"
	"myclaw/tools/termtext"
)

// GoalRequest is what /goal asks for.
type GoalRequest struct {
	Text          string
	Check         string
	MaxIterations int
	TokenBudget   int
	TimeBudget    time.Duration
	Network       bool
	RollbackWorse bool
}

// GoalRunner is a backend that runs goals (/goal): it works toward the
// goal in iterations until the check passes, emitting the turns' events
// and the goal's, as Backend.Run does.
type GoalRunner interface {
	RunGoal(ctx context.Context, g GoalRequest, emit func(agent.Event), approver approval.Approver) error
}

// goalUsage is how /goal is written.
const goalUsage = `/goal TEXT --check "CMD" [--max-iterations N] [--token-budget N] [--time-budget 30m] [--network] [--rollback-worse]`

// goalState is the goal run on screen, for the status line.
type goalState struct {
	turn int // the turn that runs it
	req  GoalRequest
	// budget is the newest the run reported; checking is set while the
	// check runs; last is the newest check's verdict (nil before one).
	budget   agent.GoalBudget
	checking bool
	last     *agent.GoalIterationEvent
}

// goalCommand runs /goal.
func (m Model) goalCommand(args []string) (Model, tea.Cmd) {
	req, err := parseGoal(args)
	if err != nil {
		m = m.addBlock(errorBlock(err.Error(), "usage: "+goalUsage))
		return m, nil
	}
	gr, ok := m.backend.(GoalRunner)
	if !ok {
		m = m.addBlock(errorBlock("/goal is not available here", ""))
		return m, nil
	}
	approver := m.shared.approver
	m, cmd := m.startRun("", func(ctx context.Context, emit func(agent.Event)) error {
		return gr.RunGoal(ctx, req, emit, approver)
	})
	m.goal = &goalState{turn: m.turn.id, req: req, budget: agent.GoalBudget{Iteration: 1, MaxIterations: req.MaxIterations}}
	return m, cmd
}

// parseGoal reads /goal's arguments: the goal's words, and options, the
// check's command quoted when it has spaces.
func parseGoal(args []string) (GoalRequest, error) {
	words, err := splitQuoted(strings.Join(args, " "))
	if err != nil {
		return GoalRequest{}, err
	}
	var req GoalRequest
	// after are the goal's words that follow --check: most likely the
	// rest of an unquoted command, which would otherwise run cut short.
	var text, after []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		value := func() (string, error) {
			if i+1 >= len(words) {
				return "", fmt.Errorf("%s needs a value", w)
			}
			i++
			return words[i], nil
		}
		number := func() (int, error) {
			v, err := value()
			if err != nil {
				return 0, err
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return 0, fmt.Errorf("%s takes a positive number, not %q", w, v)
			}
			return n, nil
		}
		switch w {
		case "--check":
			req.Check, err = value()
		case "--max-iterations":
			req.MaxIterations, err = number()
		case "--token-budget":
			req.TokenBudget, err = number()
		case "--time-budget":
			var v string
			if v, err = value(); err == nil {
				req.TimeBudget, err = time.ParseDuration(v)
				if err != nil || req.TimeBudget <= 0 {
					err = fmt.Errorf("--time-budget takes a duration such as 30m, not %q", v)
				}
			}
		case "--network":
			req.Network = true
		case "--rollback-worse":
			req.RollbackWorse = true
		default:
			if strings.HasPrefix(w, "--") {
				return req, fmt.Errorf("/goal has no option %s", w)
			}
			text = append(text, w)
			if req.Check != "" {
				after = append(after, w)
			}
		}
		if err != nil {
			return req, err
		}
	}
	req.Text = strings.Join(text, " ")
	switch {
	case len(after) > 0:
		rest := strings.Join(after, " ")
		return req, fmt.Errorf("%q follows the check %q: quote the command: --check %q (the goal goes before --check)", rest, req.Check, req.Check+" "+rest)
	case req.Text == "":
		return req, errors.New("/goal needs the goal: what to work toward")
	case strings.TrimSpace(req.Check) == "":
		return req, errors.New("/goal needs --check CMD: the command whose exit status says the goal is met")
	}
	return req, nil
}

// splitQuoted is splitWords refusing a quote left open.
func splitQuoted(s string) ([]string, error) {
	words, open := splitWords(s)
	if open != 0 {
		return nil, fmt.Errorf("a %c quote is not closed", open)
	}
	return words, nil
}

// goalEvent takes a goal run's events: its state for the status line, and
// a line in the transcript per step and verdict.
func (m Model) goalEvent(ev agent.Event) (Model, bool) {
	g := m.goal
	if g == nil || m.turn == nil || g.turn != m.turn.id {
		return m, false
	}
	switch ev := ev.(type) {
	case agent.GoalStepEvent:
		g.budget = ev.Budget
		g.checking = ev.Step == agent.GoalStepCheck
		if ev.Step == agent.GoalStepTurn {
			m = m.addTurnBlock(goalStepBlock(ev.Budget))
		} else {
			m = m.finishLive()
			m = m.finishThink()
		}
	case agent.GoalIterationEvent:
		g.budget, g.checking, g.last = ev.Budget, false, &ev
		m = m.addTurnBlock(goalVerdictBlock(ev))
	case agent.GoalResultEvent:
		g.budget, g.checking = ev.Budget, false
		m = m.addTurnBlock(goalResultBlock(ev))
	default:
		return m, false
	}
	return m, true
}

// goalStepBlock opens an iteration in the transcript.
func goalStepBlock(b agent.GoalBudget) block {
	text := fmt.Sprintf("◆ goal · iteration %d of %d", b.Iteration, b.MaxIterations)
	return newFuncBlock(func(c *common) []string {
		return []string{c.styles.Bold.Render(truncate(text, c.contentWidth()))}
	})
}

// goalVerdictBlock says what the check said of an iteration.
func goalVerdictBlock(ev agent.GoalIterationEvent) block {
	check := termtext.OneLine(ev.Check, 60)
	var notes []string
	if !ev.Changed {
		notes = append(notes, "no file changed")
	}
	if ev.RolledBack {
		notes = append(notes, "it made the check worse: rolled back")
	}
	if ev.RollbackNote != "" {
		notes = append(notes, termtext.OneLine(ev.RollbackNote, 200))
	}
	return newFuncBlock(func(c *common) []string {
		st := &c.styles
		w := c.contentWidth() - 2
		var head string
		if ev.Passed {
			head = st.OK.Render("✓ ") + st.OK.Render(truncate(fmt.Sprintf("iteration %d: the check `%s` passed", ev.Iteration, check), w))
		} else {
			head = st.ErrorMark.Render("✗ ") + truncate(fmt.Sprintf("iteration %d: the check `%s` failed · exit %d · %s", ev.Iteration, check, ev.ExitCode, tools.Count(ev.Failures, "failure")), w)
		}
		out := []string{head}
		for _, n := range notes {
			for _, l := range wrapWords(n, w-2) {
				out = append(out, "    "+st.Dim.Render(l))
			}
		}
		return out
	})
}

// goalResultBlock ends the run in the transcript.
func goalResultBlock(ev agent.GoalResultEvent) block {
	if ev.Passed {
		text := "goal met: " + oneLine(ev.Message)
		return newFuncBlock(func(c *common) []string {
			var out []string
			for i, l := range wrapWords(text, c.contentWidth()-2) {
				p := "  "
				if i == 0 {
					p = c.styles.OK.Render("✓ ")
				}
				out = append(out, p+c.styles.OK.Render(l))
			}
			return out
		})
	}
	if ev.Reason == agent.GoalCancelled {
		return noticeBlock("goal: " + ev.Message)
	}
	return warnBlock("goal not met: " + ev.Message)
}

// goalStatus is the goal's segment of the status line: the iteration, the
// last check's verdict and what is left of the budgets.
func (m Model) goalStatus() string {
	g := m.goal
	if g == nil || m.turn == nil || g.turn != m.turn.id {
		return ""
	}
	st := &m.c.styles
	b := g.budget
	it := fmt.Sprintf("goal %d", b.Iteration)
	if b.MaxIterations > 0 {
		it += fmt.Sprintf("/%d", b.MaxIterations)
	}
	parts := []string{st.Bold.Render(it)}
	switch {
	case g.checking:
		parts = append(parts, st.Status.Render("checking"))
	case g.last != nil && g.last.Passed:
		parts = append(parts, st.OK.Render("✓ passed"))
	case g.last != nil && m.c.width < 110:
		parts = append(parts, st.Status.Render(fmt.Sprintf("✗ %d", g.last.Failures)))
	case g.last != nil:
		parts = append(parts, st.Status.Render(fmt.Sprintf("✗ %d failing", g.last.Failures)))
	}
	var left []string
	if b.TokenBudget > 0 {
		left = append(left, shortCount(max(b.TokenBudget-b.TokensUsed, 0))+" tok")
	}
	if b.TimeBudgetMS > 0 {
		left = append(left, shortTime(time.Duration(b.TimeBudgetMS)*time.Millisecond-m.turn.elapsed))
	}
	if len(left) > 0 {
		parts = append(parts, st.Status.Render(strings.Join(left, " ")+" left"))
	}
	return strings.Join(parts, st.Status.Render(" · "))
}

// shortTime is a time left the short way: 45s, 29m, 1h05m.
func shortTime(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	}
	return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}
