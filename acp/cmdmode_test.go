package acp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"myclaw/approval"
	"myclaw/config"
)

// userCommand writes a command file of the user's.
func userCommand(t *testing.T, name, content string) {
	t.Helper()
	dir := config.File("commands")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".md"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// waitCommands waits for an available_commands_update that ok accepts and
// returns it; the bound only stops a hung test.
func waitCommands(t *testing.T, c *recordingClient, ok func([]acpsdk.AvailableCommand) bool) []acpsdk.AvailableCommand {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var last []acpsdk.AvailableCommand
		c.mu.Lock()
		for _, u := range c.updates {
			if u.AvailableCommandsUpdate != nil {
				last = u.AvailableCommandsUpdate.AvailableCommands
			}
		}
		c.mu.Unlock()
		if last != nil && ok(last) {
			return last
		}
		if time.Now().After(deadline) {
			t.Fatalf("no available_commands_update as wanted; the last: %+v", last)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func findCommand(list []acpsdk.AvailableCommand, name string) *acpsdk.AvailableCommand {
	for i := range list {
		if list[i].Name == name {
			return &list[i]
		}
	}
	return nil
}

// said is the text sent to the editor from update n on, and the modes it
// was told of.
func said(c *recordingClient, n int) (string, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var text strings.Builder
	var modes []string
	for _, u := range c.updates[n:] {
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			text.WriteString(u.AgentMessageChunk.Content.Text.Text)
		}
		if u.CurrentModeUpdate != nil {
			modes = append(modes, string(u.CurrentModeUpdate.CurrentModeId))
		}
	}
	return text.String(), modes
}

func updateCount(c *recordingClient) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.updates)
}

