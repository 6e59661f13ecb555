package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"myclaw/approval"
	"myclaw/history"
	"myclaw/tools"
)

// DefaultGoalIterations bounds a goal run that sets no iteration limit.
const DefaultGoalIterations = 10

// Goal is a goal run: the model works toward Text in iterations, and after
// each one myclaw runs Check, confined; its exit status alone decides
// whether the goal is met. The model never judges its own success.
type Goal struct {
	Text  string
	Check string
	// MaxIterations bounds the iterations (DefaultGoalIterations when 0).
	MaxIterations int
	// TokenBudget bounds the tokens of the run's requests, and TimeBudget
	// its time (0: none). Both are checked before every request: one that
	// runs out mid-turn stops the turn before its next request (the calls
	// already made stand), the check runs once more, and the run ends.
	TokenBudget int
	TimeBudget  time.Duration
	// Confinement is how the check runs. Unconfined is the person's
	// explicit choice to run commands without the sandbox: without it, a
	// check that would not be sandboxed is refused.
	Confinement tools.Confinement
	Unconfined  bool
	// RollbackWorse undoes an iteration whose check counted more failures
	// than the one before it.
	RollbackWorse bool
}

// goalRun is the state of one RunGoal.
type goalRun struct {
	a        *Agent
	g        Goal
	id       string
	start    time.Time
	tokens   atomic.Int64
	emit     func(Event)
	approver approval.Approver
	state    *workspaceState
	// seen maps a failing check's output and the files it ran on to the
	// iteration that first saw them.
	seen map[string]int
	// results are the iterations' checks; rolled back ones are marked.
	results []goalResult
}

type goalResult struct {
	GoalCheck
	iteration  int
	rolledBack bool
	run        checkRun
}

// checkRun is one run of the check: the verdict, what the model reads of
// it, and the output as compared for repeats.
type checkRun struct {
	GoalCheck
	content string
	output  string
	tail    string
}

// RunGoal works toward g.Text until g.Check passes, a budget runs out, the
// run would loop, or ctx is cancelled. Each iteration is one turn (Run)
// followed by the check; the calls it makes are journaled as one group, so
// that one /undo takes it back whole. It emits GoalStepEvent,
// GoalIterationEvent and, last, GoalResultEvent, which it also returns.
// The error is a turn's (a broken server, a cancelled ctx), a check that
// could not run, or bad arguments; a check that fails is not an error.
func (a *Agent) RunGoal(ctx context.Context, g Goal, emit func(Event), approver approval.Approver) (GoalResultEvent, error) {
	if err := a.whole(); err != nil {
		return GoalResultEvent{}, err
	}
	g.Text, g.Check = strings.TrimSpace(g.Text), strings.TrimSpace(g.Check)
	switch {
	case g.Text == "":
		return GoalResultEvent{}, &UserError{Msg: "The goal is empty.", Hint: "Say what to achieve: /goal TEXT --check CMD."}
	case g.Check == "":
		return GoalResultEvent{}, &UserError{Msg: "The goal has no check command.", Hint: "Add --check CMD: the command whose exit status decides whether the goal is met."}
	case a.opts.UserTools.Shell == nil:
		return GoalResultEvent{}, &UserError{Msg: "No shell is available to run the check."}
	case !g.Confinement.Sandboxed && !g.Unconfined:
		return GoalResultEvent{}, &UserError{Msg: "The check would run outside the sandbox, which is not active here.", Hint: "myclaw sandbox-check says why; --sandbox off runs commands unsandboxed, as your explicit choice."}
	case g.MaxIterations < 0 || g.TokenBudget < 0 || g.TimeBudget < 0:
		return GoalResultEvent{}, &UserError{Msg: "Goal budgets must be positive."}
	}
	if g.MaxIterations == 0 {
		g.MaxIterations = DefaultGoalIterations
	}
	r := &goalRun{a: a, g: g, id: goalID(), start: a.opts.Now(), emit: emit, approver: approver,
		state: newWorkspaceState(a.opts.Workspace), seen: map[string]int{}}
	count := func(e Event) {
		if u, ok := e.(UsageEvent); ok {
			n := u.TotalTokens
			if n == 0 {
				n = u.PromptTokens + u.CompletionTokens
			}
			r.tokens.Add(int64(n))
		}
		emit(e)
	}
	before, err := r.state.fingerprint(ctx)
	if err != nil {
		return r.end(GoalError, 0, err.Error()), err
	}
	prompt := r.firstPrompt()
	for it := 1; ; it++ {
		if reason, why := r.exhausted(it); reason != "" {
			return r.end(reason, it-1, why), nil
		}
		emit(GoalStepEvent{Step: GoalStepTurn, Check: g.Check, Budget: r.budget(it)})
		a.setGroup(r.group(it), r.midTurn)
		err := a.Run(ctx, prompt, count, approver)
		a.setGroup("", nil)
		if err != nil {
			return r.fail(it, err)
		}
		emit(GoalStepEvent{Step: GoalStepCheck, Check: g.Check, Budget: r.budget(it)})
		chk, err := r.check(ctx, it)
		if err != nil {
			return r.fail(it, err)
		}
		after, err := r.state.fingerprint(ctx)
		if err != nil {
			return r.fail(it, err)
		}
		ev := GoalIterationEvent{Iteration: it, Check: g.Check, GoalCheck: chk.GoalCheck, Changed: after != before, Output: chk.tail}
		res := goalResult{GoalCheck: chk.GoalCheck, iteration: it, run: chk}
		if chk.Passed {
			r.results = append(r.results, res)
			ev.Budget = r.budget(it)
			emit(ev)
			return r.end(GoalPassed, it, fmt.Sprintf("The check passed after iteration %d.", it)), nil
		}
		key := after + "\x00" + fmt.Sprint(chk.ExitCode) + "\x00" + normalizeCheckOutput(chk.output)
		if first, ok := r.seen[key]; ok {
			r.results = append(r.results, res)
			ev.Budget = r.budget(it)
			emit(ev)
			return r.end(GoalRepeated, it, fmt.Sprintf("Stopped after iteration %d: the check failed with the same output as after iteration %d, and the files are as they were then, so another turn would go round in a loop.", it, first)), nil
		}
		r.seen[key] = it
		prev := r.last()
		next := r.nextPrompt(chk, "")
		if g.RollbackWorse && prev != nil && chk.Failures > prev.Failures {
			note, err := r.rollback(ctx, it)
			if err != nil {
				return r.fail(it, err)
			}
			if note == "" {
				res.rolledBack, ev.RolledBack = true, true
				if after, err = r.state.fingerprint(ctx); err != nil {
					return r.fail(it, err)
				}
				next = r.nextPrompt(prev.run, fmt.Sprintf("Your last turn made the check worse (%d → %d failures), so myclaw took its changes back; the output below is the check's from before them.", prev.Failures, chk.Failures))
			} else {
				ev.RollbackNote = note
			}
		}
		r.results = append(r.results, res)
		ev.Budget = r.budget(it)
		emit(ev)
		before, prompt = after, next
	}
}

