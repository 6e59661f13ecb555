package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"myclaw/tools"
)

const longToolName = "a_tool_name_that_goes_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_past_128_bytes"

func boolp(b bool) *bool { return &b }

// testServer is an in-process server with tools that cover the mapping.
func testServer(t *testing.T) *sdk.Server {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	echoSchema := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","maxLength":20}},"required":["text"],"additionalProperties":false}`)
	s.AddTool(&sdk.Tool{Name: "echo", Description: "Echo text.", InputSchema: echoSchema,
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct{ Text string }
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			return &sdk.CallToolResult{
				Content:           []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Text}},
				StructuredContent: map[string]any{"echoed": in.Text},
			}, nil
		})
	obj := json.RawMessage(`{"type":"object"}`)
	for _, tl := range []*sdk.Tool{
		{Name: "write.file v2", InputSchema: obj, Annotations: &sdk.ToolAnnotations{DestructiveHint: boolp(false), IdempotentHint: true}},
		{Name: "write file", InputSchema: obj, Annotations: &sdk.ToolAnnotations{DestructiveHint: boolp(false)}},
		{Name: "write_file", InputSchema: obj, Annotations: &sdk.ToolAnnotations{DestructiveHint: boolp(false), IdempotentHint: true}},
		{Name: "delete", InputSchema: obj, Annotations: &sdk.ToolAnnotations{DestructiveHint: boolp(true)}},
		{Name: "plain", InputSchema: obj},
		{Name: "日本語ツール", InputSchema: obj, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		{Name: "-._", InputSchema: obj},
		{Name: longToolName, InputSchema: obj},
		{Name: "bad_schema", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"bogus"}}}`)},
	} {
		name := tl.Name
		s.AddTool(tl, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text("called " + name + " with " + string(req.Params.Arguments)), nil
		})
	}
	s.AddTool(&sdk.Tool{Name: "fail", InputSchema: obj},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "boom: disk on fire"}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "media", InputSchema: obj, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "a picture:"},
				&sdk.ImageContent{Data: make([]byte, 12<<10), MIMEType: "image/png"},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.txt", Text: "inside"}},
			}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "structured", InputSchema: obj, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: map[string]any{"n": 1}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "big", InputSchema: obj, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text(strings.Repeat("x", maxBody+100)), nil
		})
	s.AddTool(&sdk.Tool{Name: "hang", InputSchema: obj, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	return s
}

func startInMemory(t *testing.T, cfg ServerConfig) (*Manager, *tools.Registry, *sdk.Server) {
	t.Helper()
	reg := tools.NewRegistry()
	srv := testServer(t)
	m := newTestManager(t, reg, cfg)
	inMemory(t, m, srv)
	m.Start(context.Background(), nil)
	waitStatus(t, m, cfg.Name, inState(StateRunning))
	return m, reg, srv
}

func TestToolsMapped(t *testing.T) {
	m, reg, _ := startInMemory(t, ServerConfig{Name: "srv", Enabled: true, Command: "unused", Timeout: 30 * time.Second})
	st := waitStatus(t, m, "srv", inState(StateRunning))

	longDisplay := "srv/" + longToolName[:128-len("srv/")]
	tests := []struct {
		name       string
		display    string
		readOnly   bool
		risk       tools.Risk
		idempotent bool
	}{
		// The server is not trusted: its hints are claims, not facts.
		{"read-only", "srv/echo", false, tools.RiskMedium, false},
		{"dots and spaces", "srv/write.file_v2", false, tools.RiskMedium, false},
		{"clean name keeps it despite a sanitised one", "srv/write_file", false, tools.RiskMedium, false},
		{"sanitised name colliding", "srv/write_file_" + hashTag("write file"), false, tools.RiskMedium, false},
		{"destructive", "srv/delete", false, tools.RiskHigh, false},
		{"no annotations", "srv/plain", false, tools.RiskHigh, false},
		{"unicode", "srv/tool_" + hashTag("日本語ツール"), false, tools.RiskMedium, false},
		{"punctuation only", "srv/tool_" + hashTag("-._"), false, tools.RiskHigh, false},
		{"very long", longDisplay, false, tools.RiskHigh, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl, ok := reg.Lookup(tc.display)
			if !ok {
				t.Fatalf("got no tool %q; registered: %v", tc.display, names(reg))
			}
			meta := tl.Meta()
			if meta.ReadOnly != tc.readOnly || meta.Risk != tc.risk || meta.Idempotent != tc.idempotent {
				t.Errorf("got read_only=%v risk=%s idempotent=%v; want %v %s %v", meta.ReadOnly, meta.Risk, meta.Idempotent, tc.readOnly, tc.risk, tc.idempotent)
			}
			if meta.Source != tools.SourceMCP || !meta.ReturnsUntrusted || meta.SupportsDryRun {
				t.Errorf("got source=%s untrusted=%v dry_run=%v; want mcp true false", meta.Source, meta.ReturnsUntrusted, meta.SupportsDryRun)
			}
			if meta.Capability != "mcp:"+tc.display {
				t.Errorf("got capability %q; want %q", meta.Capability, "mcp:"+tc.display)
			}
			if meta.Timeout != 30*time.Second {
				t.Errorf("got timeout %s; want 30s", meta.Timeout)
			}
			wire, ok := reg.WireName(tc.display)
			if !ok || len(wire) > 64 || strings.ContainsAny(wire, "/. ") {
				t.Errorf("got wire name %q; want a name matching ^[a-zA-Z0-9_-]{1,64}$", wire)
			}
		})
	}

	if _, ok := reg.Lookup("srv/bad_schema"); ok {
		t.Errorf("got srv/bad_schema registered; want it skipped")
	}
	if len(st.Skipped) != 1 || !strings.Contains(st.Skipped[0], `"bad_schema": register "srv/bad_schema": schema does not compile`) || strings.Contains(st.Skipped[0], "\n") {
		t.Errorf("got skipped %q; want one entry naming bad_schema", st.Skipped)
	}
	if len(st.Tools) != len(reg.List()) {
		t.Errorf("got status tools %v; want the %d registered", st.Tools, len(reg.List()))
	}
}

func TestOriginalNameSentToServer(t *testing.T) {
	_, reg, _ := startInMemory(t, ServerConfig{Name: "srv", Enabled: true, Command: "unused"})
	tests := []struct{ display, original string }{
		{"srv/write.file_v2", "write.file v2"},
		{"srv/write_file_" + hashTag("write file"), "write file"},
		{"srv/write_file", "write_file"},
		{"srv/tool_" + hashTag("日本語ツール"), "日本語ツール"},
		{"srv/" + longToolName[:124], longToolName},
	}
	for _, tc := range tests {
		t.Run(tc.original, func(t *testing.T) {
			res, err := call(t, reg, tc.display, `{"k":1}`)
			if err != nil {
				t.Fatalf("got error %v; want success", err)
			}
			if want := "called " + tc.original + ` with {"k":1}`; res.Body != want {
				t.Errorf("got body %q; want %q", res.Body, want)
			}
		})
	}
}

func TestSchemaEnforced(t *testing.T) {
	_, reg, _ := startInMemory(t, ServerConfig{Name: "srv", Enabled: true, Command: "unused"})
	tests := []struct {
		name, args, field string
	}{
		{"wrong type", `{"text":5}`, "/text"},
		{"missing required", `{}`, "/"},
		{"unknown property", `{"text":"hi","extra":1}`, "/"},
		{"too long", `{"text":"` + strings.Repeat("y", 21) + `"}`, "/text"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, verr := reg.Validate("srv/echo", json.RawMessage(tc.args))
			if verr == nil || verr.Kind != tools.KindInvalidArgs {
				t.Fatalf("got %v; want an invalid_args error", verr)
			}
			if !strings.Contains(verr.Message, tc.field+":") {
				t.Errorf("got message %q; want it to name %s", verr.Message, tc.field)
			}
		})
	}
	if _, verr := reg.Validate("srv/echo", json.RawMessage(`{"text":"ok"}`)); verr != nil {
		t.Errorf("got %v for valid arguments; want nil", verr)
	}
}

func TestCallResults(t *testing.T) {
	_, reg, _ := startInMemory(t, ServerConfig{Name: "srv", Enabled: true, Command: "unused"})

	t.Run("text and structured content, untrusted", func(t *testing.T) {
		res, err := call(t, reg, "srv/echo", `{"text":"hi"}`)
		if err != nil {
			t.Fatal(err)
		}
		if res.Output != nil {
			t.Errorf("got output %v; want nil (untrusted structured content goes to the fenced body)", res.Output)
		}
		if want := "echo: hi"; res.Body != want {
			t.Errorf("got body %q; want %q", res.Body, want)
		}
		if res.Source != "mcp:srv/echo" {
			t.Errorf("got source %q; want mcp:srv/echo", res.Source)
		}
	})
	t.Run("structured content only, untrusted", func(t *testing.T) {
		res, err := call(t, reg, "srv/structured", `{}`)
		if err != nil {
			t.Fatal(err)
		}
		if want := "{\n  \"n\": 1\n}"; res.Body != want || res.Output != nil {
			t.Errorf("got body %q output %v; want %q in the fenced body and no output", res.Body, res.Output, want)
		}
	})
	t.Run("isError: the server's text reaches the model only inside a fence", func(t *testing.T) {
		tl, _ := reg.Lookup("srv/fail")
		_, err := call(t, reg, "srv/fail", `{}`)
		var te *tools.Error
		if !errors.As(err, &te) || te.Kind != tools.KindExternalError || !strings.Contains(te.Text(), "boom: disk on fire") {
			t.Fatalf("got %v; want external_error with the server's text for people", err)
		}
		env := tools.Envelope(tl.Meta(), tools.Result{}, err, time.Now())
		line, fenced, _ := strings.Cut(env, "\n")
		if strings.Contains(line, "boom") || !strings.HasPrefix(fenced, `<untrusted source="mcp:srv/fail error"`) || !strings.Contains(fenced, "\nboom: disk on fire\n</untrusted>") {
			t.Errorf("the model reads:\n%s\nwant the server's text only inside the fence", env)
		}
	})
	t.Run("other content described", func(t *testing.T) {
		res, err := call(t, reg, "srv/media", `{}`)
		if err != nil {
			t.Fatal(err)
		}
		if want := "a picture:\n[image image/png, 12.0 KB: its content is application/octet-stream, not an image a model takes]\n[resource file:///a.txt]\ninside"; res.Body != want {
			t.Errorf("got body %q; want %q", res.Body, want)
		}
	})
	t.Run("capped", func(t *testing.T) {
		res, err := call(t, reg, "srv/big", `{}`)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(res.Body, strings.Repeat("x", maxBody)) || !strings.Contains(res.Body, "shown 32768 of 32868 bytes") {
			t.Errorf("got body ending %q; want the cap and a note", res.Body[len(res.Body)-120:])
		}
	})
	t.Run("dry run of a side-effecting tool", func(t *testing.T) {
		tl, _ := reg.Lookup("srv/write.file_v2")
		res, err := tools.Call(context.Background(), tl, json.RawMessage(`{"path":"a","n":1}`), true)
		if err != nil {
			t.Fatal(err)
		}
		if want := `Call srv/write.file_v2 (tool "write.file v2" on the server)`; res.Summary != want {
			t.Errorf("got summary %q; want %q", res.Summary, want)
		}
		if want := "{\n  \"path\": \"a\",\n  \"n\": 1\n}"; res.Preview != want {
			t.Errorf("got preview %q; want %q", res.Preview, want)
		}
	})
}

func TestTrustedOutput(t *testing.T) {
	_, reg, _ := startInMemory(t, ServerConfig{Name: "srv", Enabled: true, Command: "unused", Trust: true})
	tl, _ := reg.Lookup("srv/echo")
	if tl.Meta().ReturnsUntrusted {
		t.Errorf("got returns_untrusted for a trusted server; want false")
	}
	res, err := call(t, reg, "srv/echo", `{"text":"hi"}`)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(res.Output)
	if string(out) != `{"echoed":"hi"}` || res.Body != "echo: hi" {
		t.Errorf("got output %s body %q; want {\"echoed\":\"hi\"} and \"echo: hi\"", out, res.Body)
	}
}

func TestHangingCall(t *testing.T) {
	m, reg, _ := startInMemory(t, ServerConfig{Name: "srv", Enabled: true, Command: "unused", Timeout: 2 * time.Second})
	_, err := call(t, reg, "srv/hang", `{}`)
	var te *tools.Error
	if !errors.As(err, &te) || te.Kind != tools.KindNetworkError || !strings.Contains(te.Hint, "/mcp restart srv") {
		t.Fatalf("got %v; want network_error pointing at /mcp restart srv", err)
	}
	st := waitStatus(t, m, "srv", inState(StateFailed))
	if !strings.Contains(st.LastError, "srv/hang got no answer within 2s") {
		t.Errorf("got last error %q; want it to say the call got no answer", st.LastError)
	}
	if len(reg.List()) != 0 || len(st.Tools) != 0 {
		t.Errorf("got tools %v after the hang; want none", names(reg))
	}

	if err := m.Restart(context.Background(), "srv"); err != nil {
		t.Fatal(err)
	}
	st = waitStatus(t, m, "srv", inState(StateRunning))
	if st.LastError != "" {
		t.Errorf("got last error %q after a successful restart; want none", st.LastError)
	}
	if _, err := call(t, reg, "srv/echo", `{"text":"back"}`); err != nil {
		t.Errorf("got %v after restart; want success", err)
	}
}

func TestCallerCancelDoesNotFailServer(t *testing.T) {
	m, reg, _ := startInMemory(t, ServerConfig{Name: "srv", Enabled: true, Command: "unused"})
	tl, _ := reg.Lookup("srv/hang")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := tl.Execute(ctx, json.RawMessage(`{}`))
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("got %v; want context.Canceled", err)
	}
	if st := m.Status()[0]; st.State != StateRunning {
		t.Errorf("got state %s after a cancelled call; want running", st.State)
	}
}

func TestStartContextStops(t *testing.T) {
	reg := tools.NewRegistry()
	m := newTestManager(t, reg, ServerConfig{Name: "srv", Enabled: true, Command: "unused"})
	inMemory(t, m, testServer(t))
	ctx, cancel := context.WithCancel(context.Background())
	m.Start(ctx, nil)
	waitStatus(t, m, "srv", inState(StateRunning))
	tl, _ := reg.Lookup("srv/echo")
	cancel()
	waitStatus(t, m, "srv", inState(StateStopped))
	if len(reg.List()) != 0 {
		t.Errorf("got %v after the context ended; want no tools", names(reg))
	}
	_, err := tl.Execute(context.Background(), json.RawMessage(`{"text":"late"}`))
	var te *tools.Error
	if !errors.As(err, &te) || te.Kind != tools.KindNetworkError || !strings.Contains(te.Message, "srv is down: it was stopped") {
		t.Errorf("got %v from a withdrawn tool; want network_error saying the server is down", err)
	}
}

func TestToolListChanged(t *testing.T) {
	m, reg, srv := startInMemory(t, ServerConfig{Name: "srv", Enabled: true, Command: "unused"})
	srv.AddTool(&sdk.Tool{Name: "late", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{}, nil
		})
	waitStatus(t, m, "srv", func(st ServerStatus) bool {
		for _, n := range st.Tools {
			if n == "srv/late" {
				return true
			}
		}
		return false
	})
	srv.RemoveTools("plain")
	waitStatus(t, m, "srv", func(ServerStatus) bool {
		_, ok := reg.Lookup("srv/plain")
		return !ok
	})
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  ServerConfig
		want string
	}{
		{"bad name", ServerConfig{Name: "my server", Command: "x"}, "mcp.servers.my server: the server name must be"},
		{"no transport", ServerConfig{Name: "a"}, "mcp.servers.a: set command (a stdio server) or url"},
		{"both", ServerConfig{Name: "b", Command: "x", URL: "http://127.0.0.1:1/"}, "mcp.servers.b: set command or url, not both"},
		{"bad url", ServerConfig{Name: "c", URL: "ftp://host/"}, `mcp.servers.c.url: "ftp://host/" is not an http:// or https:// URL`},
		{"missing program", ServerConfig{Name: "d", Command: "/nonexistent/mcp-server"}, "cannot run /nonexistent/mcp-server: fork/exec /nonexistent/mcp-server: no such file or directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Enabled = true
			m := newTestManager(t, tools.NewRegistry(), tc.cfg)
			m.Start(context.Background(), nil)
			st := waitStatus(t, m, tc.cfg.Name, inState(StateFailed))
			if !strings.Contains(st.LastError, tc.want) {
				t.Errorf("got last error %q; want it to contain %q", st.LastError, tc.want)
			}
		})
	}
}

