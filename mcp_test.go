package main

import (
	"myclaw/internal/apptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMCPToolThroughHeadless: the model calls an MCP tool; its schema is
// enforced, it runs without asking because a rule allows the server (its
// readOnlyHint alone would not: the server is not trusted), and its output
// comes back fenced.
func TestMCPToolThroughHeadless(t *testing.T) {
	e := newEnv(t, func(first string, round int) (string, []scriptCall) {
		if round == 0 {
			return "", []scriptCall{{Name: "t__shout", Args: `{"text":"hi"}`}, {Name: "t__shout", Args: `{"txt":"no"}`}}
		}
		return "Shouted.", nil
	})
	apptest.MCPConfig(t, e.Config, "", true)
	out, errOut, code := e.myclaw(nil, "-p", "shout", "--model", "test-model")
	if code != 0 || !strings.Contains(out, "Shouted.") {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
	results := e.Srv.ToolResults()
	if len(results) != 2 {
		t.Fatalf("tool results %q", results)
	}
	if !strings.Contains(results[0], "HI!") || !strings.Contains(results[0], `<untrusted source="mcp:t/shout"`) || strings.Count(results[0], "</untrusted>") != 1 {
		t.Fatalf("MCP result not fenced as expected: %s", results[0])
	}
	if !strings.Contains(results[1], "invalid_args") || !strings.Contains(results[1], "text") {
		t.Fatalf("schema not enforced: %s", results[1])
	}
}

// TestHeadlessDeclinesSampling: a server with sampling = true asks to use
// the model in a headless run: the request is declined, the call fails
// saying so, and the audit log records who declined.
func TestHeadlessDeclinesSampling(t *testing.T) {
	e := newEnv(t, func(first string, round int) (string, []scriptCall) {
		if round == 0 {
			return "", []scriptCall{{Name: "t__sample", Args: `{}`}}
		}
		return "Done.", nil
	})
	apptest.MCPConfig(t, e.Config, "sampling = true\n", true)
	out, errOut, code := e.myclaw(nil, "-p", "sample", "--model", "test-model")
	if code != 0 || !strings.Contains(out, "Done.") {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
	results := e.Srv.ToolResults()
	if len(results) != 1 || !strings.Contains(results[0], "declined the sampling request") {
		t.Fatalf("tool results %q; want the sampling declined", results)
	}
	e.Srv.Mu.Lock()
	n := len(e.Srv.Bodies)
	e.Srv.Mu.Unlock()
	if n != 2 {
		t.Errorf("the model server got %d requests; want 2 (the sampling request never reached it)", n)
	}
	audit, err := os.ReadFile(filepath.Join(e.State, "myclaw", "approvals.jsonl"))
	if err != nil || !strings.Contains(string(audit), `"tool":"mcp:t/sampling"`) || !strings.Contains(string(audit), `"decision":"deny","by":"headless"`) {
		t.Errorf("audit log %s, %v; want the declined sampling request", audit, err)
	}
}
