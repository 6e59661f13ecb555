package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"myclaw/internal/apptest"
	"myclaw/internal/mcptest"
)

// TestMCPAddListRemove: a stdio server added from the shell is listed
// running with its tools, is used by a headless run, and removing it gives
// the config back byte for byte; a project server is listed but not
// started until the folder is trusted.
func TestMCPAddListRemove(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (runs the binary and its servers many times): left out of the quick -short run")
	}
	e := newEnv(t, func(first string, round int) (string, []scriptCall) {
		if strings.Contains(first, "shout") && round == 0 {
			return "", []scriptCall{{Name: "t__shout", Args: `{"text":"hi"}`}}
		}
		return "Done.", nil
	})
	cfgPath := filepath.Join(e.Config, "myclaw", "config.toml")
	os.MkdirAll(filepath.Dir(cfgPath), 0o700)
	orig := "# my settings\nmodel = \"test-model\"\n\n[[approval.rules]]\ntool = \"t/*\"\ndecision = \"allow\" # the test server\n"
	os.WriteFile(cfgPath, []byte(orig), 0o600)

	out, errOut, code := e.myclaw(nil, "mcp", "list")
	if code != 0 || !strings.Contains(out, "No MCP servers are configured") {
		t.Fatalf("empty list: code %d, %q %q", code, out, errOut)
	}
	out, errOut, code = e.myclaw(nil, "mcp", "add", "--env", "MYCLAW_TEST_MCP_SERVER=1", "t", "--", os.Args[0], "-test.run=^$")
	if code != 0 || !strings.Contains(out, "Added MCP server t to "+cfgPath) {
		t.Fatalf("add: code %d, %q %q", code, out, errOut)
	}
	got, _ := os.ReadFile(cfgPath)
	if !strings.HasPrefix(string(got), orig) || !strings.Contains(string(got), "[mcp.servers.t]\ncommand = ") {
		t.Fatalf("config after add:\n%s", got)
	}
	_, errOut, code = e.myclaw(nil, "mcp", "add", "t", "--url", "http://127.0.0.1:1/mcp")
	if code != 1 || !strings.Contains(errOut, `already declares an MCP server named "t"`) {
		t.Fatalf("duplicate: code %d, %q", code, errOut)
	}
	for _, args := range [][]string{
		{"mcp", "add", "bad/name", "--url", "http://127.0.0.1:1/mcp"},
		{"mcp", "add", "x"},
		{"mcp", "add", "x", "--url", "ftp://h/"},
		{"mcp", "add", "x", "--url", "http://h/", "--", "cmd"},
		{"mcp", "add", "x", "--header", "novalue", "--url", "http://h/"},
		{"mcp", "add", "x", "y", "--url", "http://h/"},
		{"mcp", "frob"},
		{"mcp", "list", "extra"},
	} {
		if _, errOut, code := e.myclaw(nil, args...); code != 2 || !strings.Contains(errOut, "myclaw: mcp") {
			t.Errorf("%v: code %d, %q; want a usage error", args, code, errOut)
		}
	}
	if got2, _ := os.ReadFile(cfgPath); string(got2) != string(got) {
		t.Fatalf("a refused add changed the config:\n%s", got2)
	}

	out, errOut, code = e.myclaw(nil, "mcp", "list")
	if code != 0 || !regexp.MustCompile(`(?m)^t\s+user\s+running\s+[1-9]\d*\s+-\s*$`).MatchString(out) {
		t.Fatalf("list: code %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = e.myclaw(nil, "-p", "shout", "--model", "test-model")
	if code != 0 || !strings.Contains(out, "Done.") {
		t.Fatalf("headless: code %d, %q %q", code, out, errOut)
	}
	if res := e.Srv.ToolResults(); len(res) != 1 || !strings.Contains(res[0], "HI!") {
		t.Fatalf("tool results %q; want the server's shout", res)
	}
	_, errOut, code = e.myclaw(nil, "mcp", "login", "t")
	if code != 1 || !strings.Contains(errOut, "local command: it has no login") {
		t.Errorf("login to a stdio server: code %d, %q", code, errOut)
	}

	out, errOut, code = e.myclaw(nil, "mcp", "remove", "t")
	if code != 0 || !strings.Contains(out, "Removed MCP server t") {
		t.Fatalf("remove: code %d, %q %q", code, out, errOut)
	}
	if got, _ := os.ReadFile(cfgPath); string(got) != orig {
		t.Fatalf("config after remove:\n%q\nwant\n%q", got, orig)
	}
	if _, errOut, code = e.myclaw(nil, "mcp", "remove", "t"); code != 1 || !strings.Contains(errOut, `No MCP server "t"`) {
		t.Fatalf("remove again: code %d, %q", code, errOut)
	}
	// A disabled server is listed, not started.
	os.WriteFile(cfgPath, []byte(orig+"\n[mcp.servers.off]\ncommand = \"/nonexistent/server\"\nenabled = false\n"), 0o600)
	if out, _, _ = e.myclaw(nil, "mcp", "list"); !regexp.MustCompile(`(?m)^off\s+user\s+disabled\s+-\s+-\s*$`).MatchString(out) {
		t.Fatalf("list with a disabled server:\n%s", out)
	}
	os.WriteFile(cfgPath, []byte(orig), 0o600)

	// The project's config: written in the workspace, listed but not
	// started while the folder is not trusted.
	out, errOut, code = e.myclaw(nil, "mcp", "add", "--project", "p", "--env", "MYCLAW_TEST_MCP_SERVER=1", "--", os.Args[0], "-test.run=^$")
	if code != 0 || !strings.Contains(out, "not trusted") {
		t.Fatalf("add --project: code %d, %q %q", code, out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(e.WS, ".myclaw.toml")); err != nil || !strings.Contains(string(b), "[mcp.servers.p]") {
		t.Fatalf("project config: %q, %v", b, err)
	}
	out, _, _ = e.myclaw(nil, "mcp", "list")
	if !regexp.MustCompile(`(?m)^p\s+project\s+not loaded \(folder not trusted\)`).MatchString(out) {
		t.Fatalf("list with an untrusted project server:\n%s", out)
	}
	if _, errOut, code = e.myclaw(nil, "mcp", "remove", "p"); code != 1 || !strings.Contains(errOut, "mcp remove --project p") {
		t.Fatalf("remove without --project: code %d, %q", code, errOut)
	}
	// Trusted, myclaw's own edits keep it trusted.
	e.myclaw(nil, "-p", "hello", "--model", "test-model", "--trust")
	e.myclaw(nil, "mcp", "add", "--project", "q", "--env", "MYCLAW_TEST_MCP_SERVER=1", "--", os.Args[0], "-test.run=^$")
	out, _, _ = e.myclaw(nil, "mcp", "list")
	if !regexp.MustCompile(`(?m)^p\s+project\s+running`).MatchString(out) || !regexp.MustCompile(`(?m)^q\s+project\s+running`).MatchString(out) {
		t.Fatalf("list with a trusted project:\n%s", out)
	}
	if out, errOut, code = e.myclaw(nil, "mcp", "remove", "--project", "p"); code != 0 {
		t.Fatalf("remove --project: code %d, %q %q", code, out, errOut)
	}
	if _, errOut, _ = e.myclaw(nil, "-p", "hello", "--model", "test-model"); strings.Contains(errOut, "Ignored .myclaw.toml") {
		t.Fatalf("the folder is no longer trusted after myclaw edited its config: %q", errOut)
	}
}

// echoServer is an MCP server with one tool, echo.
func echoServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "echo", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "echo", Description: "Echo text.", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct{ Text string }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Text}}}, nil
		})
	return s
}

