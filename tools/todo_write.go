package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

//go:embed todo_write.md
var todoWriteDescription string

// PlanItem is one step of the model's plan.
type PlanItem struct {
	Text   string `json:"text"`
	Status string `json:"status"` // pending, in_progress, done
}

// Plan statuses.
const (
	PlanPending    = "pending"
	PlanInProgress = "in_progress"
	PlanDone       = "done"
)

const todoMaxItems = 30

type todoWrite struct{ meta Meta }

// NewTodoWrite returns the todo_write tool. The plan lives in the
// conversation (each call carries it whole) and on screen; the tool has no
// side effects, so it never asks.
func NewTodoWrite() Tool {
	return &todoWrite{meta: Meta{
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
		Risk:       RiskLow,
		Idempotent: true,
		Capability: "plan:write",
		Timeout:    5 * time.Second,
		Source:     SourceBuiltin,
	}}
}

// Meta implements Tool.
func (t *todoWrite) Meta() Meta { return t.meta }

// Execute implements Tool.
func (t *todoWrite) Execute(_ context.Context, raw json.RawMessage) (Result, error) {
	var a struct {
		Todos []PlanItem `json:"todos"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return Result{}, Errorf(KindInvalidArgs, `Send {"todos": [{"text": "...", "status": "pending"}, ...]}.`, "arguments are not valid: %v", err)
	}
	inProgress := 0
	counts := map[string]int{}
	for i := range a.Todos {
		a.Todos[i].Text = ClipOneLine(a.Todos[i].Text, 200)
		counts[a.Todos[i].Status]++
		if a.Todos[i].Status == PlanInProgress {
			inProgress++
		}
	}
	if inProgress > 1 {
		return Result{}, Errorf(KindInvalidArgs, "Mark only the step you are working on as in_progress; the others are pending or done.", "%d steps are in_progress", inProgress)
	}
	return Result{
		Output:  map[string]int{"steps": len(a.Todos), "done": counts[PlanDone], "pending": counts[PlanPending]},
		Summary: fmt.Sprintf("Plan: %d of %d steps done", counts[PlanDone], len(a.Todos)),
		Plan:    append([]PlanItem{}, a.Todos...),
	}, nil
}
