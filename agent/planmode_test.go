package agent

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"myclaw/approval"
	"myclaw/sandbox"
	"myclaw/tools"
	"myclaw/tools/builtin"
)

const submitArgs = `{"rationale":"the notes need a todo list","steps":[{"title":"write the list","files":["notes/todo.md"]},{"title":"link it","files":["README.md"]}]}`

// In plan mode the catalog holds no tool with side effects (but a shell
// that runs read-only, when the sandbox can), the model is told ahead of
// the prompt while the system prompt stays as it was, a call of a hidden
// writer is denied, and a submitted plan ends the turn with a plan event.
func TestPlanModeOffersOnlyReadOnlyToolsAndEndsWithThePlan(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("hi"),
		openAIStyle("", call{"w1", "fs_write", `{"path":"a.txt","content":"x"}`}),
		openAIStyle("", call{"p1", "plan_submit", submitArgs}),
		openAIStyle("this answer must not be asked for"),
	)
	h := newHarness(t, approval.Ask, srv)
	h.reg.MustRegister(builtin.NewPlanSubmit())
	ask := approverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		t.Fatal("plan mode asked about a call")
		return approval.Decision{}, nil
	})
	// The system prompt of ask, before plan mode.
	if err := h.run(context.Background(), "hello", ask); err != nil {
		t.Fatal(err)
	}
	askSystem := srv.messages(0)[0]["content"]
	if slices.Contains(srv.toolNames(0), "plan_submit") {
		t.Fatal("plan_submit is offered outside plan mode")
	}
	h.events = nil
	h.agent.SetAutonomy(approval.Plan)
	if err := h.run(context.Background(), "plan the notes", ask); err != nil {
		t.Fatal(err)
	}
	names := srv.toolNames(1)
	for _, n := range names {
		tool, _ := h.reg.Lookup(n)
		if tool.Meta().HasSideEffects() {
			t.Errorf("plan mode offers %s, which has side effects (no sandbox here, so not even shell_run)", n)
		}
	}
	if !slices.Contains(names, "plan_submit") || !slices.Contains(names, "fs_read") {
		t.Errorf("plan mode's catalog %v lacks plan_submit or fs_read", names)
	}
	msgs := srv.messages(1)
	if msgs[0]["content"] != askSystem {
		t.Error("entering plan mode changed the system prompt: the request's prefix is not stable")
	}
	if user, _ := msgs[len(msgs)-1]["content"].(string); !strings.Contains(user, "Plan mode is on") || !strings.HasSuffix(user, "plan the notes") {
		t.Errorf("the user message does not carry the plan-mode note first: %q", user)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "a.txt")); err == nil {
		t.Error("a write ran in plan mode")
	}
	res := h.results()
	if len(res) != 2 || res[0].Status != StatusDenied || !strings.Contains(res[0].Hint+res[0].Message, "plan mode allows no side effects") {
		t.Fatalf("results %+v; want the write denied by plan mode", res)
	}
	if srv.count() != 3 {
		t.Errorf("%d requests; want the turn to end right after plan_submit (1 + 2)", srv.count())
	}
	plans := h.eventsOf("plan")
	if len(plans) != 1 || plans[0].(PlanEvent).Proposal == nil {
		t.Fatalf("plan events %+v; want one with the proposal", plans)
	}
	p := plans[0].(PlanEvent)
	if len(p.Steps) != 2 || p.Steps[0].Files[0] != "notes/todo.md" || len(p.Items) != 2 || p.Items[1].Status != tools.PlanPending {
		t.Errorf("plan event %+v", p)
	}
}

