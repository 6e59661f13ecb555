package acp

import (
	"context"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"myclaw/approval"
)

// Plan mode is a session mode: the plan the model submits reaches the
// editor as a plan update, one entry per step naming its files; leaving
// plan mode for a level that acts accepts it, and the next prompt carries
// it out at that level.
func TestPlanModeSendsThePlan(t *testing.T) {
	model := newFakeModel(t, map[string][2]string{
		"plan the rename": {"plan_submit", `{"rationale":"The name is used in two files.","steps":[{"title":"Rename in a.go","files":["a.go"]},{"title":"Update the docs","files":["README.md","docs/x.md"]}]}`},
	})
	srv, client, conn := connect(t, model, acpsdk.ClientCapabilities{})
	ctx := context.Background()
	sess, err := conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	offered := false
	for _, m := range sess.Modes.AvailableModes {
		offered = offered || m.Id == acpsdk.SessionModeId(approval.Plan)
	}
	if !offered {
		t.Fatalf("plan is not among the modes %+v", sess.Modes.AvailableModes)
	}
	if _, err := conn.SetSessionMode(ctx, acpsdk.SetSessionModeRequest{SessionId: sess.SessionId, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	ss, err := srv.session(sess.SessionId)
	if err != nil {
		t.Fatal(err)
	}
	if got := ss.es.Agent.Autonomy(); got != approval.Plan {
		t.Fatalf("autonomy %s after set_mode plan", got)
	}
	if _, err := conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("plan the rename")}}); err != nil {
		t.Fatal(err)
	}
	if !model.saw("Plan mode is on") || model.saw(`"name":"fs_write"`) {
		t.Error("the model was not in plan mode (told so, offered no write tool)")
	}
	var plan []acpsdk.PlanEntry
	text := ""
	client.mu.Lock()
	for _, u := range client.updates {
		if u.Plan != nil {
			plan = u.Plan.Entries
		}
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			text += u.AgentMessageChunk.Content.Text.Text
		}
	}
	n := len(client.updates)
	client.mu.Unlock()
	if len(plan) != 2 || plan[0].Content != "Rename in a.go (a.go)" || plan[1].Content != "Update the docs (README.md, docs/x.md)" ||
		plan[0].Status != acpsdk.PlanEntryStatusPending {
		t.Errorf("plan update %+v; want the two steps with their files, pending", plan)
	}
	if !strings.Contains(text, "The name is used in two files.") || !strings.Contains(text, "switch the mode") {
		t.Errorf("the rationale and how to accept are not said: %q", text)
	}
	// Leaving plan mode accepts the plan; the next prompt carries it out.
	if _, err := conn.SetSessionMode(ctx, acpsdk.SetSessionModeRequest{SessionId: sess.SessionId, ModeId: "auto-edit"}); err != nil {
		t.Fatal(err)
	}
	if got := ss.es.Agent.Autonomy(); got != approval.AutoEdit {
		t.Fatalf("autonomy %s after accepting; want auto-edit", got)
	}
	if _, err := conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("go")}}); err != nil {
		t.Fatal(err)
	}
	if !model.saw("The user accepted the plan", "Rename in a.go", "autonomy level is auto-edit", "go") {
		t.Error("the prompt after accepting did not carry the plan to the model")
	}
	client.mu.Lock()
	accepted := ""
	for _, u := range client.updates[n:] {
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			accepted += u.AgentMessageChunk.Content.Text.Text
		}
	}
	client.mu.Unlock()
	if !strings.Contains(accepted, "Plan accepted") {
		t.Errorf("the editor was not told the plan was accepted: %q", accepted)
	}
}