// TestMCPLoginThenHeadless: a server behind OAuth, on loopback. Headless
// runs cannot log in and say how to; myclaw mcp login logs in through
// $BROWSER; a headless run then uses the stored login; logout forgets it.
func TestMCPLoginThenHeadless(t *testing.T) {
	f := mcptest.NewOAuth(t, echoServer())
	e := newEnv(t, func(first string, round int) (string, []scriptCall) {
		if round == 0 {
			return "", []scriptCall{{Name: "web__echo", Args: `{"text":"hi"}`}}
		}
		return "Echoed.", nil
	})
	cfgPath := filepath.Join(e.Config, "myclaw", "config.toml")
	os.MkdirAll(filepath.Dir(cfgPath), 0o700)
	os.WriteFile(cfgPath, []byte("[[approval.rules]]\ntool = \"web/*\"\ndecision = \"allow\"\n"), 0o600)
	if out, errOut, code := e.myclaw(nil, "mcp", "add", "web", "--url", f.RS.URL+"/mcp"); code != 0 || !strings.Contains(out, "myclaw mcp login web") {
		t.Fatalf("add: code %d, %q %q", code, out, errOut)
	}
	out, _, _ := e.myclaw(nil, "mcp", "list")
	if !regexp.MustCompile(`(?m)^web\s+user\s+failed\s+-\s+login needed \(myclaw mcp login web\)`).MatchString(out) {
		t.Fatalf("list before login:\n%s", out)
	}
	_, errOut, _ := e.myclaw(nil, "-p", "echo", "--model", "test-model")
	if !strings.Contains(errOut, "MCP server web is not logged in") || !strings.Contains(errOut, "myclaw mcp login web") {
		t.Fatalf("headless before login: %q", errOut)
	}

	browser := apptest.BrowserScript(t)
	out, errOut, code := e.myclaw([]string{"BROWSER=" + browser}, "mcp", "login", "web")
	if code != 0 || !strings.Contains(out, "Logged in to MCP server web (1 tool)") || !strings.Contains(errOut, "open this URL") || !strings.Contains(errOut, f.AS.URL+"/authorize?") {
		t.Fatalf("login: code %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	tokenFile := filepath.Join(e.State, "myclaw", "mcp-auth", "web.json")
	if fi, err := os.Stat(tokenFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("stored login: %v %v", fi, err)
	}
	out, _, _ = e.myclaw(nil, "mcp", "list")
	if !regexp.MustCompile(`(?m)^web\s+user\s+running\s+1\s+logged in\s*$`).MatchString(out) {
		t.Fatalf("list after login:\n%s", out)
	}
	out, errOut, code = e.myclaw(nil, "-p", "echo", "--model", "test-model")
	if code != 0 || !strings.Contains(out, "Echoed.") {
		t.Fatalf("headless after login: code %d, %q %q", code, out, errOut)
	}
	if res := e.Srv.ToolResults(); len(res) == 0 || !strings.Contains(res[len(res)-1], "echo: hi") {
		t.Fatalf("tool results %q; want the server's echo", res)
	}

	out, _, code = e.myclaw(nil, "mcp", "logout", "web")
	if code != 0 || !strings.Contains(out, "Logged out of MCP server web") {
		t.Fatalf("logout: code %d, %q", code, out)
	}
	if _, err := os.Stat(tokenFile); !os.IsNotExist(err) {
		t.Fatalf("token file after logout: %v", err)
	}
	if out, _, _ = e.myclaw(nil, "mcp", "logout", "web"); !strings.Contains(out, "has no stored login") {
		t.Errorf("second logout: %q", out)
	}
	out, _, _ = e.myclaw(nil, "mcp", "list")
	if !strings.Contains(out, "login needed") {
		t.Fatalf("list after logout:\n%s", out)
	}
}

// TestMCPLoginOverSSH: no display and no $BROWSER, as over SSH: the URL is
// printed, the browser (elsewhere) cannot reach the loopback redirect, and
// the address it ended on, pasted, completes the login. A wrong paste is
// refused and the login goes on waiting.
func TestMCPLoginOverSSH(t *testing.T) {
	f := mcptest.NewOAuth(t, echoServer())
	e := newEnv(t, writeNote)
	if _, errOut, code := e.myclaw(nil, "mcp", "add", "web", "--url", f.RS.URL+"/mcp"); code != 0 {
		t.Fatalf("add: %q", errOut)
	}
	cmd := exec.Command(os.Args[0], "mcp", "login", "web")
	cmd.Env = append(e.Vars(), "MYCLAW_TEST_AS_MAIN=1")
	cmd.Dir = e.WS
	stdin, _ := cmd.StdinPipe()
	stderr, _ := cmd.StderrPipe()
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stderr)
	var authURL string
	var said strings.Builder
	for sc.Scan() {
		said.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), f.AS.URL+"/authorize?") {
			authURL = sc.Text()
		}
		if strings.Contains(sc.Text(), "paste that page's address here") {
			break
		}
	}
	if authURL == "" || !strings.Contains(said.String(), "no graphical display") {
		t.Fatalf("login said %q; want the URL and why no browser opened", said.String())
	}
	// The browser elsewhere: it follows the URL to a redirect it cannot load.
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	back := resp.Header.Get("Location")
	if !strings.HasPrefix(back, "http://127.0.0.1:") {
		t.Fatalf("redirect %q", back)
	}
	io.WriteString(stdin, "http://example.com/callback?code=x\n")
	sc.Scan()
	if !strings.Contains(sc.Text(), "not the address of this login's redirect") {
		t.Errorf("a wrong paste: %q", sc.Text())
	}
	io.WriteString(stdin, back+"\n")
	go io.Copy(io.Discard, stderr)
	if err := cmd.Wait(); err != nil || !strings.Contains(out.String(), "Logged in to MCP server web") {
		t.Fatalf("login: %v, %q", err, out.String())
	}
	stdin.Close()
}