// fail ends the run after an iteration's turn or check failed.
func (r *goalRun) fail(it int, err error) (GoalResultEvent, error) {
	if errors.Is(err, context.Canceled) {
		return r.end(GoalCancelled, it, fmt.Sprintf("Cancelled during iteration %d.", it)), err
	}
	msg := err.Error()
	var ue *UserError
	if errors.As(err, &ue) {
		msg = ue.Msg
	}
	return r.end(GoalError, it, fmt.Sprintf("Stopped during iteration %d: %s", it, msg)), err
}

// exhausted says whether a budget forbids iteration it, and which.
func (r *goalRun) exhausted(it int) (string, string) {
	done := it - 1
	switch {
	case it > r.g.MaxIterations:
		return GoalMaxIterations, fmt.Sprintf("The goal is not met after %s (the limit).", tools.Count(done, "iteration"))
	case r.g.TokenBudget > 0 && r.tokens.Load() >= int64(r.g.TokenBudget):
		return GoalTokenBudget, fmt.Sprintf("The goal is not met after %s: the token budget (%d) is used up (%d).", tools.Count(done, "iteration"), r.g.TokenBudget, r.tokens.Load())
	case r.g.TimeBudget > 0 && r.a.opts.Now().Sub(r.start) >= r.g.TimeBudget:
		return GoalTimeBudget, fmt.Sprintf("The goal is not met after %s: the time budget (%s) is used up.", tools.Count(done, "iteration"), r.g.TimeBudget)
	}
	return "", ""
}

// end builds, emits and returns the result event, naming the best state
// reached.
func (r *goalRun) end(reason string, iterations int, msg string) GoalResultEvent {
	ev := GoalResultEvent{Passed: reason == GoalPassed, Reason: reason, Iterations: iterations, Message: msg, Budget: r.budget(iterations)}
	if best := r.best(); best != nil {
		ev.Best = best
		if reason != GoalPassed {
			ev.Message += " " + describeBest(best)
		}
	}
	r.emit(ev)
	return ev
}

