package agent

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"myclaw/approval"
	"myclaw/history"
	"myclaw/tools"
)

// routedServer answers each chat request by what it is: route sees the
// request (system prompt, messages, tools) and returns the reply. It may
// block (to hold sub-agents until they have all started).
type routedServer struct {
	t     testing.TB
	srv   *httptest.Server
	route func(r routedRequest) reply
	mu    sync.Mutex
	reqs  []routedRequest
}

type routedRequest struct {
	System   string
	Messages []map[string]any
	Tools    []string
	raw      string
}

func (r routedRequest) sub() bool { return strings.Contains(r.System, "You are a sub-agent") }

// last is the content of the last message.
func (r routedRequest) last() string {
	c, _ := r.Messages[len(r.Messages)-1]["content"].(string)
	return c
}

// task is the sub-agent's task (its first user message).
func (r routedRequest) task() string {
	for _, m := range r.Messages {
		if m["role"] == "user" {
			c, _ := m["content"].(string)
			return withoutStateNotes(c)
		}
	}
	return ""
}

func newRoutedServer(t testing.TB, route func(r routedRequest) reply) *routedServer {
	s := &routedServer{t: t, route: route}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Messages []map[string]any `json:"messages"`
			Tools    []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Errorf("request is not JSON: %v", err)
		}
		rr := routedRequest{Messages: req.Messages, raw: string(body)}
		rr.System, _ = req.Messages[0]["content"].(string)
		for _, tl := range req.Tools {
			rr.Tools = append(rr.Tools, tl.Function.Name)
		}
		s.mu.Lock()
		s.reqs = append(s.reqs, rr)
		s.mu.Unlock()
		rep := s.route(rr)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, rep.body)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *routedServer) requests(sub bool) []routedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []routedRequest
	for _, r := range s.reqs {
		if r.sub() == sub {
			out = append(out, r)
		}
	}
	return out
}

// subHarness is a harness whose registry has the agent tool.
func subHarness(t *testing.T, level approval.Level, route func(r routedRequest) reply, o SubagentOptions) (*harness, *routedServer) {
	rs := newRoutedServer(t, route)
	fs := &fakeServer{t: t, srv: rs.srv}
	h := newHarness(t, level, fs)
	if o.Store == nil {
		o.Store = history.NewStore(filepath.Join(h.state, "agents"))
	}
	h.reg.MustRegister(NewSubagentTool(o))
	return h, rs
}

func agentCall(id, desc, mode, prompt string) call {
	b, _ := json.Marshal(map[string]string{"description": desc, "mode": mode, "prompt": prompt})
	return call{id: id, name: "agent", args: string(b)}
}

// subEvents are the events of sub-agent id.
func (h *harness) subEvents(id string) []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Event
	for _, e := range h.events {
		if se, ok := e.(SubagentEvent); ok && (id == "" || se.AgentID == id) {
			out = append(out, se.Event)
		}
	}
	return out
}

func (h *harness) ofType(kind string) []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Event
	for _, e := range h.events {
		if _, sub := e.(SubagentEvent); !sub && e.Type() == kind {
			out = append(out, e)
		}
	}
	return out
}

