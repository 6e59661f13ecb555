package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigCredentialsStayOutOfChildrenAndOutput: keys the config names
// under names no heuristic knows (api_key_env = "LLM_AUTH", an MCP header's
// ${MCP_HDR}, an MCP env's ${MCP_ENV_SECRET}) and a stored MCP OAuth token
// (here also exported under an innocent name) reach no shell command's
// environment, and what a command prints of them, or an MCP server of the
// value it was given, is redacted in the result, the JSON output, the
// transcript and the audit log. The configured MCP server still gets its
// own env value.
func TestConfigCredentialsStayOutOfChildrenAndOutput(t *testing.T) {
	const (
		llmKey    = "llm-auth-key-0b5d9e27c1"
		hdrKey    = "mcp-header-token-71ac03"
		envKey    = "mcp-env-secret-9d2e44"
		oauthTok  = "oauth-access-token-5f8a61"
		oauthRefr = "oauth-refresh-token-c3b9e0"
	)
	all := []string{llmKey, hdrKey, envKey, oauthTok, oauthRefr}
	cmd := `env > env.txt; tr '\0' '\n' < /proc/$PPID/environ >> env.txt; env; cat printed.txt`
	e := newEnv(t, func(first string, round int) (string, []scriptCall) {
		if round == 0 {
			args, _ := json.Marshal(map[string]string{"command": cmd})
			return "", []scriptCall{{Name: "shell_run", Args: string(args)}, {Name: "t__getenv", Args: `{"name":"SERVER_ONLY"}`}}
		}
		return "Done.", nil
	})
	cfg := fmt.Sprintf(`provider = "p"

[providers.p]
base_url = %q
model = "test-model"
api_key_env = "LLM_AUTH"

[mcp.servers.t]
command = %q
env = { MYCLAW_TEST_MCP_SERVER = "1", SERVER_ONLY = "${MCP_ENV_SECRET}" }
timeout_s = 20

[mcp.servers.hdr]
url = "http://127.0.0.1:1/mcp"
headers = { Authorization = "Bearer ${MCP_HDR}" }

[mcp.servers.remote]
url = "http://127.0.0.1:1/remote"

[[approval.rules]]
tool = "t/*"
decision = "allow"
`, e.Srv.HTTP.URL+"/v1", os.Args[0])
	os.MkdirAll(filepath.Join(e.Config, "myclaw"), 0o700)
	if err := os.WriteFile(filepath.Join(e.Config, "myclaw", "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	auth := filepath.Join(e.State, "myclaw", "mcp-auth")
	os.MkdirAll(auth, 0o700)
	login := fmt.Sprintf(`{"server_url":"http://127.0.0.1:1/remote","resource":"http://127.0.0.1:1/remote","client_id":"c","token_url":"http://127.0.0.1:1/token","token":{"access_token":%q,"refresh_token":%q,"token_type":"Bearer"}}`, oauthTok, oauthRefr)
	if err := os.WriteFile(filepath.Join(auth, "remote.json"), []byte(login), 0o600); err != nil {
		t.Fatal(err)
	}
	// A command prints them plainly (no encoding): the output is redacted.
	os.WriteFile(filepath.Join(e.WS, "printed.txt"), []byte(strings.Join(all, "\n")+"\n"), 0o644)

	out, errOut, code := e.myclaw([]string{"LLM_AUTH=" + llmKey, "MCP_HDR=" + hdrKey, "MCP_ENV_SECRET=" + envKey, "INNOCENT_NAME=" + oauthTok},
		"-p", "run env", "--output", "json", "--autonomy", "full")
	if code != 0 || !strings.Contains(out, "Done.") {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
	e.Srv.Mu.Lock()
	gotAuth := e.Srv.Auths[0]
	e.Srv.Mu.Unlock()
	if gotAuth != "Bearer "+llmKey {
		t.Fatalf("the model server got Authorization %q; want the key of LLM_AUTH", gotAuth)
	}
	childEnv, err := os.ReadFile(filepath.Join(e.WS, "env.txt"))
	if err != nil || !strings.Contains(string(childEnv), "PATH=") {
		t.Fatalf("the command's environment was not written: %v %q", err, childEnv)
	}
	results := e.Srv.ToolResults()
	if len(results) != 2 {
		t.Fatalf("tool results %q", results)
	}
	if n := strings.Count(results[0], "[redacted]"); n < len(all) {
		t.Errorf("shell result has %d [redacted]; want at least %d (cat printed.txt): %s", n, len(all), results[0])
	}
	if !strings.Contains(results[1], "SERVER_ONLY=[redacted]") {
		t.Errorf("MCP result %s; want SERVER_ONLY set in the server (and redacted)", results[1])
	}
	for _, v := range all {
		if strings.Contains(string(childEnv), v) {
			t.Errorf("%s reached the command's environment:\n%s", v, childEnv)
		}
		for what, s := range map[string]string{"shell result": results[0], "MCP result": results[1], "JSON output": out, "stderr": errOut} {
			if strings.Contains(s, v) {
				t.Errorf("%s shows %s:\n%s", what, v, s)
			}
		}
	}
	// Nothing myclaw stored (transcript, audit log, journal, log) holds
	// them, except the login file that is there to hold the token.
	filepath.WalkDir(filepath.Join(e.State, "myclaw"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Dir(path) == auth {
			return nil
		}
		b, _ := os.ReadFile(path)
		for _, v := range all {
			if strings.Contains(string(b), v) {
				t.Errorf("%s holds %s", path, v)
			}
		}
		return nil
	})
}