// A plan that breaks the rules comes back to the model with the reason,
// and no plan event is emitted.
func TestPlanSubmitRejectsABadPlan(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"p1", "plan_submit", `{"rationale":"r","steps":[{"title":"x","files":["../outside.go"]}]}`}),
		openAIStyle("I will fix it."),
	)
	h := newHarness(t, approval.Plan, srv)
	h.reg.MustRegister(builtin.NewPlanSubmit())
	if err := h.run(context.Background(), "plan", approveAll()); err != nil {
		t.Fatal(err)
	}
	res := h.results()
	if len(res) != 1 || res[0].Status != StatusError || !strings.Contains(res[0].Message, "the path leaves the workspace") {
		t.Fatalf("results %+v; want the plan refused naming the path", res)
	}
	if len(h.eventsOf("plan")) != 0 {
		t.Error("a refused plan reached the event stream")
	}
}

// Once a plan is accepted, a call that writes a file no step names is
// flagged in the question put to the person and on its started event;
// one the plan names is not.
func TestACallOutsideTheAcceptedPlanIsFlagged(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"w1", "fs_write", `{"path":"notes/todo.md","content":"x"}`}, call{"w2", "fs_write", `{"path":"other.txt","content":"y"}`}),
		openAIStyle("done"),
	)
	h := newHarness(t, approval.Plan, srv)
	p := tools.Proposal{Rationale: "r", Steps: []tools.PlanStep{{Title: "write", Files: []string{"notes/"}}}}
	h.agent.AcceptPlan(p, approval.Ask)
	if h.policy.Level() != approval.Ask {
		t.Fatalf("level %s after accepting; want ask", h.policy.Level())
	}
	ap := approveAll()
	if err := h.run(context.Background(), AcceptedPrompt(p, false, approval.Ask), ap); err != nil {
		t.Fatal(err)
	}
	if len(ap.requests) != 2 || len(ap.requests[0].OutsidePlan) != 0 || !slices.Equal(ap.requests[1].OutsidePlan, []string{"other.txt"}) {
		t.Errorf("the questions do not flag other.txt alone: %+v", ap.requests)
	}
	flags := map[string][]string{}
	for _, e := range h.eventsOf("tool_call") {
		if ev := e.(ToolCallEvent); ev.Phase == "started" {
			flags[ev.Call.ID] = ev.OutsidePlan
		}
	}
	if len(flags["w1"]) != 0 || !slices.Equal(flags["w2"], []string{"other.txt"}) {
		t.Errorf("flags %v; want only other.txt flagged", flags)
	}
	if msgs := srv.messages(0); strings.Contains(msgs[len(msgs)-1]["content"].(string), "Plan mode is on") {
		t.Error("the accepted plan's prompt still says plan mode is on")
	}
}

// In plan mode a shell command runs in the sandbox with the workspace
// read-only: approved or not, its write is blocked, and the model is told
// why. A hook that allows the call does not lift the confinement.
func TestPlanModeBlocksAShellWrite(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"s1", "shell_run", `{"command":"echo hi > made.txt; cat notes.md"}`}),
		openAIStyle("done"),
	)
	var sb *sandbox.Sandbox
	allow := writeHook(t, t.TempDir(), "allow", `echo '{"decision":"allow"}'`)
	h := newHarness(t, approval.Plan, srv, withSandbox(&sb, ""), func(o *Options) {
		o.Hooks = []Hook{{Tool: mustPattern(t, "shell_*"), Command: []string{allow}}}
	})
	st := sb.Check(context.Background())
	if !st.Active {
		if strings.Contains(st.Why, "no Landlock") {
			t.Skip("this kernel has no Landlock: " + st.Why)
		}
		t.Fatalf("the sandbox check failed: %s", st.Why)
	}
	h.policy.SetSandbox(approval.Sandbox{Active: true})
	os.WriteFile(filepath.Join(h.ws, "notes.md"), []byte("kept\n"), 0o644)
	if err := h.run(context.Background(), "look around", approveAll()); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(srv.toolNames(0), "shell_run") {
		t.Error("plan mode hides shell_run though the sandbox can run it read-only")
	}
	if _, err := os.Stat(filepath.Join(h.ws, "made.txt")); err == nil {
		t.Fatal("a shell write went through in plan mode")
	}
	res := h.results()
	if len(res) != 1 || res[0].Status != StatusOK {
		t.Fatalf("results %+v", res)
	}
	if d := h.eventsOf("approval"); len(d) == 0 || !strings.HasPrefix(d[0].(ApprovalEvent).Decision.By, "hook") {
		t.Errorf("approval events %+v; want the hook's allow", d)
	}
	for _, want := range []string{"kept", "Plan mode runs commands read-only", sandbox.ReadOnlyLine} {
		if !strings.Contains(res[0].Content, want) {
			t.Errorf("the result lacks %q:\n%s", want, res[0].Content)
		}
	}
}