func TestSubagentExploreReportIsFencedAndTaintsTheCaller(t *testing.T) {
	h, rs := subHarness(t, approval.Ask, func(r routedRequest) reply {
		switch {
		case r.sub() && !strings.Contains(r.raw, `"role":"tool"`):
			return openAIStyle("", call{id: "s1", name: "fs_read", args: `{"path":"notes.txt"}`})
		case r.sub():
			return openAIStyle("REPORT: notes.txt says hello")
		case strings.Contains(r.last(), "REPORT"):
			return openAIStyle("", call{id: "w1", name: "fs_write", args: `{"path":"out.txt","content":"x"}`})
		case r.Messages[len(r.Messages)-1]["role"] == "tool":
			return openAIStyle("done")
		}
		return openAIStyle("", agentCall("c1", "read notes", "explore", "Read notes.txt and report."))
	}, SubagentOptions{})
	if err := os.WriteFile(filepath.Join(h.ws, "notes.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	var asked []approval.Request
	approver := approverFunc(func(_ context.Context, req approval.Request) (approval.Decision, error) {
		asked = append(asked, req)
		return approval.Decision{Choice: approval.Deny}, nil
	})
	if err := h.run(context.Background(), "go", approver); err != nil {
		t.Fatal(err)
	}
	mains := rs.requests(false)
	if len(mains) < 2 {
		t.Fatalf("the main conversation made %d requests; want at least 2", len(mains))
	}
	tool := toolMessages(mains[1].Messages)
	if len(tool) != 1 {
		t.Fatalf("tool messages after the agent call: %v", tool)
	}
	content := tool[0]["content"].(string)
	if !strings.Contains(content, `<untrusted source="agent:read notes (read file:notes.txt)"`) || !strings.Contains(content, "REPORT: notes.txt says hello") {
		t.Errorf("the report does not reach the caller fenced as untrusted:\n%s", content)
	}
	// The caller's next side-effecting call follows untrusted content.
	if len(asked) != 1 || asked[0].Taint == nil || !strings.HasPrefix(asked[0].Taint.Source, "agent:read notes") {
		t.Errorf("the write after the agent's report asked %+v; want it tainted by the agent's read", asked)
	}
	// The sub-agent's own calls reached the caller, tagged.
	var read bool
	for _, e := range h.subEvents("a1") {
		if r, ok := e.(ToolResultEvent); ok && r.Call.Tool == "fs_read" && r.Status == StatusOK {
			read = true
		}
	}
	if !read {
		t.Error("no tagged fs_read result from the sub-agent")
	}
	if len(h.ofType("agent_start")) != 1 || len(h.ofType("agent_result")) != 1 {
		t.Errorf("agent_start/agent_result events: %d/%d; want 1/1", len(h.ofType("agent_start")), len(h.ofType("agent_result")))
	}
	if r := h.ofType("agent_result")[0].(SubagentResultEvent); r.Status != "done" || r.Calls != 1 || r.Tokens == 0 {
		t.Errorf("agent_result = %+v", r)
	}
	// Its tokens count in the caller's /cost, as their own kind.
	var agentKind bool
	for _, k := range h.agent.Cost().Kinds {
		agentKind = agentKind || k.Kind == RequestSubagent && k.Requests == 2
	}
	if !agentKind {
		t.Errorf("cost kinds %+v: want the sub-agent's 2 requests under %q", h.agent.Cost().Kinds, RequestSubagent)
	}
	// The main conversation's prefix stayed the same while it ran.
	if mains[0].System != mains[1].System || jsonOf(mains[1].Messages[:len(mains[0].Messages)]) != jsonOf(mains[0].Messages) {
		t.Error("the main conversation's request prefix changed across the agent call")
	}
}

func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestSubagentExploreCannotWrite(t *testing.T) {
	shell := &fakePreviewShell{}
	ro, why := NewReadOnlyShell(shell)
	if ro == nil {
		t.Fatal(why)
	}
	h, rs := subHarness(t, approval.Full, func(r routedRequest) reply {
		switch {
		case r.sub() && !strings.Contains(r.raw, `"role":"tool"`):
			return openAIStyle("", call{id: "s1", name: "shell_run", args: `{"command":"echo hi > made.txt"}`})
		case r.sub():
			return openAIStyle("could not write")
		case r.Messages[len(r.Messages)-1]["role"] == "tool":
			return openAIStyle("done")
		}
		return openAIStyle("", agentCall("c1", "try to write", "explore", "Write made.txt."))
	}, SubagentOptions{ExploreShell: ro})
	shell.layer = t.TempDir()
	if err := h.run(context.Background(), "go", approveAll()); err != nil {
		t.Fatal(err)
	}
	subs := rs.requests(true)
	if len(subs) == 0 {
		t.Fatal("the sub-agent made no request")
	}
	for _, name := range []string{"fs_write", "fs_edit", "memory_store", "agent", "todo_write"} {
		if slices.Contains(subs[0].Tools, name) {
			t.Errorf("an explore agent is offered %s: %v", name, subs[0].Tools)
		}
	}
	if !slices.Contains(subs[0].Tools, "fs_read") || !slices.Contains(subs[0].Tools, "shell_run") {
		t.Errorf("an explore agent's catalog %v lacks fs_read or its read-only shell_run", subs[0].Tools)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "made.txt")); !os.IsNotExist(err) {
		t.Errorf("the explore agent's shell write reached the workspace (%v)", err)
	}
	if !shell.discarded || !shell.ran {
		t.Errorf("the command ran %v in its layer, discarded %v; want both", shell.ran, shell.discarded)
	}
	tool := toolMessages(subs[1].Messages)
	if len(tool) != 1 || !strings.Contains(tool[0]["content"].(string), "discarded_changes") {
		t.Errorf("the sub-agent is not told its write was discarded: %v", tool)
	}
}

// fakePreviewShell is a shell_run whose previews write into its layer dir.
type fakePreviewShell struct {
	layer          string
	ran, discarded bool
}

func (f *fakePreviewShell) Meta() tools.Meta {
	return tools.Meta{Name: "shell_run", Description: "Run a command.", Schema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`), Shell: true, Capability: "shell:exec"}
}
func (f *fakePreviewShell) Execute(context.Context, json.RawMessage) (tools.Result, error) {
	return tools.Result{}, tools.Errorf(tools.KindUnknown, "", "the real run must never happen")
}
func (f *fakePreviewShell) CanPreview(json.RawMessage) string { return "" }
func (f *fakePreviewShell) Preview(_ context.Context, raw json.RawMessage) (tools.Preview, error) {
	f.ran = true
	if f.layer != "" {
		_ = os.WriteFile(filepath.Join(f.layer, "made.txt"), []byte("hi\n"), 0o644)
	}
	return &fakeShellRun{f: f}, nil
}

type fakeShellRun struct{ f *fakePreviewShell }

func (r *fakeShellRun) Summary() string { return "Run echo" }
func (r *fakeShellRun) Report() string  { return "made.txt created" }
func (r *fakeShellRun) Discard()        { r.f.discarded = true }
func (r *fakeShellRun) Result() tools.Result {
	return tools.Result{Output: map[string]any{"exit_code": 0}, Summary: "Run echo hi > made.txt"}
}
func (r *fakeShellRun) Changed() int { return 1 }

func TestSubagentsRunConcurrently(t *testing.T) {
	var mu sync.Mutex
	started := map[string]bool{}
	both := make(chan struct{})
	h, _ := subHarness(t, approval.Ask, func(r routedRequest) reply {
		switch {
		case r.sub():
			mu.Lock()
			started[r.task()] = true
			if len(started) == 2 {
				select {
				case <-both:
				default:
					close(both)
				}
			}
			mu.Unlock()
			// Each sub-agent's first request waits for the other's: run one
			// after the other, they would never both arrive.
			select {
			case <-both:
			case <-time.After(60 * time.Second):
				t.Error("the second sub-agent never started while the first was running")
			}
			return openAIStyle("report of " + r.task())
		case r.Messages[len(r.Messages)-1]["role"] == "tool":
			return openAIStyle("done")
		}
		return openAIStyle("", agentCall("c1", "one", "explore", "task one"), agentCall("c2", "two", "explore", "task two"))
	}, SubagentOptions{})
	if err := h.run(context.Background(), "go", approveAll()); err != nil {
		t.Fatal(err)
	}
	var reports []string
	for _, e := range h.ofType("tool_result") {
		reports = append(reports, e.(ToolResultEvent).Content)
	}
	if len(reports) != 2 || !strings.Contains(reports[0]+reports[1], "report of task one") || !strings.Contains(reports[0]+reports[1], "report of task two") {
		t.Errorf("reports = %q", reports)
	}
}

func TestSubagentDefinitionParses(t *testing.T) {
	d, err := ParseDefinition("reviewer", []byte("---\ndescription: Reviews a diff\nmode: explore\ntools: [fs_read, grep_search]\nmodel: small\n---\nYou review.\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Description != "Reviews a diff" || d.Mode != ModeExplore || !slices.Equal(d.Tools, []string{"fs_read", "grep_search"}) || d.Model != "small" || d.Prompt != "You review." {
		t.Errorf("definition = %+v", d)
	}
	for _, bad := range []string{"no frontmatter", "---\nmode: edit\n---\n", "---\ndescription: x\nmode: write\n---\n", "---\ndescription: x\ncolor: red\n---\n"} {
		if _, err := ParseDefinition("x", []byte(bad)); err == nil {
			t.Errorf("%q parsed; want an error", bad)
		}
	}
}

func TestSubagentDefinitionNarrowsNeverWidens(t *testing.T) {
	defs := []Definition{{Name: "reviewer", Description: "Reviews", Mode: ModeExplore, Tools: []string{"fs_read", "fs_write", "memory_store"}, Prompt: "You review carefully."}}
	h, rs := subHarness(t, approval.Full, func(r routedRequest) reply {
		if r.sub() || r.Messages[len(r.Messages)-1]["role"] == "tool" {
			return openAIStyle("ok")
		}
		b, _ := json.Marshal(map[string]string{"description": "review", "agent_type": "reviewer", "prompt": "Review."})
		return openAIStyle("", call{id: "c1", name: "agent", args: string(b)}, call{id: "c2", name: "agent", args: strings.Replace(string(b), `"agent_type"`, `"mode":"edit","agent_type"`, 1)})
	}, SubagentOptions{Definitions: func() []Definition { return defs }})
	if err := h.run(context.Background(), "go", approveAll()); err != nil {
		t.Fatal(err)
	}
	subs := rs.requests(true)
	if len(subs) != 1 {
		t.Fatalf("%d sub-agent requests; want the explore one only", len(subs))
	}
	if !slices.Equal(subs[0].Tools, []string{"fs_read"}) || !strings.Contains(subs[0].System, "You review carefully.") {
		t.Errorf("defined explore agent: tools %v (want fs_read alone: the list narrows, never widens)\nsystem %q", subs[0].Tools, subs[0].System)
	}
	mains := rs.requests(false)
	if d := jsonOf(mains[0].raw); !strings.Contains(d, "reviewer (explore): Reviews") || strings.Contains(d, "You review carefully") {
		t.Error("the model is not offered the defined agent by name and description alone")
	}
	var refused bool
	for _, e := range h.ofType("tool_result") {
		r := e.(ToolResultEvent)
		refused = refused || r.Call.ID == "c2" && strings.Contains(r.Message, "reads only; it cannot run in edit mode")
	}
	if !refused {
		t.Errorf("results %+v; want the edit run of an explore agent refused", h.ofType("tool_result"))
	}
}
