package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"myclaw/agent/chat"
	"myclaw/approval"
)

func TestEditedCallIsShownAgainBeforeItRuns(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"e1", "fs_write", `{"path":"a.txt","content":"model\n"}`}),
		openAIStyle("ok"),
	)
	h := newHarness(t, approval.Ask, srv)
	var mu sync.Mutex
	var previews []string
	ap := approverFunc(func(ctx context.Context, req approval.Request) (approval.Decision, error) {
		mu.Lock()
		defer mu.Unlock()
		previews = append(previews, req.Preview)
		if len(previews) == 1 {
			// The file must not exist yet when the edited call is shown.
			if _, err := os.Stat(filepath.Join(h.ws, "a.txt")); err == nil {
				t.Error("the call ran before its first approval")
			}
			return approval.Decision{Choice: approval.Edit, Args: json.RawMessage(`{"path":"a.txt","content":"user\n"}`)}, nil
		}
		if _, err := os.Stat(filepath.Join(h.ws, "a.txt")); err == nil {
			t.Error("the edited call ran before its re-preview was approved")
		}
		return approval.Decision{Choice: approval.ApproveOnce}, nil
	})
	if err := h.run(context.Background(), "write", ap); err != nil {
		t.Fatal(err)
	}
	if len(previews) != 2 || !strings.Contains(previews[0], "+model") || !strings.Contains(previews[1], "+user") {
		t.Fatalf("previews %q; want the model's diff, then the edited one", previews)
	}
	if got, _ := os.ReadFile(filepath.Join(h.ws, "a.txt")); string(got) != "user\n" {
		t.Fatalf("file holds %q; want the edited content", got)
	}
}

func TestEditedCallCanBeDeniedAtTheRePreview(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"e1", "fs_write", `{"path":"a.txt","content":"model\n"}`}),
		openAIStyle("ok"),
	)
	h := newHarness(t, approval.Ask, srv)
	n := 0
	ap := approverFunc(func(ctx context.Context, req approval.Request) (approval.Decision, error) {
		n++
		if n == 1 {
			return approval.Decision{Choice: approval.Edit, Args: json.RawMessage(`{"path":"a.txt","content":"user\n"}`)}, nil
		}
		return approval.Decision{Choice: approval.Deny}, nil
	})
	if err := h.run(context.Background(), "write", ap); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "a.txt")); err == nil {
		t.Fatal("a call denied at its re-preview ran")
	}
	r := h.results()
	if len(r) != 1 || r[0].Status != StatusDenied {
		t.Fatalf("results %+v; want one denial", r)
	}
	// What was denied is the edited call: the card and the record show it.
	if !r[0].Call.Edited || !strings.Contains(string(r[0].Call.Args), "user") {
		t.Fatalf("denied call %+v; want the edited arguments, marked edited", r[0].Call)
	}
}

func TestIdenticalWriteIsNotJournaled(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"w1", "fs_write", `{"path":"todo.md","content":"same\n"}`}),
		openAIStyle("ok"),
	)
	h := newHarness(t, approval.Full, srv)
	if err := os.WriteFile(filepath.Join(h.ws, "todo.md"), []byte("same\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := h.run(context.Background(), "write", approveAll()); err != nil {
		t.Fatal(err)
	}
	if r := h.results(); len(r) != 1 || r[0].Status != StatusOK || r[0].Reversible {
		t.Fatalf("results %+v; want one ok call that is not reversible", r)
	}
	if d := h.agent.Status().UndoDepth; d != 0 {
		t.Fatalf("undo depth %d; want 0 for a write that changed nothing", d)
	}
	if es, _ := h.agent.History(); len(es) != 0 {
		t.Fatalf("journal %+v; want nothing journaled", es)
	}
}

func TestResultCarriesExitCodeAndDiff(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"w1", "fs_write", `{"path":"a.txt","content":"hello\n"}`}, call{"s1", "shell_run", `{"command":"exit 3"}`}),
		openAIStyle("ok"),
	)
	h := newHarness(t, approval.Full, srv)
	if err := h.run(context.Background(), "go", approveAll()); err != nil {
		t.Fatal(err)
	}
	r := h.results()
	if len(r) != 2 {
		t.Fatalf("results %+v", r)
	}
	if !strings.Contains(r[0].Diff, "+hello") || r[0].Failed() {
		t.Errorf("write result diff %q, failed %v; want the applied diff, not failed", r[0].Diff, r[0].Failed())
	}
	if r[1].ExitCode == nil || *r[1].ExitCode != 3 || !r[1].Failed() || r[1].Status != StatusOK {
		t.Errorf("shell result %+v; want exit 3 reported as a failure", r[1])
	}
}

