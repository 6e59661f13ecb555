package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"myclaw/internal/apptest"
	"myclaw/internal/mcptest"
)

// binaryClientEnv makes the test binary the client under test of
// TestConformanceAuthThroughBinary.
const binaryClientEnv = "MYCLAW_CONFORMANCE_BINARY_CLIENT"

// TestConformanceAuthThroughBinary runs the MCP conformance suite's auth
// scenarios (MYCLAW_CONFORMANCE=1) against myclaw as a user runs it: myclaw
// mcp add, myclaw mcp login with a $BROWSER that follows the URL (the
// suite's authorization server approves at once), then a headless
// myclaw -p whose model calls the server's tool with the stored login. The
// scenarios expected to fail are those the client package fails.
func TestConformanceAuthThroughBinary(t *testing.T) {
	if os.Getenv("MYCLAW_CONFORMANCE") == "" {
		t.Skip("the MCP conformance suite runs with MYCLAW_CONFORMANCE=1 (it installs @modelcontextprotocol/conformance, and Node 22 if needed, with npm)")
	}
	node, cli, skip := mcptest.Conformance()
	if skip != "" {
		t.Skip(skip)
	}
	dir := t.TempDir()
	client := filepath.Join(dir, "client.sh")
	script := fmt.Sprintf("#!/bin/sh\n%s=1 exec %q -test.run='^TestConformanceBinaryClient$' -- \"$@\"\n", binaryClientEnv, os.Args[0])
	if err := os.WriteFile(client, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	mcptest.RunScenarios(t, mcptest.Run{
		Node: node, CLI: cli, Client: client, Dir: dir,
		Only:  func(name string) bool { return strings.HasPrefix(name, "auth/") },
		Slots: 3, Timeout: 4 * time.Minute, ClientTimeout: "120000", Shown: 4000,
	})
}

// TestConformanceBinaryClient is not a test: re-executed by the suite
// (through client.sh), it is the client under test, running myclaw the
// way a person would.
func TestConformanceBinaryClient(t *testing.T) {
	if os.Getenv(binaryClientEnv) == "" {
		t.Skip("the client under test of TestConformanceAuthThroughBinary; runs only when re-executed")
	}
	if len(flag.Args()) == 0 {
		t.Fatal("usage: client.sh SERVER_URL")
	}
	serverURL := flag.Args()[len(flag.Args())-1]
	var cctx map[string]any
	_ = json.Unmarshal([]byte(os.Getenv("MCP_CONFORMANCE_CONTEXT")), &cctx)
	e := newEnv(t, func(first string, round int) (string, []scriptCall) {
		if round == 0 {
			return "", []scriptCall{{Name: "conf__test-tool", Args: `{}`}}
		}
		return "Called.", nil
	})
	cfg := filepath.Join(e.Config, "myclaw", "config.toml")
	os.MkdirAll(filepath.Dir(cfg), 0o700)
	os.WriteFile(cfg, []byte("[[approval.rules]]\ntool = \"conf/*\"\ndecision = \"allow\"\n"), 0o600)
	add := []string{"mcp", "add", "conf", "--url", serverURL}
	var extra []string
	if id, _ := cctx["client_id"].(string); id != "" {
		add = append(add, "--client-id", id)
		if secret, _ := cctx["client_secret"].(string); secret != "" {
			add = append(add, "--client-secret-env", "CONF_CLIENT_SECRET")
			extra = append(extra, "CONF_CLIENT_SECRET="+secret)
		}
	}
	if out, errOut, code := e.myclaw(extra, add...); code != 0 {
		t.Fatalf("mcp add: %d %s %s", code, out, errOut)
	}
	out, errOut, code := e.myclaw(append(extra, "BROWSER="+apptest.BrowserScript(t)), "mcp", "login", "conf")
	if code != 0 {
		t.Fatalf("mcp login: %d %s %s", code, out, errOut)
	}
	t.Logf("mcp login: %s", out)
	out, errOut, code = e.myclaw(extra, "-p", "call the tool", "--model", "test-model")
	if code != 0 || !strings.Contains(out, "Called.") {
		t.Fatalf("headless: %d %s %s", code, out, errOut)
	}
	res := e.Srv.ToolResults()
	if len(res) != 1 || strings.Contains(res[0], `"error"`) || strings.Contains(res[0], "refused the call") {
		t.Fatalf("tool results %q; want the tool's answer", res)
	}
}