// describeBest says which iteration came closest and how to get back to it.
func describeBest(b *GoalBest) string {
	s := fmt.Sprintf("Best: iteration %d, %s (exit %d)", b.Iteration, tools.Count(b.Failures, "failure"), b.ExitCode)
	if b.Passed {
		s = fmt.Sprintf("Best: iteration %d, where the check passed", b.Iteration)
	}
	switch b.UndoSteps {
	case 0:
		return s + "; the workspace is as it left it."
	case 1:
		return s + "; /undo (or myclaw undo) takes the workspace back to it."
	}
	return fmt.Sprintf("%s; /undo %d (or myclaw undo %d) takes the workspace back to it.", s, b.UndoSteps, b.UndoSteps)
}

// best is the last passing iteration, else the one with the fewest
// failures (the latest of equals); rolled back iterations left no state.
func (r *goalRun) best() *GoalBest {
	var pick *goalResult
	for i := range r.results {
		res := &r.results[i]
		switch {
		case res.rolledBack:
		case pick == nil, res.Passed, !pick.Passed && res.Failures <= pick.Failures:
			pick = res
		}
	}
	if pick == nil {
		return nil
	}
	return &GoalBest{Iteration: pick.iteration, GoalCheck: pick.GoalCheck, UndoSteps: r.undoSteps(pick.iteration)}
}

// undoSteps counts the iterations after it that left something /undo
// takes back: each is one step.
func (r *goalRun) undoSteps(it int) int {
	r.a.mu.Lock()
	j := r.a.journal
	r.a.mu.Unlock()
	groups := map[string]bool{}
	for _, e := range j.Entries() {
		if e.Reversible && (e.State == history.StateApplied || e.State == history.StatePending) {
			groups[e.Group] = true
		}
	}
	n := 0
	for _, res := range r.results {
		if res.iteration > it && groups[r.group(res.iteration)] {
			n++
		}
	}
	return n
}

// last is the newest iteration whose state stands (not rolled back).
func (r *goalRun) last() *goalResult {
	for i := len(r.results) - 1; i >= 0; i-- {
		if !r.results[i].rolledBack {
			return &r.results[i]
		}
	}
	return nil
}

func (r *goalRun) budget(it int) GoalBudget {
	return GoalBudget{Iteration: it, MaxIterations: r.g.MaxIterations, TokensUsed: int(r.tokens.Load()), TokenBudget: r.g.TokenBudget,
		ElapsedMS: r.a.opts.Now().Sub(r.start).Milliseconds(), TimeBudgetMS: r.g.TimeBudget.Milliseconds()}
}

func (r *goalRun) group(it int) string { return fmt.Sprintf("%s/%d", r.id, it) }

func (a *Agent) setGroup(g string, budgetLeft func() string) {
	a.mu.Lock()
	a.group, a.budgetLeft = g, budgetLeft
	a.mu.Unlock()
}

// midTurn says why a turn of the run must send no further request: a
// budget ran out during it.
func (r *goalRun) midTurn() string {
	switch {
	case r.g.TokenBudget > 0 && r.tokens.Load() >= int64(r.g.TokenBudget):
		return fmt.Sprintf("The goal's token budget (%d) is used up (%d): this turn stops before its next request, and the check runs once more.", r.g.TokenBudget, r.tokens.Load())
	case r.g.TimeBudget > 0 && r.a.opts.Now().Sub(r.start) >= r.g.TimeBudget:
		return fmt.Sprintf("The goal's time budget (%s) is used up: this turn stops before its next request, and the check runs once more.", r.g.TimeBudget)
	}
	return ""
}

// goalID names a goal run in the journal's groups.
func goalID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "goal-" + hex.EncodeToString(b)
}

func (r *goalRun) firstPrompt() string {
	return fmt.Sprintf("Goal: %s\n\nWork toward this goal now. When your turn ends, myclaw runs the check `%s` in the workspace; its exit status alone decides whether the goal is met (0: met). If it is not met, you get the check's output and another turn. Make the changes the goal needs, without stopping to ask questions; saying the goal is met does not make it so.", r.g.Text, r.g.Check)
}

// nextPrompt feeds the check's output back, with a note first when there
// is one (a rollback).
func (r *goalRun) nextPrompt(chk checkRun, note string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The check `%s` failed (exit %d; %s counted): the goal is not met yet.", r.g.Check, chk.ExitCode, tools.Count(chk.Failures, "failure"))
	if note != "" {
		b.WriteString(" " + note)
	}
	b.WriteString(" Its result follows; read it as you would shell_run's.\n")
	b.WriteString(chk.content)
	fmt.Fprintf(&b, "\n\nKeep working toward the goal: %s", r.g.Text)
	return b.String()
}

// GroupLabel names the step a journaled call belongs to, for the history:
// "goal iteration 2"; "" for a call that is a step of its own.
func GroupLabel(group string) string {
	id, n, ok := strings.Cut(group, "/")
	if !ok || !strings.HasPrefix(id, "goal-") {
		return ""
	}
	return "goal iteration " + n
}
