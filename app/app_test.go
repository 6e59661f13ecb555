package app

import (
	"context"
	"encoding/json"
	"myclaw/agent"
	"myclaw/approval"
	"myclaw/internal/apptest"
	"myclaw/sandbox"
	"myclaw/tools"
	"myclaw/tools/mcp"
	"myclaw/ui"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"
)

func TestTrustProjectLoadsIntoTheRunningSession(t *testing.T) {
	e := apptest.NewEnv(t, apptest.WriteNote)
	e.Setenv(t)
	os.WriteFile(filepath.Join(e.WS, ".myclaw.toml"), []byte("[[tools]]\nname = \"proj/hello\"\ndescription = \"Say hello.\"\ncommand = [\"echo\", \"hi\"]\ncapability = { read_only = true }\n\n[[hooks.pre_tool]]\ntool = \"shell_run\"\ncommand = [\"true\"]\n"), 0o644)
	a, ag := openApp(t, e)
	if len(a.notices) == 0 || !strings.Contains(a.notices[0].Text, "Ignored .myclaw.toml") || !a.notices[0].Warning {
		t.Fatalf("notices %+v", a.notices)
	}
	if _, ok := a.registry.Lookup("proj/hello"); ok {
		t.Fatal("an untrusted project tool was registered")
	}
	b := &tuiBackend{Agent: ag, app: a, notices: make(chan ui.Notice, 4)}
	out, err := b.TrustProject(context.Background())
	if err != nil || !strings.Contains(out, "1 tool,") || !strings.Contains(out, "1 hook;") {
		t.Fatalf("TrustProject: %q, %v", out, err)
	}
	if _, ok := a.registry.Lookup("proj/hello"); !ok {
		t.Fatal("the trusted project tool is not registered")
	}
	if out, err := b.TrustProject(context.Background()); err != nil || !strings.Contains(out, "already trusted") {
		t.Fatalf("second TrustProject: %q, %v", out, err)
	}
	// A new session in the same folder loads it without asking.
	a2, _ := openApp(t, e)
	if _, ok := a2.registry.Lookup("proj/hello"); !ok {
		t.Fatal("trust was not remembered")
	}
}

// A project config with a broken entry loads nothing: no tool stays
// registered from the entries before it, and the folder is not trusted.
func TestTrustProjectIsAllOrNothing(t *testing.T) {
	e := apptest.NewEnv(t, apptest.WriteNote)
	e.Setenv(t)
	os.WriteFile(filepath.Join(e.WS, ".myclaw.toml"), []byte("[[tools]]\nname = \"proj/one\"\ndescription = \"One.\"\ncommand = [\"true\"]\n\n[[tools]]\nname = \"proj/one\"\ndescription = \"The same name again.\"\ncommand = [\"true\"]\n"), 0o644)
	a, ag := openApp(t, e)
	b := &tuiBackend{Agent: ag, app: a, notices: make(chan ui.Notice, 4)}
	if _, err := b.TrustProject(context.Background()); err == nil || !strings.Contains(err.Error(), "tools[1]") {
		t.Fatalf("TrustProject: %v; want an error naming tools[1]", err)
	}
	if _, ok := a.registry.Lookup("proj/one"); ok {
		t.Fatal("a tool of the refused project config stayed registered")
	}
	if st, _, _ := a.readProjectConfig(); st.trusted {
		t.Fatal("the refused project config was trusted")
	}
}

// /trust in a folder without .myclaw.toml trusts the folder: AGENTS.md is
// followed from the next request.
func TestTrustFolderWithoutProjectConfig(t *testing.T) {
	e := apptest.NewEnv(t, apptest.WriteNote)
	e.Setenv(t)
	os.WriteFile(filepath.Join(e.WS, "AGENTS.md"), []byte("Run make check.\n"), 0o644)
	a, ag := openApp(t, e)
	if !strings.Contains(noticeText(a.notices), "AGENTS.md found (16 B) — loaded as untrusted notes; /trust to follow it") {
		t.Fatalf("notices %+v", a.notices)
	}
	b := &tuiBackend{Agent: ag, app: a, notices: make(chan ui.Notice, 4)}
	out, err := b.TrustProject(context.Background())
	if err != nil || !strings.Contains(out, "AGENTS.md is followed as instructions") {
		t.Fatalf("TrustProject: %q, %v", out, err)
	}
	if err := ag.Run(context.Background(), "say hello", func(agent.Event) {}, approval.Headless{}); err != nil {
		t.Fatal(err)
	}
	if sys := e.Srv.LastSystem(t); !strings.Contains(sys, "## AGENTS.md\n\nRun make check.") {
		t.Fatalf("after /trust the system prompt is:\n%s", sys)
	}
	if out, _ := b.TrustProject(context.Background()); !strings.Contains(out, "already trusted") {
		t.Fatalf("second /trust: %q", out)
	}
}

