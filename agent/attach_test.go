package agent

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
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
			return withoutStateNotes(s)
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
	if !res.Call.Typed || !evs[0].(ToolCallEvent).Call.Typed {
		t.Errorf("the command is not marked as one the user typed: %+v", res.Call)
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
	// It changed nothing in the workspace: nothing for /history or /undo.
	if entries, _ := h.agent.History(); len(entries) != 0 {
		t.Fatalf("journal %+v; want nothing for a command that changed nothing", entries)
	}
}

func TestRunShellRefusedWhileTurnRuns(t *testing.T) {
	t.Parallel()
	h := newHarness(t, approval.Ask, newFakeServer(t))
	userToolsOf(h)
	h.agent.mu.Lock()
	h.agent.running = true
	h.agent.mu.Unlock()
	if err := h.agent.RunShell(context.Background(), "true", func(Event) {}); !errors.Is(err, ErrBusy) {
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
	if !strings.Contains(user, "<untrusted source=\"glob:src/*\"") || !strings.Contains(user, "\nsrc/main.go\nsrc/util.go\n</untrusted>") {
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

// pngBytes is a 1x1 PNG.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

func TestMentionImageAsContentPart(t *testing.T) {
	t.Parallel()
	srv := newFakeServer(t, openAIStyle("a red dot"))
	h := newHarness(t, approval.Ask, srv)
	userToolsOf(h)
	root := openRoot(t, h.ws)
	h.agent.opts.UserTools.Root, h.agent.opts.UserTools.Vision = root, true
	writeFile(t, filepath.Join(h.ws, "shots", "dot.png"), string(pngBytes))
	writeFile(t, filepath.Join(h.ws, "fake.png"), "not an image at all")
	writeFile(t, filepath.Join(h.ws, "big.png"), string(pngBytes)+strings.Repeat("x", MaxImageBytes))
	var evs []Event
	if err := h.agent.Mention(context.Background(), "shots/dot.png", func(e Event) { evs = append(evs, e) }); err != nil {
		t.Fatal(err)
	}
	if r := evs[len(evs)-1].(ToolResultEvent); r.Status != StatusOK || !r.Call.Attached || r.Summary != "image/png, 67 B" {
		t.Fatalf("chip event %+v", r)
	}
	for p, want := range map[string]string{"fake.png": "not an image", "big.png": "images up to 5.0 MB", "../out.png": "outside the workspace"} {
		if err := h.agent.Mention(context.Background(), p, func(Event) {}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("@%s: %v; want %q", p, err, want)
		}
	}
	if err := h.run(context.Background(), "what is in @shots/dot.png?", approveAll()); err != nil {
		t.Fatal(err)
	}
	msgs := srv.messages(0)
	parts, ok := msgs[len(msgs)-1]["content"].([]any)
	if !ok || len(parts) != 2 {
		t.Fatalf("content %#v; want a text part and an image part", msgs[len(msgs)-1]["content"])
	}
	text := parts[0].(map[string]any)
	img := parts[1].(map[string]any)
	if text["type"] != "text" || !strings.HasPrefix(withoutStateNotes(text["text"].(string)), "what is in @shots/dot.png?\n\n[myclaw attachment] The user attached the image @shots/dot.png") {
		t.Errorf("text part %v", text)
	}
	url := img["image_url"].(map[string]any)["url"].(string)
	if img["type"] != "image_url" || url != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(pngBytes) {
		t.Errorf("image part %v", img)
	}
}

func TestMentionImageWithoutVision(t *testing.T) {
	t.Parallel()
	h := newHarness(t, approval.Ask, newFakeServer(t))
	userToolsOf(h)
	h.agent.opts.UserTools.Root = openRoot(t, h.ws)
	writeFile(t, filepath.Join(h.ws, "dot.png"), string(pngBytes))
	var evs []Event
	err := h.agent.Mention(context.Background(), "dot.png", func(e Event) { evs = append(evs, e) })
	if err == nil || !strings.Contains(err.Error(), "not set up to take images") {
		t.Fatalf("got %v", err)
	}
	if r := evs[len(evs)-1].(ToolResultEvent); r.Status != StatusError || !strings.Contains(r.Hint, "vision = true") {
		t.Fatalf("chip %+v", r)
	}
	if h.agent.Pending() != 0 {
		t.Fatal("an image was attached for a model without vision")
	}
}

// A command the user runs with !command is journaled like the model's:
// /undo walks back what it changed in the workspace, and its card says so.
func TestUserCommandIsUndoable(t *testing.T) {
	srv := newFakeServer(t)
	h := newHarness(t, approval.Ask, srv)
	userToolsOf(h)
	var evs []Event
	if err := h.agent.RunShell(context.Background(), "echo made > made.txt", func(e Event) { evs = append(evs, e) }); err != nil {
		t.Fatal(err)
	}
	res := evs[1].(ToolResultEvent)
	if !res.Reversible || !strings.Contains(res.UndoPlan, "Undo") {
		t.Fatalf("the card does not say the command can be undone: %+v", res)
	}
	entries, _ := h.agent.History()
	if len(entries) != 1 || !entries[0].Reversible {
		t.Fatalf("journal %+v; want one reversible entry", entries)
	}
	if _, err := h.agent.Undo(context.Background(), 1, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "made.txt")); !os.IsNotExist(err) {
		t.Fatalf("undo left the file the user's command made: %v", err)
	}
}
