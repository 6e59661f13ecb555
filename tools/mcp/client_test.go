package mcp

import (
	"context"
	"encoding/json"

	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"myclaw/tools"
)

// featureServer has tools that use the client's side of the protocol:
// elicitation, roots, capabilities and logging.
func featureServer(t *testing.T) *sdk.Server {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "features", Version: "1"}, nil)
	obj := json.RawMessage(`{"type":"object"}`)
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true}
	asJSON := func(v any) *sdk.CallToolResult {
		b, _ := json.Marshal(v)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}
	}
	// Each tool asks the client the way the negotiated version wants: an
	// input request in the result (2026-07-28, SEP-2322), or a request of
	// its own while the call runs (earlier versions).
	mrtr := func(req *sdk.CallToolRequest) bool {
		return req.Session.InitializeParams().ProtocolVersion >= "2026-07-28"
	}
	askParams := &sdk.ElicitParams{
		Message: "Which\x1b[31m environment?",
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{
			"env":{"type":"string","enum":["staging","prod"],"enumNames":["Staging","Production"],"default":"staging"},
			"replicas":{"type":"integer","minimum":1,"maximum":9,"default":2},
			"confirm":{"type":"boolean","title":"Really?"},
			"email":{"type":"string","format":"email"}
		},"required":["env"]}`),
	}
	s.AddTool(&sdk.Tool{Name: "ask", InputSchema: obj, Annotations: ro}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if !mrtr(req) {
			res, err := req.Session.Elicit(ctx, askParams)
			if err != nil {
				return nil, err
			}
			return asJSON(res), nil
		}
		if req.Params.InputResponses == nil {
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"ask": askParams}}, nil
		}
		return asJSON(req.Params.InputResponses["ask"]), nil
	})
	sampleParams := &sdk.CreateMessageParams{MaxTokens: 100000, SystemPrompt: "Be brief.", Messages: []*sdk.SamplingMessage{
		{Role: "user", Content: &sdk.TextContent{Text: "Summarise \x1b[2Jthis diff."}},
	}}
	s.AddTool(&sdk.Tool{Name: "sample", InputSchema: obj, Annotations: ro}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if !mrtr(req) {
			res, err := req.Session.CreateMessage(ctx, sampleParams)
			if err != nil {
				return nil, err
			}
			return asJSON(res), nil
		}
		if req.Params.InputResponses == nil {
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"s": sampleParams}}, nil
		}
		return asJSON(req.Params.InputResponses["s"]), nil
	})
	s.AddTool(&sdk.Tool{Name: "roots", InputSchema: obj, Annotations: ro}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if !mrtr(req) {
			res, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return nil, err
			}
			return asJSON(res.Roots), nil
		}
		if req.Params.InputResponses == nil {
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"roots": &sdk.ListRootsParams{}}}, nil
		}
		return asJSON(req.Params.InputResponses["roots"].(*sdk.ListRootsResult).Roots), nil
	})
	s.AddTool(&sdk.Tool{Name: "caps", InputSchema: obj, Annotations: ro}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return asJSON(req.Session.InitializeParams().Capabilities), nil
	})
	s.AddTool(&sdk.Tool{Name: "log", InputSchema: obj, Annotations: ro}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		_ = req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "debug", Data: "too fine"})
		_ = req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "warning", Logger: "db", Data: "disk \x1b[2Jnearly full"})
		return asJSON("logged"), nil
	})
	return s
}

// protocolVersions are the versions the client-feature tests run under:
// the latest (multi round-trip input requests) and the one before it
// (server-to-client requests).
var protocolVersions = []string{"", "2025-11-25"}

func startFeatures(t *testing.T, version string, opts Options, cfg ServerConfig) (*Manager, *tools.Registry) {
	t.Helper()
	reg := tools.NewRegistry()
	m := newTestManager(t, reg, cfg)
	m.protocolVersion = version
	m.SetOptions(opts)
	inMemory(t, m, featureServer(t))
	m.Start(context.Background(), nil)
	waitStatus(t, m, cfg.Name, inState(StateRunning))
	return m, reg
}

func TestCapabilitiesAndRoots(t *testing.T) {
	for _, v := range protocolVersions {
		t.Run("version "+v, func(t *testing.T) { testCapabilitiesAndRoots(t, v) })
	}
}

func testCapabilitiesAndRoots(t *testing.T, v string) {
	dir := t.TempDir()
	_, reg := startFeatures(t, v, Options{}, ServerConfig{Name: "f", Command: "unused", Enabled: true, Dir: dir, Timeout: 30 * time.Second})
	res, err := call(t, reg, "f/caps", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	var caps map[string]any
	if err := json.Unmarshal([]byte(res.Body), &caps); err != nil {
		t.Fatalf("caps %q: %v", res.Body, err)
	}
	if _, ok := caps["sampling"]; ok {
		t.Errorf("got capabilities %s; want no sampling (not enabled)", res.Body)
	}
	if el, ok := caps["elicitation"].(map[string]any); !ok || el["form"] == nil || el["url"] != nil {
		t.Errorf("got capabilities %s; want form elicitation only", res.Body)
	}
	if roots, ok := caps["roots"].(map[string]any); !ok || roots["listChanged"] == true {
		t.Errorf("got capabilities %s; want roots without listChanged", res.Body)
	}
	if len(caps) != 2 {
		t.Errorf("got capabilities %s; want exactly roots and elicitation", res.Body)
	}
	res, err = call(t, reg, "f/roots", `{}`)
	if err != nil || res.Body != `[{"name":"workspace","uri":"file://`+dir+`"}]` {
		t.Errorf("got roots %q, %v; want the workspace %s", res.Body, err, dir)
	}
}

func TestElicitationForm(t *testing.T) {
	for _, v := range protocolVersions {
		t.Run("version "+v, func(t *testing.T) { testElicitationForm(t, v) })
	}
}

func testElicitationForm(t *testing.T, v string) {
	var mu sync.Mutex
	var got Elicitation
	answer := ElicitAnswer{Action: ElicitAccept}
	opts := Options{Elicit: func(ctx context.Context, e Elicitation) (ElicitAnswer, error) {
		mu.Lock()
		defer mu.Unlock()
		got = e
		content := map[string]any{}
		for _, f := range e.Fields {
			v, err := f.Parse(f.Default)
			if err != nil {
				return ElicitAnswer{}, err
			}
			if v != nil {
				content[f.Name] = v
			}
		}
		a := answer
		if a.Action == ElicitAccept {
			a.Content = content
		}
		return a, nil
	}}
	_, reg := startFeatures(t, v, opts, ServerConfig{Name: "f", Command: "unused", Enabled: true, Timeout: 30 * time.Second})

	res, err := call(t, reg, "f/ask", `{}`)
	if err != nil || res.Body != `{"action":"accept","content":{"env":"staging","replicas":2}}` {
		t.Errorf("accept with defaults: got %q, %v", res.Body, err)
	}
	mu.Lock()
	if got.Server != "f" || strings.ContainsRune(got.Message, 0x1b) || !strings.Contains(got.Message, "environment?") {
		t.Errorf("got request %+v; want it labelled with the server and cleaned", got)
	}
	var names []string
	for _, f := range got.Fields {
		names = append(names, f.Name+":"+f.Kind)
	}
	if strings.Join(names, ",") != "env:enum,confirm:boolean,email:string,replicas:integer" {
		t.Errorf("got fields %v; want required first, then by name", names)
	}
	if got.Fields[0].Labels[1] != "Production" || got.Fields[1].Title != "Really?" {
		t.Errorf("got fields %+v; want the titles and enum names", got.Fields)
	}
	answer = ElicitAnswer{Action: ElicitDecline}
	mu.Unlock()
	res, err = call(t, reg, "f/ask", `{}`)
	if err != nil || res.Body != `{"action":"decline"}` {
		t.Errorf("decline: got %q, %v", res.Body, err)
	}
}

func TestElicitationHeadlessDeclines(t *testing.T) {
	for _, v := range protocolVersions {
		t.Run("version "+v, func(t *testing.T) { testElicitationHeadlessDeclines(t, v) })
	}
}

func testElicitationHeadlessDeclines(t *testing.T, v string) {
	_, reg := startFeatures(t, v, Options{}, ServerConfig{Name: "f", Command: "unused", Enabled: true, Timeout: 30 * time.Second})
	res, err := call(t, reg, "f/ask", `{}`)
	if err != nil || res.Body != `{"action":"decline"}` {
		t.Errorf("got %q, %v; want the form declined with nobody to ask", res.Body, err)
	}
}

func TestElicitFieldParse(t *testing.T) {
	one, nine := 1.0, 9.0
	two := 2
	tests := []struct {
		f       ElicitField
		in      string
		want    any
		wantErr string
	}{
		{ElicitField{Kind: "integer", Min: &one, Max: &nine}, "3", int64(3), ""},
		{ElicitField{Kind: "integer", Min: &one, Max: &nine}, "10", nil, "at most 9"},
		{ElicitField{Kind: "integer"}, "2.5", nil, "whole number"},
		{ElicitField{Kind: "number"}, "2.5", 2.5, ""},
		{ElicitField{Kind: "boolean"}, "true", true, ""},
		{ElicitField{Kind: "boolean"}, "yes", nil, "true or false"},
		{ElicitField{Kind: "enum", Options: []string{"a", "b"}}, "c", nil, "one of a, b"},
		{ElicitField{Kind: "multi", Options: []string{"a", "b"}}, "a, b", []string{"a", "b"}, ""},
		{ElicitField{Kind: "string", Format: "email"}, "not-an-address", nil, "email"},
		{ElicitField{Kind: "string", MinLen: &two}, "x", nil, "at least 2"},
		{ElicitField{Kind: "string", Required: true}, " ", nil, "required"},
		{ElicitField{Kind: "string"}, "", nil, ""},
		{ElicitField{Kind: "string", Format: "date"}, "2026-12-01", "2026-12-01", ""},
	}
	for _, tt := range tests {
		got, err := tt.f.Parse(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Parse(%q) = %v, %v; want error %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(tt.want)
		if err != nil || string(gb) != string(wb) {
			t.Errorf("Parse(%q) = %s, %v; want %s", tt.in, gb, err, wb)
		}
	}
}

func TestServerLogMessages(t *testing.T) {
	for _, v := range protocolVersions {
		t.Run("version "+v, func(t *testing.T) { testServerLogMessages(t, v) })
	}
}

func testServerLogMessages(t *testing.T, v string) {
	m, reg := startFeatures(t, v, Options{}, ServerConfig{Name: "f", Command: "unused", Enabled: true, Timeout: 30 * time.Second})
	res, err := call(t, reg, "f/log", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Body, "disk") {
		t.Errorf("the log message reached the tool result %q", res.Body)
	}
	st := waitStatus(t, m, "f", func(st ServerStatus) bool { return len(st.Log) > 0 })
	if len(st.Log) != 1 || !strings.HasSuffix(st.Log[0], "warning db: disk nearly full") {
		t.Errorf("got log %q; want the warning only (level info), cleaned", st.Log)
	}
}

func TestElicitFieldSecret(t *testing.T) {
	for _, tt := range []struct {
		f    ElicitField
		want bool
	}{
		{ElicitField{Name: "password"}, true},
		{ElicitField{Name: "apiKey"}, true},
		{ElicitField{Name: "APIKEY"}, true},
		{ElicitField{Name: "gh_token"}, true},
		{ElicitField{Name: "x", Title: "Client secret"}, true},
		{ElicitField{Name: "x", Title: "PIN"}, true},
		{ElicitField{Name: "x", Title: "OTP code"}, true},
		{ElicitField{Name: "x", Description: "Your SSH key passphrase"}, true},
		{ElicitField{Name: "x", Description: "AWS credentials"}, true},
		{ElicitField{Name: "x", Format: "password"}, true},
		{ElicitField{Name: "layout", Title: "Keyboard layout"}, false},
		{ElicitField{Name: "address", Description: "Shipping address"}, false},
		{ElicitField{Name: "env", Title: "Environment", Description: "Where to deploy"}, false},
	} {
		if got := tt.f.Secret(); got != tt.want {
			t.Errorf("%+v: Secret() = %v; want %v", tt.f, got, tt.want)
		}
	}
}