// TestCrashedMCPServerShowsInTools: a server that dies has its tools
// withdrawn, /tools says why, and a restart brings them back.
func TestCrashedMCPServerShowsInTools(t *testing.T) {
	e := apptest.NewEnv(t, apptest.WriteNote)
	apptest.MCPConfig(t, e.Config, "", false)
	e.Setenv(t)
	a, ag := openApp(t, e)
	b := &tuiBackend{Agent: ag, app: a, notices: make(chan ui.Notice, 16)}
	ctx := context.Background()
	a.startMCP(ctx, b.mcpChanged)
	apptest.WaitFor(t, func() bool { _, ok := a.registry.Lookup("t/shout"); return ok })
	crash, _ := a.registry.Lookup("t/crash")
	if _, err := tools.Call(ctx, crash, json.RawMessage(`{}`), false); err == nil {
		t.Fatal("a call that kills the server returned no error")
	}
	apptest.WaitFor(t, func() bool { _, ok := a.registry.Lookup("t/shout"); return !ok })
	apptest.WaitFor(t, func() bool {
		for _, ti := range b.Tools() {
			if ti.Meta.Name == "t/shout" && strings.Contains(ti.Hidden, "MCP server t is failed") {
				return true
			}
		}
		return false
	})
	// onChange runs on the manager's goroutine, after the withdrawal.
	var notice string
	apptest.WaitFor(t, func() bool {
		notice += drainNotices(b.notices)
		return strings.Contains(notice, "MCP server t failed")
	})
	if !strings.Contains(notice, "/mcp restart t") {
		t.Fatalf("notices %q", notice)
	}
	if err := b.RestartMCP(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	// Announced once per start, however often the server relists.
	var again string
	apptest.WaitFor(t, func() bool {
		again += drainNotices(b.notices)
		return strings.Contains(again, "is running with")
	})
	b.mcpChanged(mcp.ServerStatus{Name: "t", State: mcp.StateRunning, Tools: []string{"t/shout"}})
	b.mcpChanged(mcp.ServerStatus{Name: "t", State: mcp.StateRunning, Tools: []string{"t/shout"}})
	if got := again + drainNotices(b.notices); strings.Count(got, "is running with") != 1 {
		t.Errorf("the restarted server was announced other than once: %q", got)
	}
	apptest.WaitFor(t, func() bool { _, ok := a.registry.Lookup("t/shout"); return ok })
	if err := b.RestartMCP(ctx, "nope"); err == nil || !strings.Contains(err.Error(), "configured: t") {
		t.Fatalf("restart of an unknown server: %v", err)
	}
}

// TestOversizedMCPToolShowsInTools: a tool whose schema would swell every
// request is left out of the catalog; /tools lists it with the reason, and
// a notice says so.
func TestOversizedMCPToolShowsInTools(t *testing.T) {
	e := apptest.NewEnv(t, apptest.WriteNote)
	apptest.MCPConfig(t, e.Config, "", false)
	e.Setenv(t)
	a, ag := openApp(t, e)
	b := &tuiBackend{Agent: ag, app: a, notices: make(chan ui.Notice, 16)}
	a.mcpOpts.Notify = b.mcpNotify // as the TUI wires it
	a.startMCP(context.Background(), b.mcpChanged)
	apptest.WaitFor(t, func() bool { _, ok := a.registry.Lookup("t/shout"); return ok })
	if _, ok := a.registry.Lookup("t/wide"); ok {
		t.Fatal("t/wide is in the catalog")
	}
	var why string
	for _, ti := range b.Tools() {
		if ti.Meta.Name == "t/wide" {
			why = ti.Hidden
		}
	}
	if !strings.Contains(why, "hidden from the model: its input schema and description take") {
		t.Fatalf("/tools gives t/wide the reason %q", why)
	}
	var notice string
	apptest.WaitFor(t, func() bool {
		notice += drainNotices(b.notices)
		return strings.Contains(notice, "the tool t/wide is hidden from the model")
	})
}

// TestEarlierSkipsToolImages: a resumed session does not show the message
// that carried a tool's images as something the user typed, and shows an
// MCP prompt's turn as the line the user typed.
func TestEarlierSkipsToolImages(t *testing.T) {
	msgs := []openai.ChatCompletionMessage{
		{Role: "user", Content: "/docs:review a.go\n\n" + agent.AttachmentMark + " The user ran /docs:review ..."},
		{Role: "user", MultiContent: []openai.ChatMessagePart{{Type: "text", Text: agent.AttachmentMark + " The images that shot/screenshot returned follow"}}},
	}
	out := earlier(msgs, nil)
	if len(out) != 1 || out[0].Text != "/docs:review a.go" {
		t.Fatalf("got %+v; want only the typed line", out)
	}
}

func TestEarlierMatchesCallRecordsInOrder(t *testing.T) {
	tc := func(id string) openai.ToolCall {
		return openai.ToolCall{ID: id, Type: "function", Function: openai.FunctionCall{Name: "fs_write", Arguments: "{}"}}
	}
	msgs := []openai.ChatCompletionMessage{
		{Role: "user", Content: "go"},
		{Role: "assistant", ToolCalls: []openai.ToolCall{tc("c1")}},
		{Role: "tool", ToolCallID: "c1"},
		// The server reused the id in its next answer.
		{Role: "assistant", ToolCalls: []openai.ToolCall{tc("c1"), tc("c2")}},
	}
	recs := []agent.CallRecord{
		{Result: agent.ToolResultEvent{Call: agent.Call{ID: "c1"}, Status: agent.StatusDenied}},
		{Result: agent.ToolResultEvent{Call: agent.Call{ID: "c1"}, Status: agent.StatusOK}},
	}
	out := earlier(msgs, recs)
	var got []string
	for _, e := range out {
		if e.Role != "tool" {
			continue
		}
		if e.Call == nil {
			got = append(got, "line")
		} else {
			got = append(got, e.Call.Result.Status)
		}
	}
	if strings.Join(got, ",") != "denied,ok,line" {
		t.Fatalf("cards %v; want denied,ok,line", got)
	}
	// c2 has no result: myclaw stopped while it ran, and the line says so.
	if last := out[len(out)-1]; !strings.Contains(last.Text, "interrupted: myclaw stopped before it ended") {
		t.Errorf("the unfinished call reads %q", last.Text)
	}
}

// noticeText joins the notices' text, one a line.
func noticeText(ns []ui.Notice) string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Text)
	}
	return strings.Join(out, "\n")
}

