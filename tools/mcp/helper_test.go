package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"myclaw/internal/proctest"
	"myclaw/tools"
)

// helperModeEnv makes the test binary act as a stdio MCP server (see
// TestHelperMCPServer); its value picks the behaviour.
const helperModeEnv = "MYCLAW_TEST_MCP_HELPER"

// helperDirEnv names a directory where the helper leaves marker files.
const helperDirEnv = "MYCLAW_TEST_MCP_DIR"

// TestHelperMCPServer is not a test: re-executed with helperModeEnv set, the
// test binary becomes a stdio MCP server for the Manager tests.
//
// Modes: "serve" (echo, env, crash, block), "mute" (never answers and
// ignores SIGTERM), "family" (serve, plus a grandchild in its process group;
// both pids go to DIR/pids).
func TestHelperMCPServer(t *testing.T) {
	mode := os.Getenv(helperModeEnv)
	if mode == "" {
		t.Skip("helper process for the stdio tests; runs only when re-executed")
	}
	dir := os.Getenv(helperDirEnv)
	pids := strconv.Itoa(os.Getpid())
	if mode == "family" {
		child := exec.Command("sleep", "300")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "start grandchild:", err)
			os.Exit(2)
		}
		pids += " " + strconv.Itoa(child.Process.Pid)
	}
	// Written then renamed, so that a reader never sees half of it.
	if err := os.WriteFile(filepath.Join(dir, "pids.tmp"), []byte(pids), 0o600); err != nil {
		os.Exit(2)
	}
	if err := os.Rename(filepath.Join(dir, "pids.tmp"), filepath.Join(dir, "pids")); err != nil {
		os.Exit(2)
	}
	if mode == "mute" {
		signal.Ignore(syscall.SIGTERM)
		_, _ = io.Copy(io.Discard, os.Stdin)
		for {
			time.Sleep(time.Hour)
		}
	}
	if mode == "banner" {
		// What real servers do: a banner and a log line on stdout.
		fmt.Println("Starting helper MCP server v1 (stdio)...")
		fmt.Println(`{"level":"info","msg":"listening on stdio"}`)
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "helper", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{
		Name: "huge", Description: "Return 50 MB of text.",
		InputSchema: json.RawMessage(`{"type":"object"}`),
	}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "BEGIN " + strings.Repeat("x", 50<<20)}}}, nil
	})
	s.AddTool(&sdk.Tool{
		Name: "chatty", Description: "Print a log line on stdout, then answer.",
		InputSchema: json.RawMessage(`{"type":"object"}`),
	}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		fmt.Println("chatty: handling a call")
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "said it"}}}, nil
	})
	s.AddTool(&sdk.Tool{
		Name: "echo", Description: "Echo the text back.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
	}, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var in struct{ Text string }
		_ = json.Unmarshal(req.Params.Arguments, &in)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Text}}}, nil
	})
	s.AddTool(&sdk.Tool{
		Name: "env", Description: "Return an environment variable.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
	}, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var in struct{ Name string }
		_ = json.Unmarshal(req.Params.Arguments, &in)
		v, ok := os.LookupEnv(in.Name)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strconv.FormatBool(ok) + ":" + v}}}, nil
	})
	s.AddTool(&sdk.Tool{
		Name: "crash", Description: "Exit at once.",
		InputSchema: json.RawMessage(`{"type":"object"}`),
	}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		fmt.Fprintln(os.Stderr, "fatal: simulated crash")
		os.Exit(3)
		return nil, nil
	})
	s.AddTool(&sdk.Tool{
		Name: "block", Description: "Never return.",
		InputSchema: json.RawMessage(`{"type":"object"}`),
	}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		_ = os.WriteFile(filepath.Join(dir, "blocking"), nil, 0o600)
		for {
			time.Sleep(time.Hour)
		}
	})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
	}
	os.Exit(0)
}

// helperConfig is a ServerConfig that runs the test binary as a server.
func helperConfig(t *testing.T, name, mode string, timeout time.Duration) (ServerConfig, string) {
	t.Helper()
	dir := t.TempDir()
	return ServerConfig{
		Name:    name,
		Command: os.Args[0],
		Args:    []string{"-test.run=^TestHelperMCPServer$"},
		Env:     map[string]string{helperModeEnv: mode, helperDirEnv: dir},
		Enabled: true,
		Timeout: timeout,
		Dir:     dir,
	}, dir
}

// newTestManager returns a manager with a short grace period, closed at the
// end of the test.
func newTestManager(t *testing.T, reg *tools.Registry, servers ...ServerConfig) *Manager {
	t.Helper()
	m := NewManager(reg, servers, t.Logf)
	m.grace = 200 * time.Millisecond
	t.Cleanup(func() { m.Close() })
	return m
}

// inMemory makes m reach srv (for every config) through in-memory transports.
func inMemory(t *testing.T, m *Manager, srv *sdk.Server) {
	t.Helper()
	m.dial = func(ServerConfig) (sdk.Transport, error) {
		ct, st := sdk.NewInMemoryTransports()
		// The server session ends when the client closes the connection.
		if _, err := srv.Connect(context.Background(), st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}
}

// waitStatus polls until the named server satisfies ok, failing the test
// after a generous bound (no timing is asserted: the bound only stops a hung
// test).
func waitStatus(t *testing.T, m *Manager, name string, ok func(ServerStatus) bool) ServerStatus {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		for _, st := range m.Status() {
			if st.Name == name && ok(st) {
				return st
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server %s never reached the expected state; status: %+v", name, m.Status())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func inState(want State) func(ServerStatus) bool {
	return func(st ServerStatus) bool { return st.State == want }
}

// call validates args through the registry and executes the tool, as the
// agent does.
func call(t *testing.T, reg *tools.Registry, name, args string) (tools.Result, error) {
	t.Helper()
	tool, ok := reg.Lookup(name)
	if !ok {
		t.Fatalf("tool %s is not registered; have %v", name, names(reg))
	}
	canon, verr := reg.Validate(name, json.RawMessage(args))
	if verr != nil {
		return tools.Result{}, verr
	}
	return tools.Call(context.Background(), tool, canon, false)
}

func names(reg *tools.Registry) []string {
	var out []string
	for _, tl := range reg.List() {
		out = append(out, tl.Meta().Name)
	}
	return out
}

// alive reports whether pid is a live (not zombie) process.
var alive = proctest.Alive

// runServer runs srv in process as the server of cfg and waits until it
// runs; it returns the registry its tools are in.
func runServer(t *testing.T, srv *sdk.Server, cfg ServerConfig) *tools.Registry {
	t.Helper()
	reg := tools.NewRegistry()
	m := newTestManager(t, reg, cfg)
	inMemory(t, m, srv)
	m.Start(context.Background(), nil)
	waitStatus(t, m, cfg.Name, inState(StateRunning))
	return reg
}