func TestDurationExcludesTheApprovalWait(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"w1", "fs_write", `{"path":"a.txt","content":"hello\n"}`}),
		openAIStyle("ok"),
	)
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	h := newHarness(t, approval.Ask, srv, func(o *Options) { o.Now = clock })
	ap := approverFunc(func(ctx context.Context, req approval.Request) (approval.Decision, error) {
		mu.Lock()
		now = now.Add(time.Hour) // the person thinks for an hour
		mu.Unlock()
		return approval.Decision{Choice: approval.ApproveOnce}, nil
	})
	if err := h.run(context.Background(), "write", ap); err != nil {
		t.Fatal(err)
	}
	if r := h.results(); len(r) != 1 || r[0].Duration >= time.Hour {
		t.Fatalf("results %+v; want a duration without the hour of thinking", r)
	}
}

func TestDiffShowsWhatTheSessionChanged(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"w1", "fs_write", `{"path":"a.txt","content":"one\n"}`}),
		openAIStyle("", call{"w2", "fs_edit", `{"path":"a.txt","old_string":"one","new_string":"two"}`}),
		openAIStyle("", call{"w3", "fs_write", `{"path":"b.txt","content":"bee\n"}`}),
		openAIStyle("ok"),
	)
	h := newHarness(t, approval.Full, srv)
	if err := os.WriteFile(filepath.Join(h.ws, "b.txt"), []byte("old bee\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := h.run(context.Background(), "go", approveAll()); err != nil {
		t.Fatal(err)
	}
	d, err := h.agent.Diff(0)
	if err != nil {
		t.Fatal(err)
	}
	want := "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+two\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-old bee\n+bee\n"
	if d != want {
		t.Fatalf("session diff\n%s\nwant\n%s", d, want)
	}
	d, err = h.agent.Diff(2)
	if err != nil || d != "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n" {
		t.Fatalf("diff of call 2: %q, %v", d, err)
	}
	// Undone, the change leaves the session diff and call #3 says so.
	if _, err := h.agent.Undo(context.Background(), 1, false); err != nil {
		t.Fatal(err)
	}
	if d, _ := h.agent.Diff(0); strings.Contains(d, "b.txt") {
		t.Fatalf("session diff after undo still has b.txt:\n%s", d)
	}
	if d, _ := h.agent.Diff(3); !strings.Contains(d, "is undone") {
		t.Fatalf("diff of an undone call: %q", d)
	}
	if _, err := h.agent.Diff(9); err == nil || !strings.Contains(err.Error(), "no call #9") {
		t.Fatalf("diff of a missing call: %v", err)
	}
}

func TestResumedSessionKeepsHowCallsEnded(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("",
			call{"d1", "fs_write", `{"path":"no.txt","content":"x"}`},
			call{"e1", "fs_write", `{"path":"ed.txt","content":"model"}`},
			call{"a1", "fs_write", `{"path":"ok.txt","content":"fine\n"}`}),
		openAIStyle("done"),
	)
	h := newHarness(t, approval.Ask, srv)
	ap := approverFunc(func(ctx context.Context, req approval.Request) (approval.Decision, error) {
		switch {
		case req.CallID == "d1":
			return approval.Decision{Choice: approval.Deny, Reason: "not that file"}, nil
		case req.CallID == "e1" && strings.Contains(string(req.Args), "model"):
			return approval.Decision{Choice: approval.Edit, Args: json.RawMessage(`{"path":"ed.txt","content":"user"}`)}, nil
		}
		return approval.Decision{Choice: approval.ApproveOnce}, nil
	})
	if err := h.run(context.Background(), "go", ap); err != nil {
		t.Fatal(err)
	}
	s, err := h.store.OpenSession(h.agent.Session().Info().ID)
	if err != nil {
		t.Fatal(err)
	}
	a2, err := New(Options{Client: chat.NewClient(chat.ClientConfig{BaseURL: srv.url()}), Model: "test-model", Registry: h.reg, Policy: h.policy, Store: h.store, Session: s, Workspace: h.ws})
	if err != nil {
		t.Fatal(err)
	}
	calls := a2.PastCalls()
	if len(calls) != 3 {
		t.Fatalf("past calls %+v; want 3", calls)
	}
	d, e, a := calls[0].Result, calls[1].Result, calls[2].Result
	if d.Status != StatusDenied || !strings.Contains(d.Message, "not that file") {
		t.Errorf("denied call recorded as %+v", d)
	}
	if !e.Call.Edited || !strings.Contains(string(e.Call.Args), "user") || e.Status != StatusOK {
		t.Errorf("edited call recorded as %+v", e)
	}
	if a.Status != StatusOK || !a.Reversible || !strings.Contains(a.Diff, "+fine") || calls[2].Decision == nil || calls[2].Decision.By != "user" {
		t.Errorf("approved call recorded as %+v (decision %+v)", a, calls[2].Decision)
	}
}

func TestOutputBudgetShrinksAsTheWindowFills(t *testing.T) {
	srv := newFakeServer(t)
	h := newHarness(t, approval.Ask, srv, func(o *Options) { o.ContextWindow = 32768 })
	empty := h.agent.OutputBudget()
	h.agent.mu.Lock()
	h.agent.tokensUsed = 30000
	h.agent.mu.Unlock()
	full := h.agent.OutputBudget()
	if empty > 8<<10 || full >= empty || full > 1024 {
		t.Fatalf("budget %d bytes with an empty 32k window, %d nearly full; want it small and shrinking", empty, full)
	}
}

