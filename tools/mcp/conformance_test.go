package mcp

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"myclaw/internal/mcptest"
	"myclaw/tools"
)

// The official MCP conformance suite, client scenarios, run against the
// Manager when MYCLAW_CONFORMANCE=1 (see mcptest.Conformance for what it
// installs); the test skips, saying why, without npm or network.

// conformanceClientEnv makes the test binary the client under test.
const conformanceClientEnv = "MYCLAW_CONFORMANCE_CLIENT"

func conformanceTools(t *testing.T) (node, cli string) {
	t.Helper()
	node, cli, skip := mcptest.Conformance()
	if skip != "" {
		t.Skip(skip)
	}
	return node, cli
}

func TestConformanceSuite(t *testing.T) {
	if os.Getenv("MYCLAW_CONFORMANCE") == "" {
		// About two minutes on a loaded machine, plus an npm install the
		// first time: too long for every go test ./....
		t.Skip("the MCP conformance suite runs with MYCLAW_CONFORMANCE=1 (it installs @modelcontextprotocol/conformance, and Node 22 if needed, with npm)")
	}
	node, cli := conformanceTools(t)
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	client := filepath.Join(dir, "client.sh")
	script := fmt.Sprintf("#!/bin/sh\n%s=1 exec %q -test.run='^TestConformanceClient$' -- \"$@\"\n", conformanceClientEnv, self)
	if err := os.WriteFile(client, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	mcptest.RunScenarios(t, mcptest.Run{
		Node: node, CLI: cli, Client: client, Dir: dir,
		Slots: 4, Timeout: 3 * time.Minute, ClientTimeout: "60000", Shown: 3000,
	})
}

// TestConformanceClient is not a test: re-executed by the suite (through
// client.sh), the test binary is the client under test. It runs the
// Manager as myclaw does, with a person who logs in when asked, opens the
// login URL (the suite's authorization server approves at once) and
// accepts forms with their defaults.
func TestConformanceClient(t *testing.T) {
	if os.Getenv(conformanceClientEnv) == "" {
		t.Skip("the client under test of TestConformanceSuite; runs only when re-executed")
	}
	posArgs := flag.Args()
	if len(posArgs) == 0 {
		t.Fatal("usage: client.sh SERVER_URL")
	}
	serverURL := posArgs[len(posArgs)-1]
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	var cctx map[string]any
	_ = json.Unmarshal([]byte(os.Getenv("MCP_CONFORMANCE_CONTEXT")), &cctx)
	cfg := ServerConfig{Name: "conf", URL: serverURL, Enabled: true, Timeout: 30 * time.Second}
	if id, _ := cctx["client_id"].(string); id != "" {
		secret, _ := cctx["client_secret"].(string)
		cfg.OAuth = &OAuthConfig{ClientID: id, ClientSecret: secret}
	}
	reg := tools.NewRegistry()
	m := NewManager(reg, []ServerConfig{cfg}, t.Logf)
	defer m.Close()
	m.SetOptions(Options{
		Interactive: true,
		Browse: func(u string) error {
			go func() {
				if resp, err := http.Get(u); err == nil {
					resp.Body.Close()
				}
			}()
			return nil
		},
		Elicit: func(_ context.Context, e Elicitation) (ElicitAnswer, error) {
			content := map[string]any{}
			for _, f := range e.Fields {
				if v, err := f.Parse(f.Default); err == nil && v != nil {
					content[f.Name] = v
				}
			}
			return ElicitAnswer{Action: ElicitAccept, Content: content}, nil
		},
	})
	m.Start(context.Background(), nil)
	settled := func(st ServerStatus) bool { return st.State != StateStarting }
	st := waitStatus(t, m, "conf", settled)
	if st.State == StateFailed && (st.Auth == AuthNeeded || st.Auth == AuthExpired) {
		if err := m.Login(context.Background(), "conf"); err != nil {
			t.Fatal(err)
		}
		st = waitStatus(t, m, "conf", settled)
	}
	if st.State != StateRunning {
		t.Fatalf("server: %s: %s", st.State, st.LastError)
	}
	tool, args := "", `{}`
	switch {
	case scenario == "tools_call":
		tool, args = "conf/add_numbers", `{"a":5,"b":3}`
	case scenario == "elicitation-sep1034-client-defaults":
		tool = "conf/test_client_elicitation_defaults"
	case scenario == "sse-retry":
		tool = "conf/test_reconnection"
	case strings.HasPrefix(scenario, "auth/"):
		tool = "conf/test-tool"
	}
	if tool == "" {
		return
	}
	if _, ok := reg.Lookup(tool); !ok {
		t.Fatalf("no tool %s; have %v", tool, names(reg))
	}
	if _, err := call(t, reg, tool, args); err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
}
