package acp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"
)

// TestUnansweredIsDenied: a permission request the editor never answers
// is a denial when it times out, and the call does not run.
func TestUnansweredIsDenied(t *testing.T) {
	model := newFakeModel(t, map[string][2]string{"write it": {"fs_write", `{"path":"a.txt","content":"x\n"}`}})
	srv, client, conn := connect(t, model, acpsdk.ClientCapabilities{})
	srv.opts.PermissionTimeout = 100 * time.Millisecond
	client.mu.Lock()
	client.silent = true
	client.mu.Unlock()
	ctx := context.Background()
	ws := t.TempDir()
	sess, err := conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("write it")}})
	if err != nil {
		t.Fatal(err)
	}
	if r.StopReason != acpsdk.StopReasonEndTurn {
		t.Errorf("stop reason %q; want end_turn", r.StopReason)
	}
	if _, err := os.Stat(filepath.Join(ws, "a.txt")); !os.IsNotExist(err) {
		t.Errorf("a.txt exists (%v): the unanswered write ran", err)
	}
	if !model.saw("nobody answered in the editor") {
		t.Error("the model was not told the call was denied for want of an answer")
	}
	client.mu.Lock()
	defer client.mu.Unlock()
	failed := false
	for _, u := range client.updates {
		if c := u.ToolCallUpdate; c != nil && c.Status != nil && *c.Status == acpsdk.ToolCallStatusFailed {
			d, _ := c.Meta["myclaw"].(map[string]any)
			s, _ := d["decided"].(string)
			failed = failed || strings.Contains(s, "nobody answered")
		}
	}
	if !failed {
		t.Error("no failed card says nobody answered")
	}
}