func TestDuplicateAndDisabled(t *testing.T) {
	reg := tools.NewRegistry()
	m := newTestManager(t, reg,
		ServerConfig{Name: "one", Command: "x", Enabled: true},
		ServerConfig{Name: "one", Command: "y", Enabled: true},
		ServerConfig{Name: "off", Command: "z"},
	)
	inMemory(t, m, testServer(t))
	var mu sync.Mutex
	var seen []ServerStatus
	m.Start(context.Background(), func(st ServerStatus) {
		mu.Lock()
		seen = append(seen, st)
		mu.Unlock()
	})
	waitStatus(t, m, "one", inState(StateRunning))
	all := m.Status()
	if len(all) != 3 || all[1].State != StateFailed || !strings.Contains(all[1].LastError, "declared twice") || all[2].State != StateStopped {
		t.Errorf("got %+v; want one running, the duplicate failed, off stopped", all)
	}
	if err := m.Restart(context.Background(), "off"); err == nil || !strings.Contains(err.Error(), "disabled") {
		t.Errorf("got %v restarting a disabled server; want an error saying it is disabled", err)
	}
	if err := m.Restart(context.Background(), "nope"); err == nil || !strings.Contains(err.Error(), "configured: off, one") {
		t.Errorf("got %v restarting an unknown server; want the configured names", err)
	}
	m.Close()
	mu.Lock()
	defer mu.Unlock()
	if n := len(seen); n == 0 || seen[n-1].State != StateStopped {
		t.Errorf("got events %+v; want the last to be stopped after Close", seen)
	}
}

