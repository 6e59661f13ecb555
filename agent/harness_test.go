package agent

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"myclaw/agent/chat"
	"myclaw/approval"
	"myclaw/history"
	"myclaw/tools"
	"myclaw/tools/builtin"
)

// harness is an agent over a temporary workspace and state dir, with the
// builtin file tools, talking to a fake server.
type harness struct {
	t      testing.TB
	srv    *fakeServer
	agent  *Agent
	ws     string
	state  string
	store  *history.Store
	reg    *tools.Registry
	policy *approval.Policy
	mu     sync.Mutex
	events []Event
	sleeps []time.Duration
}

type harnessOpt func(*Options)

func newHarness(t testing.TB, level approval.Level, srv *fakeServer, opts ...harnessOpt) *harness {
	t.Helper()
	h := &harness{t: t, srv: srv, ws: t.TempDir(), state: t.TempDir()}
	h.store = history.NewStore(h.state)
	ws, err := builtin.OpenWorkspace(h.ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	h.ws = ws.Dir()
	mem, err := builtin.OpenMemory(filepath.Join(h.state, "memory.json"))
	if err != nil {
		t.Fatal(err)
	}
	h.reg = tools.NewRegistry()
	undo, err := builtin.NewShellUndo(ws, h.store.Blobs(), filepath.Join(h.state, "shell-cache"), h.state)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { undo.Close() })
	for _, tool := range []tools.Tool{
		builtin.NewFsRead(ws), builtin.NewFsWrite(ws, h.store.Blobs()), builtin.NewFsEdit(ws, h.store.Blobs()),
		builtin.NewGlobList(ws), builtin.NewGrepSearch(ws), builtin.NewTimeNow(time.Now), builtin.NewTodoWrite(),
		builtin.NewMemoryStore(mem), builtin.NewMemoryFetch(mem),
		builtin.NewShellRun(builtin.ShellOptions{Dir: ws.Dir(), OutputDir: filepath.Join(h.state, "shell"), Undo: undo}),
	} {
		h.reg.MustRegister(tool)
	}
	h.policy, err = approval.NewPolicy(level, nil)
	if err != nil {
		t.Fatal(err)
	}
	if level == approval.Full {
		// The harness's shell_run has no sandbox: full runs it only as the
		// person's explicit unsandboxed choice. Tests of confinement set
		// their own sandbox.
		h.policy.SetSandbox(approval.Sandbox{Off: true})
	}
	session, err := h.store.NewSession(h.ws, "test-model")
	if err != nil {
		t.Fatal(err)
	}
	client := chat.NewClient(chat.ClientConfig{
		BaseURL: srv.url(),
		Sleep: func(ctx context.Context, d time.Duration) error {
			h.mu.Lock()
			h.sleeps = append(h.sleeps, d)
			h.mu.Unlock()
			return ctx.Err()
		},
	})
	o := Options{
		Client: client, Model: "test-model", Registry: h.reg, Policy: h.policy,
		Store: h.store, Session: session, Workspace: h.ws, MaxRounds: 10,
		Logf: t.Logf,
	}
	for _, f := range opts {
		f(&o)
	}
	h.agent, err = New(o)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// run runs one turn with approver answering every question.
func (h *harness) run(ctx context.Context, prompt string, approver approval.Approver) error {
	return h.agent.Run(ctx, prompt, func(e Event) {
		h.mu.Lock()
		h.events = append(h.events, e)
		h.mu.Unlock()
	}, approver)
}

func (h *harness) eventsOf(kind string) []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Event
	for _, e := range h.events {
		if e.Type() == kind {
			out = append(out, e)
		}
	}
	return out
}

func (h *harness) results() []ToolResultEvent {
	var out []ToolResultEvent
	for _, e := range h.eventsOf("tool_result") {
		out = append(out, e.(ToolResultEvent))
	}
	return out
}

func (h *harness) done() DoneEvent {
	ds := h.eventsOf("done")
	if len(ds) != 1 {
		h.t.Fatalf("got %d done events; want 1", len(ds))
	}
	return ds[0].(DoneEvent)
}

func (h *harness) text() string {
	var b strings.Builder
	for _, e := range h.eventsOf("text") {
		b.WriteString(e.(TextDelta).Text)
	}
	return b.String()
}

// approverFunc adapts a function to approval.Approver.
type approverFunc func(ctx context.Context, req approval.Request) (approval.Decision, error)

func (f approverFunc) Approve(ctx context.Context, req approval.Request) (approval.Decision, error) {
	return f(ctx, req)
}

// recordingApprover answers every request with d and keeps the requests.
type recordingApprover struct {
	mu       sync.Mutex
	d        approval.Decision
	requests []approval.Request
}

func (r *recordingApprover) Approve(ctx context.Context, req approval.Request) (approval.Decision, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, req)
	return r.d, nil
}

func approveAll() *recordingApprover {
	return &recordingApprover{d: approval.Decision{Choice: approval.ApproveOnce}}
}

// toolMessages returns the tool messages of request i, in order.
func toolMessages(msgs []map[string]any) []map[string]any {
	var out []map[string]any
	for _, m := range msgs {
		if m["role"] == "tool" {
			out = append(out, m)
		}
	}
	return out
}
