package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"myclaw/approval"
)

// stageHook is a hook of stage running script (which may save its stdin
// in "$0.in").
func stageHook(t *testing.T, stage, script string) Hook {
	t.Helper()
	p := writeHook(t, t.TempDir(), stage, script)
	return Hook{Stage: stage, Tool: mustPattern(t, "*"), Command: []string{p}, Origin: "test: hooks." + stage}
}

// hookStdin is what the hook at command[0] last read.
func hookStdin(t *testing.T, h Hook) map[string]any {
	t.Helper()
	b, err := os.ReadFile(h.Command[0] + ".in")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("hook stdin %q: %v", b, err)
	}
	return m
}

func lastUserText(msgs []map[string]any) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i]["role"] == "user" {
			s, _ := msgs[i]["content"].(string)
			return withoutStateNotes(s)
		}
	}
	return ""
}

func TestUserPromptHookBlocksWithReason(t *testing.T) {
	srv := newFakeServer(t, openAIStyle("never sent"))
	hook := stageHook(t, StageUserPrompt, `cat > "$0.in"; echo '{"decision":"deny","reason":"no deploys on Friday"}'`)
	h := newHarness(t, approval.Ask, srv, func(o *Options) { o.Hooks = []Hook{hook} })
	err := h.run(context.Background(), "deploy now", nil)
	var ue *UserError
	if !errors.As(err, &ue) || !strings.Contains(ue.Msg, "blocked this prompt: no deploys on Friday") {
		t.Fatalf("err = %v; want the hook's reason", err)
	}
	if srv.count() != 0 || len(h.agent.Messages()) != 0 {
		t.Fatalf("a blocked prompt was sent (%d requests, %d messages)", srv.count(), len(h.agent.Messages()))
	}
	if in := hookStdin(t, hook); in["event"] != "user_prompt" || in["prompt"] != "deploy now" || in["session_id"] == "" {
		t.Errorf("hook read %v", in)
	}
}

func TestUserPromptHookAddsContext(t *testing.T) {
	srv := newFakeServer(t, openAIStyle("ok"))
	hook := stageHook(t, StageUserPrompt, `echo '{"context":"branch: main"}'`)
	h := newHarness(t, approval.Ask, srv, func(o *Options) { o.Hooks = []Hook{hook} })
	if err := h.run(context.Background(), "status?", nil); err != nil {
		t.Fatal(err)
	}
	if got := lastUserText(srv.messages(0)); got != "status?\n\n[myclaw hook context] branch: main" {
		t.Fatalf("user message %q", got)
	}
}

// A prompt guard that does not answer in time blocks the prompt.
func TestUserPromptHookTimeoutFailsClosed(t *testing.T) {
	srv := newFakeServer(t, openAIStyle("never sent"))
	hook := stageHook(t, StageUserPrompt, `sleep 30`)
	hook.Timeout = 200 * time.Millisecond
	h := newHarness(t, approval.Ask, srv, func(o *Options) { o.Hooks = []Hook{hook} })
	err := h.run(context.Background(), "hello", nil)
	var ue *UserError
	if !errors.As(err, &ue) || !strings.Contains(ue.Msg, "timed out after 200ms, so the prompt was not sent") {
		t.Fatalf("err = %v; want a time-out that blocks", err)
	}
	if srv.count() != 0 {
		t.Fatal("the prompt was sent past a hook that timed out")
	}
}

func TestStopHookMakesModelGoOnOnce(t *testing.T) {
	srv := newFakeServer(t, openAIStyle("Done, I think."), openAIStyle("Now the tests pass."))
	flag := filepath.Join(t.TempDir(), "asked")
	hook := stageHook(t, StageStop, `cat > "$0.in"; if [ -e `+flag+` ]; then exit 0; fi; touch `+flag+`; echo '{"decision":"deny","reason":"run the tests first"}'`)
	h := newHarness(t, approval.Ask, srv, func(o *Options) { o.Hooks = []Hook{hook} })
	if err := h.run(context.Background(), "fix it", nil); err != nil {
		t.Fatal(err)
	}
	if srv.count() != 2 {
		t.Fatalf("%d requests; want the model to go on once", srv.count())
	}
	if got := lastUserText(srv.messages(1)); got != "[myclaw stop hook] Do not stop yet: run the tests first" {
		t.Fatalf("second request ends with %q", got)
	}
	in := hookStdin(t, hook) // the second run's
	if in["event"] != "stop" || in["answer"] != "Now the tests pass." || in["continued"] != float64(1) {
		t.Errorf("hook read %v", in)
	}
	if d := h.done(); d.Reason != DoneStop {
		t.Errorf("done %+v", d)
	}
}

