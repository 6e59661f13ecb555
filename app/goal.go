package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/tools"
	"myclaw/tools/termtext"
	"myclaw/ui"
)

// GoalOptions are a goal run's settings from the command line (or /goal);
// zero values fall back to the config's [goal].
type GoalOptions struct {
	Text          string
	Check         string
	MaxIterations int
	TokenBudget   int
	TimeBudget    time.Duration
	CheckNetwork  bool
	RollbackWorse bool
}

// goal turns the settings into a run, with the check confined: in the
// sandbox (without network unless granted), or unsandboxed only as the
// person's explicit choice. It fails when neither holds.
func (a *app) goal(ctx context.Context, o GoalOptions) (agent.Goal, error) {
	c := a.cfg.Goal
	g := agent.Goal{Text: o.Text, Check: o.Check, MaxIterations: o.MaxIterations, TokenBudget: o.TokenBudget, TimeBudget: o.TimeBudget,
		RollbackWorse: o.RollbackWorse || c.RollbackWorse}
	if g.MaxIterations == 0 {
		g.MaxIterations = c.MaxIterations
	}
	if g.TokenBudget == 0 {
		g.TokenBudget = c.TokenBudget
	}
	if g.TimeBudget == 0 {
		g.TimeBudget = c.TimeBudgetDuration()
	}
	if off, _ := a.sandboxOff(); off {
		g.Unconfined = true
		return g, nil
	}
	if a.sandbox == nil {
		return g, &agent.UserError{Msg: "The check runs only in the sandbox, and there is none here.", Hint: "--sandbox off runs commands unsandboxed, as your explicit choice."}
	}
	// The TUI checks the sandbox behind its first frame: this waits for
	// that check (or runs it).
	if st := a.sandbox.Check(ctx); !st.Active {
		return g, &agent.UserError{Msg: "The check runs only in the sandbox, which is not active here: " + st.Why + ".", Hint: "myclaw sandbox-check says more; --sandbox off runs commands unsandboxed, as your explicit choice."}
	}
	g.Confinement = tools.Confinement{Sandboxed: true, Network: o.CheckNetwork || c.CheckNetwork}
	return g, nil
}

// headlessGoal runs a goal headless: the run's events on stderr (or as
// JSON), exit 0 only when the check passed.
func (a *app) headlessGoal(ctx context.Context, ag *agent.Agent, o GoalOptions, p *printer) error {
	g, err := a.goal(ctx, o)
	if err != nil {
		return err
	}
	if g.Unconfined {
		p.notice("the check runs unsandboxed, with your full rights (--sandbox off or [shell.sandbox] enabled = false)", true)
	}
	if l := ag.Autonomy(); l == approval.Ask || l == approval.ReadOnly {
		p.notice("autonomy "+string(l)+": headless denies every change the model tries, so the goal can only be met as the files stand; --autonomy auto-edit lets it edit", true)
	}
	res, err := ag.RunGoal(ctx, g, p.print, approval.Headless{})
	switch {
	case err != nil && errors.Is(err, context.Canceled):
		return err
	case err != nil && res.Reason == "":
		return err // refused before it started: nothing was reported
	case err != nil, !res.Passed:
		return ErrReported
	}
	return nil
}

// RunGoal runs a goal from /goal, confined as the app says.
func (b *tuiBackend) RunGoal(ctx context.Context, o ui.GoalRequest, emit func(agent.Event), approver approval.Approver) error {
	g, err := b.app.goal(ctx, GoalOptions{Text: o.Text, Check: o.Check, MaxIterations: o.MaxIterations, TokenBudget: o.TokenBudget,
		TimeBudget: o.TimeBudget, CheckNetwork: o.Network, RollbackWorse: o.RollbackWorse})
	if err != nil {
		return err
	}
	if g.Unconfined {
		emit(agent.NoticeEvent{Text: "The check runs unsandboxed, with your full rights (--sandbox off or [shell.sandbox] enabled = false).", Warning: true})
	}
	_, err = b.Agent.RunGoal(ctx, g, emit, approver)
	return err
}

// goalActivity writes a goal run's events on stderr.
func (p *printer) goalActivity(e agent.Event) {
	switch ev := e.(type) {
	case agent.GoalStepEvent:
		if ev.Step == agent.GoalStepTurn {
			p.activity("goal: iteration %d of %d%s\n", ev.Budget.Iteration, ev.Budget.MaxIterations, budgetLeft(ev.Budget))
		} else {
			p.activity("goal: running the check `%s`\n", termtext.OneLine(ev.Check, 120))
		}
	case agent.GoalIterationEvent:
		verdict := "passed"
		if !ev.Passed {
			verdict = fmt.Sprintf("failed (exit %d, %s)", ev.ExitCode, tools.Count(ev.Failures, "failure"))
		}
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
		extra := ""
		if len(notes) > 0 {
			extra = " · " + strings.Join(notes, " · ")
		}
		p.activity("goal: iteration %d: the check %s%s\n", ev.Iteration, verdict, extra)
	case agent.GoalResultEvent:
		p.activity("goal: %s\n", termtext.OneLine(ev.Message, 400))
	}
}

// budgetLeft says what is left of a run's token and time budgets.
func budgetLeft(b agent.GoalBudget) string {
	var parts []string
	if b.TokenBudget > 0 {
		parts = append(parts, fmt.Sprintf("%d tokens", max(b.TokenBudget-b.TokensUsed, 0)))
	}
	if b.TimeBudgetMS > 0 {
		parts = append(parts, (time.Duration(max(b.TimeBudgetMS-b.ElapsedMS, 0)) * time.Millisecond).Round(time.Second).String())
	}
	if len(parts) == 0 {
		return ""
	}
	return " (left: " + strings.Join(parts, ", ") + ")"
}
