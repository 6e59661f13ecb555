package agent

import (
	"context"
	"testing"

	"myclaw/approval"
	"myclaw/tools"
)

// todo_write runs without asking even under ask, and its plan reaches the
// event stream (the TUI's checklist, --output json's "plan" events).
func TestTodoWriteEmitsThePlanWithoutAsking(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"p1", "todo_write", `{"todos":[{"text":"read","status":"done"},{"text":"fix","status":"in_progress"}]}`}),
		openAIStyle("", call{"p2", "todo_write", `{"todos":[{"text":"read","status":"in_progress"},{"text":"fix","status":"in_progress"}]}`}),
		openAIStyle("ok"),
	)
	h := newHarness(t, approval.Ask, srv)
	asked := approverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		t.Fatal("todo_write asked for approval")
		return approval.Decision{}, nil
	})
	if err := h.run(context.Background(), "plan it", asked); err != nil {
		t.Fatal(err)
	}
	plans := h.eventsOf("plan")
	if len(plans) != 1 {
		t.Fatalf("%d plan events; want 1 (the second call is invalid)", len(plans))
	}
	items := plans[0].(PlanEvent).Items
	if len(items) != 2 || items[1].Status != tools.PlanInProgress || items[1].Text != "fix" {
		t.Fatalf("plan %+v", items)
	}
	if res := h.results(); len(res) != 2 || res[1].Status != StatusError {
		t.Fatalf("results %+v; want the plan with two steps in progress refused", res)
	}
}