func TestStreamableHTTP(t *testing.T) {
	srv := testServer(t)
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer hs.Close()
	reg := tools.NewRegistry()
	m := newTestManager(t, reg, ServerConfig{Name: "web", URL: hs.URL, Enabled: true, Timeout: 30 * time.Second})
	m.Start(context.Background(), nil)
	waitStatus(t, m, "web", inState(StateRunning))
	res, err := call(t, reg, "web/echo", `{"text":"over http"}`)
	if err != nil || !strings.HasPrefix(res.Body, "echo: over http") {
		t.Errorf("got %q, %v; want the echo", res.Body, err)
	}
	m.Close()
	if len(reg.List()) != 0 {
		t.Errorf("got %v after Close; want no tools", names(reg))
	}
}

func TestStreamableHTTPServerGone(t *testing.T) {
	srv := testServer(t)
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	reg := tools.NewRegistry()
	m := newTestManager(t, reg, ServerConfig{Name: "web", URL: hs.URL, Enabled: true, Timeout: 30 * time.Second})
	// Without reconnection attempts the event stream fails at once.
	m.dial = func(cfg ServerConfig) (sdk.Transport, error) {
		return &sdk.StreamableClientTransport{Endpoint: cfg.URL, MaxRetries: -1}, nil
	}
	m.Start(context.Background(), nil)
	waitStatus(t, m, "web", inState(StateRunning))
	// The tool is held from before the server goes: the manager withdraws
	// it from the registry as soon as the event stream breaks, while a
	// model may still call the tool from its last catalog.
	echo, ok := reg.Lookup("web/echo")
	if !ok {
		t.Fatalf("web/echo is not registered; have %v", names(reg))
	}
	hs.CloseClientConnections()
	hs.Close()

	st := waitStatus(t, m, "web", inState(StateFailed))
	if st.LastError == "" || len(reg.List()) != 0 {
		t.Errorf("got last error %q and tools %v; want a reason and no tools", st.LastError, names(reg))
	}
	_, err := tools.Call(context.Background(), echo, json.RawMessage(`{"text":"anyone?"}`), false)
	var te *tools.Error
	if !errors.As(err, &te) || te.Kind != tools.KindNetworkError || !strings.Contains(te.Message, "web is down") || !strings.Contains(te.Hint, "/mcp restart web") {
		t.Errorf("got %v; want network_error saying the server is down", err)
	}
}

