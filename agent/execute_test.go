package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"myclaw/approval"
)

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
