package approval

import "fmt"

// Plan is plan mode: the model explores and submits a plan. Only read-only
// tools are offered, and shell commands run in the sandbox with the
// workspace read-only and no network, so a write fails rather than asks.
// It is not one of Levels: --autonomy and /autonomy do not take it; --plan,
// /plan and Shift+Tab do.
const Plan Level = "plan"

// planConfinement is how every shell command runs in plan mode.
var planConfinement = Confinement{Sandboxed: true, ReadOnly: true}

// PlanFrom is the level plan mode was entered from (Ask when the session
// started in it); outside plan mode it is the current level. The system
// prompt keeps naming it, so entering plan mode leaves the prompt's start
// as it was.
func (p *Policy) PlanFrom() Level {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.level != Plan {
		return p.level
	}
	if p.planFrom == "" {
		return Ask
	}
	return p.planFrom
}

// planVisible decides, in plan mode, whether a side-effecting tool is in
// the catalog: only one that runs a command line, and only when the
// sandbox can run it read-only. Called with p.mu held.
func (p *Policy) planVisible(shell bool) (bool, string) {
	switch {
	case !shell:
		return false, "plan mode hides side-effecting tools"
	case !p.sandbox.Active:
		return false, "plan mode runs commands only in the read-only sandbox, which is not active here"
	}
	return true, ""
}

// evaluatePlan decides a side-effecting call in plan mode, after the deny
// rules: anything but a shell command is denied; a shell command runs
// read-only confined, asking first only where another level would have
// reason to doubt the line (an ask rule, a line drawn from untrusted text,
// one it cannot parse or rates high-risk). Without an active sandbox it is
// denied: plan mode never runs a command that could write. Called with
// p.mu held.
func (p *Policy) evaluatePlan(req Request, c call) Verdict {
	by := "level: plan"
	if !c.shell {
		return Verdict{Outcome: OutcomeDeny, By: by, Why: "plan mode allows no side effects, and " + c.tool + " has them: put the change in the plan (plan_submit)"}
	}
	if !p.sandbox.Active {
		why := p.sandbox.Why
		if why == "" {
			why = "no sandbox is set up"
		}
		return Verdict{Outcome: OutcomeDeny, By: by, Why: "plan mode runs commands only in the read-only sandbox, which is not active here: " + why}
	}
	conf := planConfinement
	ask := func(why string) Verdict {
		return Verdict{Outcome: OutcomeAsk, By: by, Why: why + " (it runs read-only)", Confinement: &conf}
	}
	for _, r := range p.rules {
		if Outcome(r.Decision) == OutcomeAsk && c.hits(r) {
			return ask("a rule in the config asks before " + c.what(r))
		}
		if Outcome(r.Decision) != OutcomeAllow && r.Match != "" && c.opaque != "" && r.tool.match(c.tool) {
			return ask(fmt.Sprintf("the rule %q cannot be checked against this line: %s", r.Match, c.opaque))
		}
	}
	if where := drawnFrom(c, req.Taint, req.Earlier); where != "" {
		return ask(where + ": plan mode asks for a command that may come from instructions planted there")
	}
	switch {
	case !c.parsed:
		return ask("plan mode asks for command lines it cannot parse")
	case shellRisk(req.Command) == "high":
		return ask("plan mode asks for high-risk command lines")
	}
	return Verdict{Outcome: OutcomeAllow, By: by, Confinement: &conf}
}