// The stdio tests run the test binary itself as the server.

func TestStdioCrash(t *testing.T) {
	t.Setenv("MYCLAW_TEST_SECRET_TOKEN", "hunter2")
	cfg, dir := helperConfig(t, "helper", "serve", 60*time.Second)
	cfg.Env["HELPER_GREETING"] = "hello"
	reg := tools.NewRegistry()
	m := newTestManager(t, reg, cfg)
	m.Start(context.Background(), nil)
	waitStatus(t, m, "helper", inState(StateRunning))

	for _, tc := range []struct{ name, want string }{
		{"MYCLAW_TEST_SECRET_TOKEN", "false:"},
		{"HELPER_GREETING", "true:hello"},
	} {
		res, err := call(t, reg, "helper/env", `{"name":"`+tc.name+`"}`)
		if err != nil || res.Body != tc.want {
			t.Errorf("env %s: got %q, %v; want %q", tc.name, res.Body, err, tc.want)
		}
	}

	inflight := make(chan error, 1)
	go func() {
		_, err := call(t, reg, "helper/block", `{}`)
		inflight <- err
	}()
	waitFile(t, filepath.Join(dir, "blocking"))
	if _, err := call(t, reg, "helper/crash", `{}`); err == nil {
		t.Errorf("got no error from the call that crashed the server")
	}
	err := <-inflight
	var te *tools.Error
	if !errors.As(err, &te) || te.Kind != tools.KindNetworkError || !strings.Contains(te.Message, "helper is down") || !strings.Contains(te.Hint, "/mcp restart helper") {
		t.Errorf("got %v for the call in flight; want network_error saying the server is down", err)
	}
	st := waitStatus(t, m, "helper", inState(StateFailed))
	if !strings.Contains(st.LastError, "exit status 3") || !strings.Contains(st.LastError, "fatal: simulated crash") {
		t.Errorf("got last error %q; want the exit status and stderr", st.LastError)
	}
	if _, ok := reg.Lookup("helper/echo"); ok {
		t.Errorf("got helper/echo still registered; want the tools withdrawn")
	}

	if err := m.Restart(context.Background(), "helper"); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, m, "helper", inState(StateRunning))
	res, err := call(t, reg, "helper/echo", `{"text":"again"}`)
	if err != nil || res.Body != "echo: again" {
		t.Errorf("got %q, %v after restart; want the echo", res.Body, err)
	}
}

