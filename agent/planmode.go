package agent

import (
	"path/filepath"
	"strings"

	"myclaw/approval"
	"myclaw/tools"
)

// planState is plan mode's part of the agent: whether the model was told
// plan mode is on, and the plan the person accepted, against which later
// calls are checked.
type planState struct {
	noted    bool
	accepted *tools.Proposal
}

// planNote is what the model reads, ahead of the first prompt sent in plan
// mode, in the user message: the system prompt stays as it was, so the
// request's prefix does too.
const planNote = "Plan mode is on. Only read-only tools are offered, and shell_run runs commands in a read-only sandbox without network: a write fails. " +
	"Explore what the task needs (read and search the files, run read-only commands), then call plan_submit once with a short rationale and the ordered steps, each naming the workspace-relative files it expects to touch. " +
	"Do not change anything and do not write the plan as prose: the user reviews the submitted plan and accepts, edits or rejects it."

// planEndedNote tells the model plan mode is over when the person left it
// without accepting a plan.
const planEndedNote = "Plan mode is off: the tools with side effects are back, at the autonomy level the last note names."

// modeNote is the note on plan mode the next user message carries, if
// any: on entering it, and on leaving it.
func (a *Agent) modeNote() string {
	inPlan := a.opts.Policy.Level() == approval.Plan
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case inPlan && !a.plan.noted:
		a.plan.noted = true
		return planNote
	case !inPlan && a.plan.noted:
		a.plan.noted = false
		return planEndedNote
	}
	return ""
}

// PlanFrom is the level plan mode was entered from; outside plan mode,
// the level. Whoever leaves plan mode for a moment (a command run at
// readonly) sets it before setting plan mode again, so the model keeps
// being told the same level.
func (a *Agent) PlanFrom() approval.Level { return a.opts.Policy.PlanFrom() }

// AcceptPlan records the plan the person accepted (as they edited it) and
// leaves plan mode for level: later calls that touch files no step names
// are flagged. The model learns of it from the prompt that carries it out
// (AcceptedPrompt).
func (a *Agent) AcceptPlan(p tools.Proposal, level approval.Level) {
	a.opts.Policy.SetLevel(level)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.plan.accepted = &p
	a.plan.noted = false // the accepting prompt says plan mode is over
}

// planProgress takes the todo list as the model last sent it: once every
// step of an accepted plan is done, the plan is finished and later calls
// are no longer checked against it.
func (a *Agent) planProgress(items []tools.PlanItem) {
	if len(items) == 0 {
		return
	}
	for _, it := range items {
		if it.Status != tools.PlanDone {
			return
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.plan.accepted = nil
}

// AcceptedPrompt is the prompt that has the model carry out an accepted
// plan: the steps as accepted, and the checklist they now are.
func AcceptedPrompt(p tools.Proposal, edited bool, level approval.Level) string {
	var b strings.Builder
	b.WriteString("The user accepted the plan")
	if edited {
		b.WriteString(" after editing it (this is the plan now)")
	}
	b.WriteString(". Plan mode is over; the autonomy level is " + string(level) + ". Carry out the plan step by step:\n\n")
	b.WriteString(p.Text())
	b.WriteString("\nThe todo list holds these steps, all pending: as you work, send it with todo_write, marking the step in progress and then done. Touch only the files the plan names; if another file must change, say why.")
	return b.String()
}

// RejectedPrompt is the prompt that has the model revise a plan the
// person rejected, with their reason.
func RejectedPrompt(reason string) string {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		reason = "(no reason given)"
	}
	return "The user rejected the plan. Their reason: " + reason + "\n\nPlan mode is still on. Revise the plan and submit it again with plan_submit."
}

// outsidePlan lists the files a side-effecting call touches (by its dry
// run) that no step of the accepted plan names: nil without an accepted
// plan, and in plan mode itself.
func (t *turn) outsidePlan(meta tools.Meta, dry tools.Result) []string {
	t.a.mu.Lock()
	plan := t.a.plan.accepted
	t.a.mu.Unlock()
	if plan == nil || meta.ReadOnly || t.a.opts.Policy.Level() == approval.Plan {
		return nil
	}
	var touched []string
	if c := tools.ParseCapability(dry.Capability); c.Kind == "fs" && c.Action != "read" && c.Target != "" {
		touched = append(touched, c.Target)
	}
	if cl := dry.Command; cl != nil {
		touched = append(touched, cl.Changes...)
	}
	var out []string
	for _, f := range touched {
		rel := f
		if filepath.IsAbs(f) {
			if r, err := filepath.Rel(t.a.opts.Workspace, f); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				rel = filepath.ToSlash(r)
			}
		}
		if !plan.Covers(rel) && !containsStr(out, rel) {
			out = append(out, rel)
		}
	}
	return out
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// holdPlan keeps plan mode's confinement whatever a hook decided: in plan
// mode a side-effecting call the policy would deny stays denied, and a
// command runs read-only, never as a hook's allow would have it run.
func (t *turn) holdPlan(p *passage) {
	if t.a.opts.Policy.Level() != approval.Plan || p.meta.ReadOnly || p.verdict.Outcome == approval.OutcomeDeny {
		return
	}
	v := t.a.opts.Policy.Evaluate(p.req)
	if v.Outcome == approval.OutcomeDeny {
		p.verdict = v
		return
	}
	p.verdict.Confinement = v.Confinement
}
