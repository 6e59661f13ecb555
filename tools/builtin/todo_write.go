package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"myclaw/tools"
	"strings"
	"time"
)

//go:embed todo_write.md
var todoWriteDescription string

const todoMaxItems = 30

type todoWrite struct{ meta tools.Meta }

// NewTodoWrite returns the todo_write tool. The plan lives in the
// conversation (each call carries it whole) and on screen; the tool has no
// side effects, so it never asks.
func NewTodoWrite() tools.Tool {
	return &todoWrite{meta: tools.Meta{
		Name:        "todo_write",
		Description: strings.TrimSpace(todoWriteDescription),
		Schema: json.RawMessage(fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "todos": {"type": "array", "maxItems": %d, "description": "The whole plan, in order.", "items": {
      "type": "object",
      "properties": {
        "text": {"type": "string", "minLength": 1, "maxLength": 200, "description": "The step, in a few words."},
        "status": {"type": "string", "enum": ["pending", "in_progress", "done"]}
      },
      "required": ["text", "status"],
      "additionalProperties": false
    }}
  },
  "required": ["todos"],
  "additionalProperties": false
}`, todoMaxItems)),
		ReadOnly:   true,
		Risk:       tools.RiskLow,
		Idempotent: true,
		Capability: "plan:write",
		Timeout:    5 * time.Second,
		Source:     tools.SourceBuiltin,
	}}
}

// Meta implements Tool.
func (t *todoWrite) Meta() tools.Meta { return t.meta }

// Execute implements Tool.
func (t *todoWrite) Execute(_ context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Todos []tools.PlanItem `json:"todos"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, `Send {"todos": [{"text": "...", "status": "pending"}, ...]}.`, "arguments are not valid: %v", err)
	}
	inProgress := 0
	counts := map[string]int{}
	for i := range a.Todos {
		a.Todos[i].Text = tools.ClipOneLine(a.Todos[i].Text, 200)
		counts[a.Todos[i].Status]++
		if a.Todos[i].Status == tools.PlanInProgress {
			inProgress++
		}
	}
	if inProgress > 1 {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, "Mark only the step you are working on as in_progress; the others are pending or done.", "%d steps are in_progress", inProgress)
	}
	return tools.Result{
		Output:  map[string]int{"steps": len(a.Todos), "done": counts[tools.PlanDone], "pending": counts[tools.PlanPending]},
		Summary: fmt.Sprintf("Plan: %d of %d steps done", counts[tools.PlanDone], len(a.Todos)),
		Plan:    append([]tools.PlanItem{}, a.Todos...),
	}, nil
}