func TestStopHookIsBounded(t *testing.T) {
	srv := newFakeServer(t, openAIStyle("a"), openAIStyle("b"), openAIStyle("c"), openAIStyle("d"), openAIStyle("e"))
	hook := stageHook(t, StageStop, `echo '{"decision":"deny","reason":"more"}'`)
	h := newHarness(t, approval.Ask, srv, func(o *Options) { o.Hooks = []Hook{hook} })
	if err := h.run(context.Background(), "go", nil); err != nil {
		t.Fatal(err)
	}
	if srv.count() != 1+maxStopContinues {
		t.Fatalf("%d requests; want %d", srv.count(), 1+maxStopContinues)
	}
	if !strings.Contains(noticeText(h), "already did 3 times") {
		t.Errorf("notices %q", noticeText(h))
	}
}

// A stop hook that fails does not keep the model going.
func TestStopHookFailureEndsTurn(t *testing.T) {
	srv := newFakeServer(t, openAIStyle("done"), openAIStyle("never"))
	hook := stageHook(t, StageStop, `echo broken >&2; exit 2`)
	h := newHarness(t, approval.Ask, srv, func(o *Options) { o.Hooks = []Hook{hook} })
	if err := h.run(context.Background(), "go", nil); err != nil {
		t.Fatal(err)
	}
	if srv.count() != 1 || !strings.Contains(noticeText(h), "exit status 2: broken), so the turn ends") {
		t.Fatalf("%d requests, notices %q", srv.count(), noticeText(h))
	}
}

func noticeText(h *harness) string {
	var b strings.Builder
	for _, e := range h.eventsOf("notice") {
		b.WriteString(e.(NoticeEvent).Text + "\n")
	}
	return b.String()
}

func TestPostToolHookAddsNote(t *testing.T) {
	srv := newFakeServer(t, openAIStyle("", call{"k1", "time_now", `{}`}), openAIStyle("ok"))
	hook := stageHook(t, StagePostTool, `cat > "$0.in"; echo '{"note":"the clock is UTC on this machine"}'`)
	hook.Tool = mustPattern(t, "time_*")
	other := stageHook(t, StagePostTool, `echo '{"note":"must not run"}'`)
	other.Tool = mustPattern(t, "shell_run")
	h := newHarness(t, approval.Ask, srv, func(o *Options) { o.Hooks = []Hook{hook, other} })
	if err := h.run(context.Background(), "time?", nil); err != nil {
		t.Fatal(err)
	}
	content := toolMessages(srv.messages(1))[0]["content"].(string)
	if !strings.HasSuffix(content, "\n\n[myclaw hook note] the clock is UTC on this machine") || strings.Contains(content, "must not run") {
		t.Fatalf("tool message %q", content)
	}
	in := hookStdin(t, hook)
	if in["event"] != "post_tool" || in["tool"] != "time_now" || in["call_id"] != "k1" || in["status"] != StatusOK || !strings.Contains(in["result"].(string), `"ok":true`) {
		t.Errorf("hook read %v", in)
	}
}

// A post_tool hook gates nothing: its failure is reported, the result stands.
func TestPostToolHookFailureIsReported(t *testing.T) {
	srv := newFakeServer(t, openAIStyle("", call{"k1", "time_now", `{}`}), openAIStyle("ok"))
	hook := stageHook(t, StagePostTool, `exit 1`)
	h := newHarness(t, approval.Ask, srv, func(o *Options) { o.Hooks = []Hook{hook} })
	if err := h.run(context.Background(), "time?", nil); err != nil {
		t.Fatal(err)
	}
	if res := h.results(); len(res) != 1 || res[0].Status != StatusOK || !strings.Contains(noticeText(h), "the call's result stands") {
		t.Fatalf("results %+v notices %q", res, noticeText(h))
	}
}

