package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"myclaw/tools"
)

//go:embed plan_submit.md
var planSubmitDescription string

type planSubmit struct{ meta tools.Meta }

// NewPlanSubmit returns plan_submit, the tool the model hands its plan in
// with in plan mode. It has no side effects: the plan goes to the person
// (Result.Proposal), who accepts, edits or rejects it.
func NewPlanSubmit() tools.Tool {
	return &planSubmit{meta: tools.Meta{
		Name:        "plan_submit",
		Description: strings.TrimSpace(planSubmitDescription),
		Schema: json.RawMessage(fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "rationale": {"type": "string", "minLength": 1, "maxLength": %d, "description": "Why this plan, in a sentence or two."},
    "steps": {"type": "array", "minItems": 1, "maxItems": %d, "description": "The steps, in order.", "items": {
      "type": "object",
      "properties": {
        "title": {"type": "string", "minLength": 1, "maxLength": %d, "description": "What the step does, in a few words."},
        "files": {"type": "array", "maxItems": %d, "description": "Workspace-relative files the step expects to touch.", "items": {"type": "string", "minLength": 1, "maxLength": %d}}
      },
      "required": ["title", "files"],
      "additionalProperties": false
    }}
  },
  "required": ["rationale", "steps"],
  "additionalProperties": false
}`, tools.ProposalMaxRationale, tools.ProposalMaxSteps, tools.ProposalMaxTitle, tools.ProposalMaxFiles, tools.ProposalMaxPath)),
		ReadOnly:   true,
		Risk:       tools.RiskLow,
		Idempotent: true,
		Capability: "plan:submit",
		Timeout:    5 * time.Second,
		Source:     tools.SourceBuiltin,
		PlanMode:   true,
	}}
}

// Meta implements Tool.
func (t *planSubmit) Meta() tools.Meta { return t.meta }

// Execute implements Tool.
func (t *planSubmit) Execute(_ context.Context, raw json.RawMessage) (tools.Result, error) {
	var p tools.Proposal
	if err := json.Unmarshal(raw, &p); err != nil {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, `Send {"rationale": "...", "steps": [{"title": "...", "files": ["path"]}]}.`, "arguments are not valid: %v", err)
	}
	if err := p.Validate(); err != nil {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, "Fix the plan and call plan_submit again.", "the plan is not valid: %v", err)
	}
	return tools.Result{
		Output: map[string]any{
			"steps":  len(p.Steps),
			"status": "submitted",
			"next":   "The plan is shown to the user, who accepts, edits or rejects it. Stop here: do not call more tools or restate the plan.",
		},
		Summary:  fmt.Sprintf("Plan submitted: %s", tools.Count(len(p.Steps), "step")),
		Proposal: &p,
	}, nil
}