func TestStdioStartTimeout(t *testing.T) {
	cfg, _ := helperConfig(t, "mute", "mute", 500*time.Millisecond)
	m := newTestManager(t, tools.NewRegistry(), cfg)
	m.Start(context.Background(), nil)
	st := waitStatus(t, m, "mute", inState(StateFailed))
	if !strings.Contains(st.LastError, "no answer within 500ms at start-up") {
		t.Errorf("got last error %q; want the start-up timeout", st.LastError)
	}
}

func TestCloseLeavesNoProcesses(t *testing.T) {
	family, dir := helperConfig(t, "family", "family", 60*time.Second)
	mute, muteDir := helperConfig(t, "mute", "mute", 60*time.Second)
	reg := tools.NewRegistry()
	m := newTestManager(t, reg, family, mute)
	m.Start(context.Background(), nil)
	waitStatus(t, m, "family", inState(StateRunning))
	waitStatus(t, m, "mute", inState(StateStarting))
	pids := append(readPids(t, filepath.Join(dir, "pids")), readPids(t, filepath.Join(muteDir, "pids"))...)
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("got pid %d not running before Close", pid)
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	// Close has waited for the server; the grandchild was killed with its
	// group, which the kernel finishes at once for SIGKILL.
	for _, pid := range pids {
		for i := 0; alive(pid) && i < 500; i++ {
			time.Sleep(10 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("got pid %d alive after Close; want it gone", pid)
		}
	}
	for _, st := range m.Status() {
		if st.State != StateStopped {
			t.Errorf("got %s %s after Close; want stopped", st.Name, st.State)
		}
	}
}

func waitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func readPids(t *testing.T, path string) []int {
	t.Helper()
	waitFile(t, path)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("bad pid file %q", b)
		}
		out = append(out, n)
	}
	return out
}