// Without an active sandbox plan mode runs no command at all.
func TestPlanModeDeniesCommandsWithoutTheSandbox(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"s1", "shell_run", `{"command":"echo hi > made.txt"}`}),
		openAIStyle("done"),
	)
	h := newHarness(t, approval.Plan, srv)
	h.policy.SetSandbox(approval.Sandbox{Off: true})
	if err := h.run(context.Background(), "look around", approveAll()); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(srv.toolNames(0), "shell_run") {
		t.Error("plan mode offers shell_run without a sandbox")
	}
	if _, err := os.Stat(filepath.Join(h.ws, "made.txt")); err == nil {
		t.Fatal("a command ran unconfined in plan mode")
	}
	if res := h.results(); len(res) != 1 || res[0].Status != StatusDenied {
		t.Fatalf("results %+v; want the command denied", res)
	}
}

// An accepted plan bounds the calls only while it has steps not done:
// once the todo list says every step is done, a later write is not
// flagged; while one is pending, it is. Entering plan mode again drops it.
func TestAFinishedPlanNoLongerFlags(t *testing.T) {
	flagged := func(h *harness, id string) []string {
		for _, e := range h.eventsOf("tool_call") {
			if ev := e.(ToolCallEvent); ev.Phase == "started" && ev.Call.ID == id {
				return ev.OutsidePlan
			}
		}
		t.Fatalf("no started event for %s", id)
		return nil
	}
	p := tools.Proposal{Rationale: "r", Steps: []tools.PlanStep{{Title: "a", Files: []string{"a.txt"}}, {Title: "b", Files: []string{"b.txt"}}}}
	for _, tc := range []struct {
		name, second string
		want         []string
	}{
		{"one step left", "pending", []string{"g.txt"}},
		{"all done", "done", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			todos := `{"todos":[{"text":"a","status":"done"},{"text":"b","status":"` + tc.second + `"}]}`
			srv := newFakeServer(t,
				openAIStyle("", call{"t1", "todo_write", todos}),
				openAIStyle("done"),
				openAIStyle("", call{"g1", "fs_write", `{"path":"g.txt","content":"x"}`}),
				openAIStyle("ok"),
			)
			h := newHarness(t, approval.Plan, srv)
			h.agent.AcceptPlan(p, approval.Ask)
			ap := approveAll()
			if err := h.run(context.Background(), AcceptedPrompt(p, false, approval.Ask), ap); err != nil {
				t.Fatal(err)
			}
			if err := h.run(context.Background(), "now write g.txt", ap); err != nil {
				t.Fatal(err)
			}
			if got := flagged(h, "g1"); !slices.Equal(got, tc.want) {
				t.Fatalf("g.txt flagged %v; want %v", got, tc.want)
			}
		})
	}
	h := newHarness(t, approval.Ask, newFakeServer(t))
	h.agent.AcceptPlan(p, approval.Ask)
	h.agent.SetAutonomy(approval.Plan)
	h.agent.mu.Lock()
	defer h.agent.mu.Unlock()
	if h.agent.plan.accepted != nil {
		t.Error("entering plan mode again kept the last accepted plan")
	}
}