func TestSessionStartHook(t *testing.T) {
	srv := newFakeServer(t, openAIStyle("ok"), openAIStyle("ok"))
	good := stageHook(t, StageSessionStart, `cat > "$0.in"; echo '{"context":"on-call this week: Ana"}'`)
	bad := stageHook(t, StageSessionStart, `exit 5`)
	h := newHarness(t, approval.Ask, srv, func(o *Options) { o.Hooks = []Hook{good, bad} })
	warnings := h.agent.StartSession(context.Background())
	if len(warnings) != 1 || !strings.Contains(warnings[0], "exit status 5") {
		t.Fatalf("warnings %q", warnings)
	}
	if in := hookStdin(t, good); in["event"] != "session_start" || in["source"] != "new" || in["model"] != "test-model" {
		t.Errorf("hook read %v", in)
	}
	if err := h.run(context.Background(), "who is on call?", nil); err != nil {
		t.Fatal(err)
	}
	if got := lastUserText(srv.messages(0)); !strings.Contains(got, "[myclaw note] session_start hook: on-call this week: Ana") {
		t.Fatalf("first prompt %q", got)
	}
	// /clear starts a session: the hooks run again, the failure is shown
	// when the next turn starts.
	if err := h.agent.NewConversation(); err != nil {
		t.Fatal(err)
	}
	if in := hookStdin(t, good); in["source"] != "clear" {
		t.Errorf("after /clear the hook read %v", in)
	}
	if err := h.run(context.Background(), "again", nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(noticeText(h), "exit status 5") {
		t.Errorf("notices %q", noticeText(h))
	}
}

func TestPreCompactHook(t *testing.T) {
	srv := newFakeServer(t, openAIStyle("one"), openAIStyle("two"), openAIStyle("three"), openAIStyle("## Goal\nsummary"))
	hook := stageHook(t, StagePreCompact, `cat > "$0.in"; echo '{"context":"the ticket number ABC-42"}'`)
	h := newHarness(t, approval.Ask, srv, func(o *Options) { o.Hooks = []Hook{hook} })
	ctx := context.Background()
	for _, p := range []string{"first", "second", "third"} {
		if err := h.run(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.agent.Compact(ctx, "the bug"); err != nil {
		t.Fatal(err)
	}
	sum, _ := json.Marshal(srv.request(3))
	if !strings.Contains(string(sum), "pre_compact hook asks the summary to keep: the ticket number ABC-42") {
		t.Fatalf("summary request %.600s", sum)
	}
	if in := hookStdin(t, hook); in["event"] != "pre_compact" || in["trigger"] != "manual" || in["focus"] != "the bug" {
		t.Errorf("hook read %v", in)
	}
}

// The notification hook hears of an approval that waits, and every hook
// run is in the audit log.
func TestNotificationHookAndAudit(t *testing.T) {
	srv := newFakeServer(t, openAIStyle("", call{"k1", "fs_write", `{"path":"a.txt","content":"x"}`}), openAIStyle("ok"))
	notif := stageHook(t, StageNotification, `cat > "$0.in"`)
	pre := stageHook(t, StagePreTool, `true`)
	auditPath := filepath.Join(t.TempDir(), approval.AuditFile)
	audit, err := approval.OpenAudit(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	defer audit.Close()
	h := newHarness(t, approval.Ask, srv, func(o *Options) { o.Hooks = []Hook{notif, pre}; o.Audit = audit })
	if err := h.run(context.Background(), "write", approveAll()); err != nil {
		t.Fatal(err)
	}
	in := hookStdin(t, notif)
	if in["event"] != "notification" || in["kind"] != "approval" || !strings.Contains(in["message"].(string), "fs_write") {
		t.Errorf("hook read %v", in)
	}
	entries, _, err := approval.ReadAudit(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if strings.HasPrefix(e.Tool, "hook:") {
			got = append(got, e.Tool+" "+e.Decision+" "+e.CallID)
		}
	}
	if strings.Join(got, ",") != "hook:pre_tool pass k1,hook:notification pass " {
		t.Errorf("hook runs audited: %q", got)
	}
}