// drainNotices returns the text of what ch holds now.
func drainNotices(ch chan ui.Notice) string {
	var out []ui.Notice
	for {
		select {
		case n := <-ch:
			out = append(out, n)
		default:
			return noticeText(out)
		}
	}
}

// openApp starts the app in e's workspace with its agent, closed when the
// test ends.
func openApp(t *testing.T, e *apptest.Env) (*app, *agent.Agent) {
	t.Helper()
	a, err := newApp(Options{Workspace: e.WS, Model: "test-model"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	ag, err := a.buildAgent()
	if err != nil {
		t.Fatal(err)
	}
	return a, ag
}

// TestStartCreatesNothingInTheHome: opening myclaw and checking its
// sandbox makes no folder outside its own state and config (no Go or
// npm caches in a home that never used them).
func TestStartCreatesNothingInTheHome(t *testing.T) {
	e := apptest.NewEnv(t, nil)
	e.Setenv(t)
	home := t.TempDir()
	for k, v := range map[string]string{"HOME": home, "XDG_CACHE_HOME": "", "GOCACHE": "", "GOMODCACHE": "", "GOPATH": ""} {
		t.Setenv(k, v)
	}
	a, err := newApp(Options{Workspace: e.WS, Model: "test-model"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	a.buildSandbox()
	a.checkSandbox(context.Background())
	entries, _ := os.ReadDir(home)
	for _, en := range entries {
		t.Errorf("start-up made %s in the home", filepath.Join(home, en.Name()))
	}
}

// The report names where commands may write as a list that reads: the
// workspace and the temp dir, with no dangling comma.
func TestSandboxReportListsWritablePlaces(t *testing.T) {
	e := apptest.NewEnv(t, apptest.WriteNote)
	e.Setenv(t)
	a, _ := openApp(t, e)
	a.sandbox = sandbox.New(sandbox.Options{Workspace: e.WS})
	a.setSandboxState(approval.Sandbox{Active: true})
	want := "Shell commands may write only in the workspace (" + a.workspace.Dir() + ") and a temp dir of their own ($TMPDIR).\n"
	if got := a.sandboxReport(); !strings.Contains(got, want) {
		t.Fatalf("the report lacks %q:\n%s", want, got)
	}
}

// A background job that ends by itself is told in the transcript; the
// notice refreshes the status line's count of running jobs.
func TestJobEndedNotice(t *testing.T) {
	b := &tuiBackend{notices: make(chan ui.Notice, 1)}
	code := 0
	b.jobEnded(tools.JobInfo{ID: "job2", Command: "sleep 3; echo bye\x1b[2J", ExitCode: &code})
	got := drainNotices(b.notices)
	if !strings.Contains(got, "Background job job2 exited 0: sleep 3; echo bye") || strings.Contains(got, "\x1b") {
		t.Errorf("notice %q; want the job, its exit and its command, sanitised", got)
	}
}