func TestCancelledCommandKeepsItsOutput(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"s1", "shell_run", `{"command":"echo started; touch ready; sleep 100"}`}),
		openAIStyle("ok"),
	)
	h := newHarness(t, approval.Full, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- h.run(ctx, "go", approveAll()) }()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(h.ws, "ready")); err == nil {
			break
		}
	}
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("Run returned nil after a cancel")
	}
	r := h.results()
	if len(r) != 1 || r[0].Status != StatusCancelled || !strings.Contains(r[0].Body, "started") {
		t.Fatalf("results %+v; want a cancelled call with its output", r)
	}
	var tool string
	for _, m := range h.agent.Messages() {
		if m.Role == "tool" {
			tool = m.Content
		}
	}
	if !strings.Contains(tool, "started") || !strings.Contains(tool, `"stopped":true`) {
		t.Fatalf("the model reads %q; want the output so far and that it was stopped", tool)
	}
}

func TestCommandOutputStreamsBeforeTheResult(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"s1", "shell_run", `{"command":"echo first; sleep 0.5; echo second"}`}),
		openAIStyle("ok"),
	)
	h := newHarness(t, approval.Full, srv)
	if err := h.run(context.Background(), "go", approveAll()); err != nil {
		t.Fatal(err)
	}
	var live strings.Builder
	resultSeen := false
	h.mu.Lock()
	for _, e := range h.events {
		switch ev := e.(type) {
		case ToolOutputEvent:
			if resultSeen {
				t.Error("output came after the result")
			}
			live.WriteString(ev.Text)
		case ToolResultEvent:
			resultSeen = true
		}
	}
	h.mu.Unlock()
	if !strings.HasPrefix(live.String(), "first\n") {
		t.Fatalf("live output %q; want the first line while it ran", live.String())
	}
}

func TestRequestsSayWhichCallOfTheAnswer(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"a", "fs_write", `{"path":"a.txt","content":"a"}`}, call{"b", "fs_write", `{"path":"b.txt","content":"b"}`}),
		openAIStyle("", call{"c", "fs_write", `{"path":"c.txt","content":"c"}`}),
		openAIStyle("ok"),
	)
	h := newHarness(t, approval.Ask, srv)
	ap := approveAll()
	if err := h.run(context.Background(), "go", ap); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range ap.requests {
		got = append(got, fmt.Sprintf("%s:%d/%d", r.CallID, r.Position, r.Count))
	}
	if strings.Join(got, " ") != "a:1/2 b:2/2 c:1/1" {
		t.Fatalf("requests %v; want a:1/2 b:2/2 c:1/1", got)
	}
}

func TestNoServerHintNamesTheLikelyFix(t *testing.T) {
	a := &Agent{opts: Options{Client: chat.NewClient(chat.ClientConfig{BaseURL: "http://localhost:11434/v1"}), BaseURLOrigin: "the default (a local Ollama)"}}
	if h := a.noServerHint(); !strings.Contains(h, "ollama serve") || strings.Contains(h, "OPENAI_BASE_URL") {
		t.Errorf("default hint %q; want Ollama's steps without OPENAI_BASE_URL", h)
	}
	a.opts.BaseURLOrigin = "OPENAI_BASE_URL"
	if h := a.noServerHint(); !strings.Contains(h, "OPENAI_BASE_URL") {
		t.Errorf("hint %q; want OPENAI_BASE_URL named when it set the URL", h)
	}
	a.opts = Options{Client: chat.NewClient(chat.ClientConfig{BaseURL: "http://gpu:8000/v1"}), BaseURLOrigin: "base_url of [providers.vllm] in c.toml"}
	if h := a.noServerHint(); !strings.Contains(h, "[providers.vllm]") || strings.Contains(h, "OPENAI_BASE_URL") {
		t.Errorf("hint %q; want the config setting named", h)
	}
}

// A shell command's changes are in /diff too, like a file tool's.
func TestDiffShowsWhatAShellCommandChanged(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"s1", "shell_run", `{"command":"echo two >> a.txt && echo new > c.txt"}`}),
		openAIStyle("ok"),
	)
	h := newHarness(t, approval.Full, srv)
	if err := os.WriteFile(filepath.Join(h.ws, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := h.run(context.Background(), "go", approveAll()); err != nil {
		t.Fatal(err)
	}
	d, err := h.agent.Diff(1)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,2 @@\n one\n+two\n", "--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+new\n"} {
		if !strings.Contains(d, want) {
			t.Errorf("diff of the command lacks\n%s\ngot\n%s", want, d)
		}
	}
	if all, _ := h.agent.Diff(0); !strings.Contains(all, "+++ b/c.txt") {
		t.Errorf("session diff lacks the command's new file:\n%s", all)
	}
}
