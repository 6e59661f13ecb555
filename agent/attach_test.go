package agent

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"myclaw/approval"
	"myclaw/tools"
)

// userToolsOf wires the harness's registered tools as the user's tools.
func userToolsOf(h *harness) {
	sh, _ := h.reg.Lookup("shell_run")
	rd, _ := h.reg.Lookup("fs_read")
	ls, _ := h.reg.Lookup("glob_list")
	h.agent.opts.UserTools = UserTools{Shell: sh, Reader: rd, Lister: ls}
}

func lastUserContent(t *testing.T, srv *fakeServer, i int) string {
	t.Helper()
	msgs := srv.messages(i)
	for k := len(msgs) - 1; k >= 0; k-- {
		if msgs[k]["role"] == "user" {
			s, _ := msgs[k]["content"].(string)
			return s
		}
	}
	t.Fatalf("request %d has no user message", i)
	return ""
}

func TestRunShellOutputReachesNextRequestFenced(t *testing.T) {
	srv := newFakeServer(t, openAIStyle("seen"))
	h := newHarness(t, approval.Ask, srv)
	userToolsOf(h)
	t.Setenv("MYCLAW_TEST_TOKEN", "s3cret") // named like a secret: scrubbed
	var evs []Event
	err := h.agent.RunShell(context.Background(), "echo hello-from-shell; echo \"tok=$MYCLAW_TEST_TOKEN\"", func(e Event) { evs = append(evs, e) })
	if err != nil {
		t.Fatal(err)
	}
	if srv.count() != 0 {
		t.Fatalf("running the command sent %d requests to the model", srv.count())
	}
	if len(evs) != 4 || evs[0].Type() != "tool_call" || evs[1].Type() != "tool_result" || evs[2].Type() != "notice" || evs[3].Type() != "done" {
		t.Fatalf("events %v; want tool_call, tool_result, notice, done", evs)
	}
	res := evs[1].(ToolResultEvent)
	if res.Status != StatusOK || !res.Untrusted || !strings.Contains(res.Body, "hello-from-shell") {
		t.Fatalf("result %+v", res)
	}
	if strings.Contains(res.Content, "s3cret") {
		t.Fatalf("a secret reached the output: %s", res.Content)
	}
	rec := approveAll()
	if err := h.run(context.Background(), "what did it print?", rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.requests) != 0 {
		t.Fatalf("the command asked for approval: %v", rec.requests)
	}
	user := lastUserContent(t, srv, 0)
	if !strings.HasPrefix(user, "what did it print?\n\n[myclaw attachment] The user ran this command") {
		t.Fatalf("user message does not start with the prompt then the attachment:\n%s", user)
	}
	if !strings.Contains(user, res.Content) {
		t.Fatalf("the model does not get exactly the fenced result:\n%s\nwant inside:\n%s", user, res.Content)
	}
	if !strings.Contains(user, "<untrusted source=") || !strings.Contains(user, tools.UntrustedNote) {
		t.Fatalf("the output is not fenced:\n%s", user)
	}
	// Delivered once.
	srv.replies = append(srv.replies, openAIStyle("ok"))
	if err := h.run(context.Background(), "next", rec); err != nil {
		t.Fatal(err)
	}
	if got := lastUserContent(t, srv, 1); got != "next" {
		t.Fatalf("the attachment was sent again: %q", got)
	}
	entries, _ := h.agent.History()
	if len(entries) != 1 || entries[0].Reversible || !strings.HasPrefix(entries[0].Summary, "you ran: echo hello") {
		t.Fatalf("journal %+v; want one irreversible entry for the command", entries)
	}
}

func TestRunShellRefusedWhileTurnRuns(t *testing.T) {
	t.Parallel()
	h := newHarness(t, approval.Ask, newFakeServer(t))
	userToolsOf(h)
	h.agent.mu.Lock()
	h.agent.running = true
	h.agent.mu.Unlock()
	if err := h.agent.RunShell(context.Background(), "true", func(Event) {}); err != ErrBusy {
		t.Fatalf("got %v; want ErrBusy", err)
	}
}

func TestMentionAttachesExactlyFsRead(t *testing.T) {
	t.Parallel()
	srv := newFakeServer(t, openAIStyle("ok"))
	h := newHarness(t, approval.Ask, srv)
	userToolsOf(h)
	writeFile(t, filepath.Join(h.ws, "src", "main.go"), "package main\n\nfunc main() {}\n")
	writeFile(t, filepath.Join(h.ws, "src", "util.go"), "package main\n")
	if err := h.agent.Mention(context.Background(), "src/main.go", func(Event) {}); err != nil {
		t.Fatal(err)
	}
	if err := h.agent.Mention(context.Background(), "src/", func(Event) {}); err != nil {
		t.Fatal(err)
	}
	err := h.agent.Mention(context.Background(), "nope.go", func(Event) {})
	if err == nil || !strings.Contains(err.Error(), "@nope.go was not attached") {
		t.Fatalf("a missing file: %v", err)
	}
	if err := h.run(context.Background(), "explain @src/main.go", approveAll()); err != nil {
		t.Fatal(err)
	}
	user := lastUserContent(t, srv, 0)
	// What fs_read itself returns for the file, byte for byte but the
	// fence's time stamp.
	rd, _ := h.reg.Lookup("fs_read")
	res, rerr := tools.Call(context.Background(), rd, json.RawMessage(`{"path":"src/main.go"}`), false)
	want := tools.Envelope(rd.Meta(), res, rerr, time.Time{})
	got := user[strings.Index(user, `{"ok":true,"path":"src/main.go"`):]
	got = got[:strings.Index(got, tools.UntrustedNote)+len(tools.UntrustedNote)]
	if stripTime(got) != stripTime(want) {
		t.Fatalf("attached\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(user, `"matches":["src/main.go","src/util.go"]`) {
		t.Fatalf("the folder listing is missing:\n%s", user)
	}
	if strings.Contains(user, "nope.go was") {
		t.Fatalf("a failed mention was attached")
	}
}

// stripTime blanks the fence's retrieved_at.
func stripTime(s string) string {
	i := strings.Index(s, `retrieved_at="`)
	if i < 0 {
		return s
	}
	j := strings.Index(s[i+14:], `"`)
	return s[:i+14] + s[i+14+j:]
}

func TestAttachmentSurvivesRestart(t *testing.T) {
	t.Parallel()
	srv := newFakeServer(t, openAIStyle("ok"))
	h := newHarness(t, approval.Ask, srv)
	userToolsOf(h)
	if err := h.agent.RunShell(context.Background(), "echo kept", func(Event) {}); err != nil {
		t.Fatal(err)
	}
	s, err := h.store.OpenSession(h.agent.Session().Info().ID)
	if err != nil {
		t.Fatal(err)
	}
	a2, err := New(Options{Client: h.agent.opts.Client, Model: "test-model", Registry: h.reg, Policy: h.policy, Store: h.store, Session: s, Workspace: h.ws})
	if err != nil {
		t.Fatal(err)
	}
	if a2.Pending() != 1 {
		t.Fatalf("%d attachments after reopening; want 1", a2.Pending())
	}
}