func hashTag(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// bigSchema is an object schema with n string fields: about 40 bytes a field.
func bigSchema(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"field_` + strconv.Itoa(i) + `":{"type":"string"}`)
	}
	b.WriteString(`}}`)
	return json.RawMessage(b.String())
}

// A server cannot make every request megabytes long: a tool whose schema
// and description pass 32 KB is hidden from the model, and so is each tool
// past 256 KB for the whole server; /mcp and /tools say why, and a notice
// says so once, not again when the server lists its tools anew.
func TestOversizedToolSchemasAreHidden(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (builds very large schemas): left out of the quick -short run")
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	nop := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{}, nil
	}
	srv.AddTool(&sdk.Tool{Name: "huge", InputSchema: bigSchema(20000)}, nop)
	for i := range 10 { // 10 tools of about 30 KB: the ninth passes 256 KB
		srv.AddTool(&sdk.Tool{Name: "mid" + strconv.Itoa(i), InputSchema: bigSchema(1000)}, nop)
	}
	srv.AddTool(&sdk.Tool{Name: "small", InputSchema: json.RawMessage(`{"type":"object"}`)}, nop)
	reg := tools.NewRegistry()
	cfg := ServerConfig{Name: "srv", Enabled: true, Command: "unused", Timeout: 30 * time.Second}
	m := newTestManager(t, reg, cfg)
	var mu sync.Mutex
	var notices []string
	m.SetOptions(Options{Notify: func(_, text string) {
		mu.Lock()
		notices = append(notices, text)
		mu.Unlock()
	}})
	inMemory(t, m, srv)
	m.Start(context.Background(), nil)
	st := waitStatus(t, m, "srv", inState(StateRunning))

	hidden := map[string]string{}
	for _, h := range st.Hidden {
		hidden[h.Name] = h.Why
	}
	if why := hidden["srv/huge"]; !strings.Contains(why, "over the 32.0 KB one tool may take") {
		t.Errorf("srv/huge: hidden %q; want it hidden for its own size", why)
	}
	for _, name := range []string{"srv/mid8", "srv/mid9"} {
		if why := hidden[name]; !strings.Contains(why, "over the 256.0 KB one server may take") {
			t.Errorf("%s: hidden %q; want it hidden for the server's total", name, why)
		}
	}
	if len(hidden) != 3 {
		t.Errorf("hidden %v; want srv/huge, srv/mid8, srv/mid9", hidden)
	}
	total := 0
	for _, tl := range reg.List() {
		total += len(tl.Meta().Schema) + len(tl.Meta().Description)
		if _, ok := hidden[tl.Meta().Name]; ok {
			t.Errorf("%s is in the catalog", tl.Meta().Name)
		}
	}
	if _, ok := reg.Lookup("srv/small"); !ok || total > maxServerCatalogBytes {
		t.Errorf("catalog %v takes %d bytes; want srv/small in it and at most %d", names(reg), total, maxServerCatalogBytes)
	}
	if !strings.Contains(strings.Join(st.Skipped, "\n"), `"huge": hidden from the model`) {
		t.Errorf("/mcp's skipped list does not say why: %q", st.Skipped)
	}
	// A new listing hides the same tools without a second notice.
	srv.AddTool(&sdk.Tool{Name: "late", InputSchema: json.RawMessage(`{"type":"object"}`)}, nop)
	waitStatus(t, m, "srv", func(st ServerStatus) bool { return slices.Contains(st.Tools, "srv/late") })
	mu.Lock()
	defer mu.Unlock()
	if len(notices) != 3 || !strings.Contains(notices[0], "MCP server srv: the tool srv/huge is hidden from the model") {
		t.Errorf("notices %q; want one for each of the 3 hidden tools", notices)
	}
}