// A command whose file says mode: plan runs in Plan mode from Full: its
// plan reaches the editor and waits, in Plan mode, until switching the
// mode accepts it; a plan command whose model submits no plan (its write
// denied, nothing asked) goes back to the level it came from; a mode that
// would widen the level is not offered; at Read-only a plan command is
// refused.
func TestPlanModeCommandInTheEditor(t *testing.T) {
	model := newFakeModel(t, map[string][2]string{
		"Plan the rename": {"plan_submit", `{"rationale":"The name is used in one file.","steps":[{"title":"Rename in a.go","files":["a.go"]}]}`},
		"Write the notes": {"fs_write", `{"path":"notes.txt","content":"written\n"}`},
	})
	srv, client, conn := connect(t, model, acpsdk.ClientCapabilities{})
	userCommand(t, "rename", "---\ndescription: Plan a rename\nmode: plan\n---\nPlan the rename of $1.")
	userCommand(t, "notes", "---\nmode: plan\n---\nWrite the notes.")
	userCommand(t, "ship", "---\nmode: full\n---\nShip it.")
	ctx := context.Background()
	ws := t.TempDir()
	sess, err := conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	ss, err := srv.session(sess.SessionId)
	if err != nil {
		t.Fatal(err)
	}
	list := waitCommands(t, client, func(l []acpsdk.AvailableCommand) bool { return findCommand(l, "rename") != nil })
	if c := findCommand(list, "rename"); c.Description != "Plan a rename (runs in Plan mode)" {
		t.Errorf("the command is described %q; want its mode named", c.Description)
	}
	if findCommand(list, "ship") != nil {
		t.Error("a command whose mode would widen the level is offered")
	}
	prompt := func(text string) {
		t.Helper()
		if _, err := conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock(text)}}); err != nil {
			t.Fatal(err)
		}
	}
	setMode := func(id string) {
		t.Helper()
		if _, err := conn.SetSessionMode(ctx, acpsdk.SetSessionModeRequest{SessionId: sess.SessionId, ModeId: acpsdk.SessionModeId(id)}); err != nil {
			t.Fatal(err)
		}
	}
	setMode("full")

	n := updateCount(client)
	prompt("/rename Foo")
	if got := ss.es.Agent.Autonomy(); got != approval.Plan {
		t.Fatalf("autonomy %s while the plan waits; want plan", got)
	}
	if !model.saw("Plan mode is on", "Plan the rename of Foo") || model.saw(`"name":"fs_write"`) {
		t.Error("the command's prompt did not run in plan mode")
	}
	text, modes := said(client, n)
	if len(modes) != 1 || modes[0] != "plan" || !strings.Contains(text, "/rename runs in Plan mode, as its command file says. Back to Full") || !strings.Contains(text, "The name is used in one file.") {
		t.Errorf("the editor was told %q, modes %v; want plan mode said and the plan", text, modes)
	}
	setMode("auto-edit")
	if got := ss.es.Agent.Autonomy(); got != approval.AutoEdit {
		t.Fatalf("autonomy %s after accepting; want auto-edit", got)
	}

	n = updateCount(client)
	prompt("/notes")
	if got := ss.es.Agent.Autonomy(); got != approval.AutoEdit {
		t.Errorf("autonomy %s after a plan command that submitted no plan; want auto-edit back", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "notes.txt")); !os.IsNotExist(err) {
		t.Errorf("the plan command wrote: %v", err)
	}
	client.mu.Lock()
	asked := len(client.asked)
	client.mu.Unlock()
	if asked != 0 || !model.saw("plan mode allows no side effects") {
		t.Errorf("%d permission requests; want the write denied by plan mode without asking", asked)
	}
	text, modes = said(client, n)
	if strings.Join(modes, " ") != "plan auto-edit" || !strings.Contains(text, "/notes is over: back to Auto-edit mode.") {
		t.Errorf("the editor was told %q, modes %v; want plan, then auto-edit back", text, modes)
	}

	setMode("readonly")
	model.mu.Lock()
	before := len(model.bodies)
	model.mu.Unlock()
	n = updateCount(client)
	prompt("/rename Bar")
	text, _ = said(client, n)
	model.mu.Lock()
	after := len(model.bodies)
	model.mu.Unlock()
	if got := ss.es.Agent.Autonomy(); got != approval.ReadOnly || after != before {
		t.Errorf("autonomy %s, %d requests; want readonly kept and nothing sent", got, after-before)
	}
	if !strings.Contains(text, "/rename runs in plan mode") || !strings.Contains(text, "a command never widens the level") || !strings.Contains(text, "Nothing was sent to the model.") {
		t.Errorf("the refusal is not said: %q", text)
	}
}

// A plan command cancelled goes back to the level it came from.
func TestPlanModeCommandCancelledGoesBack(t *testing.T) {
	model := newFakeModel(t, nil)
	model.stall, model.stalled = "Plan the rename", make(chan struct{}, 1)
	srv, client, conn := connect(t, model, acpsdk.ClientCapabilities{})
	userCommand(t, "rename", "---\nmode: plan\n---\nPlan the rename.")
	ctx := context.Background()
	sess, err := conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	ss, err := srv.session(sess.SessionId)
	if err != nil {
		t.Fatal(err)
	}
	waitCommands(t, client, func(l []acpsdk.AvailableCommand) bool { return findCommand(l, "rename") != nil })
	done := make(chan acpsdk.StopReason, 1)
	go func() {
		r, _ := conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("/rename")}})
		done <- r.StopReason
	}()
	<-model.stalled
	if got := ss.es.Agent.Autonomy(); got != approval.Plan {
		t.Fatalf("autonomy %s during the command; want plan", got)
	}
	if err := conn.Cancel(ctx, acpsdk.CancelNotification{SessionId: sess.SessionId}); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r != acpsdk.StopReasonCancelled {
		t.Errorf("stop reason %s; want cancelled", r)
	}
	if got := ss.es.Agent.Autonomy(); got != approval.Ask {
		t.Errorf("autonomy %s after the cancel; want ask back", got)
	}
}
