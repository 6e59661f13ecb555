package acp

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
)

// TestLoadReplaysSession loads a stored session: its prompts, answers and
// calls come back as updates, and the model remembers the conversation.
func TestLoadReplaysSession(t *testing.T) {
	model := newFakeModel(t, map[string][2]string{"write it": {"fs_write", `{"path":"a.txt","content":"one\n"}`}})
	_, client, conn := connect(t, model, acpsdk.ClientCapabilities{})
	ctx := context.Background()
	ws := t.TempDir()
	sess, err := conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.SetSessionMode(ctx, acpsdk.SetSessionModeRequest{SessionId: sess.SessionId, ModeId: "full"}); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("write it")}}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "a.txt")); err != nil || string(b) != "one\n" {
		t.Fatalf("a.txt = %q, %v; want the write done", b, err)
	}
	if _, err := conn.CloseSession(ctx, acpsdk.CloseSessionRequest{SessionId: sess.SessionId}); err != nil {
		t.Fatal(err)
	}
	client.mu.Lock()
	from := len(client.updates)
	client.mu.Unlock()
	if _, err := conn.LoadSession(ctx, acpsdk.LoadSessionRequest{SessionId: sess.SessionId, Cwd: ws, McpServers: []acpsdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	client.mu.Lock()
	replayed := client.updates[from:]
	client.mu.Unlock()
	var prompt, answer, call bool
	for _, u := range replayed {
		switch {
		case u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil:
			prompt = prompt || u.UserMessageChunk.Content.Text.Text == "write it"
		case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
			answer = answer || u.AgentMessageChunk.Content.Text.Text == "Done."
		case u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil:
			call = call || *u.ToolCallUpdate.Status == acpsdk.ToolCallStatusCompleted
		}
	}
	if !prompt || !answer || !call {
		t.Errorf("replay: prompt %v, answer %v, completed call %v; want all (%d updates)", prompt, answer, call, len(replayed))
	}
	if _, err := conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("and now?")}}); err != nil {
		t.Fatal(err)
	}
	if !model.saw("write it", "and now?") {
		t.Error("the loaded session's next request does not carry the earlier conversation")
	}
}
