package app

import (
	"myclaw/agent"
	"myclaw/tools"
	"myclaw/tools/termtext"
)

// printProposal writes a submitted plan on stdout, as text: the answer of
// a headless --plan task.
func (p *printer) printProposal(pr tools.Proposal) {
	p.endLine()
	p.writeText("Plan: " + termtext.Visible(pr.Text()))
}

// planOutcome ends a headless --plan task: done once the model submitted
// a plan (printed already), failed when it ended without one.
func (p *printer) planOutcome() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.proposal != nil {
		return nil
	}
	return &agent.UserError{
		Msg:  "The model ended its turn without submitting a plan (plan_submit).",
		Hint: "Run it again, or ask for the plan outright; a model that follows tool instructions well does better.",
	}
}
