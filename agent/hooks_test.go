package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"myclaw/approval"
	"myclaw/tools/secret"
)

// writeHook writes an executable hook script into dir.
func writeHook(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPreToolHooks(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name       string
		script     string
		timeout    time.Duration
		level      approval.Level
		wantStatus string
		wantText   []string
		asked      bool
	}{
		{"deny with a reason", `cat > "$0.in"; echo '{"decision":"deny","reason":"writes to notes/ are frozen"}'`, 0, approval.Full, StatusDenied, []string{"writes to notes/ are frozen"}, false},
		{"allow skips the question", `echo '{"decision":"allow"}'`, 0, approval.Ask, StatusOK, nil, false},
		{"pass leaves it to the policy", `true`, 0, approval.Ask, StatusOK, nil, true},
		{"failure denies", `echo boom >&2; exit 3`, 0, approval.Full, StatusDenied, []string{"failed", "exit status 3", "boom"}, false},
		{"nonsense denies", `echo 'sure, why not'`, 0, approval.Full, StatusDenied, []string{"not a decision"}, false},
		{"timeout denies", `sleep 30`, 200 * time.Millisecond, approval.Full, StatusDenied, []string{"timed out"}, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := writeHook(t, dir, "hook"+string(rune('a'+i)), tt.script)
			srv := newFakeServer(t,
				openAIStyle("", call{"k1", "fs_write", `{"path":"notes/a.txt","content":"x"}`}),
				openAIStyle("ok"),
			)
			h := newHarness(t, tt.level, srv, func(o *Options) {
				o.Hooks = []Hook{{Tool: mustPattern(t, "fs_*"), Command: []string{script}, Timeout: tt.timeout}}
			})
			ap := approveAll()
			if err := h.run(context.Background(), "write", ap); err != nil {
				t.Fatal(err)
			}
			res := h.results()
			if len(res) != 1 || res[0].Status != tt.wantStatus {
				t.Fatalf("results %+v; want status %s", res, tt.wantStatus)
			}
			content := toolMessages(srv.messages(1))[0]["content"].(string)
			for _, w := range tt.wantText {
				if !strings.Contains(content, w) {
					t.Errorf("tool message %s lacks %q", content, w)
				}
			}
			if (len(ap.requests) > 0) != tt.asked {
				t.Errorf("asked %d times; want asked=%v", len(ap.requests), tt.asked)
			}
		})
	}
	// The hook read the call on stdin.
	in, err := os.ReadFile(filepath.Join(dir, "hooka.in"))
	if err != nil || !strings.Contains(string(in), `"tool":"fs_write"`) || !strings.Contains(string(in), `"event":"pre_tool"`) {
		t.Fatalf("hook input %q, %v", in, err)
	}
}

func TestHookDoesNotMatchOtherTools(t *testing.T) {
	script := writeHook(t, t.TempDir(), "deny", `echo '{"decision":"deny","reason":"no"}'`)
	srv := newFakeServer(t, openAIStyle("", call{"k1", "time_now", `{}`}), openAIStyle("ok"))
	h := newHarness(t, approval.Ask, srv, func(o *Options) {
		o.Hooks = []Hook{{Tool: mustPattern(t, "shell_run"), Command: []string{script}}}
	})
	if err := h.run(context.Background(), "time", nil); err != nil {
		t.Fatal(err)
	}
	if res := h.results(); len(res) != 1 || res[0].Status != StatusOK {
		t.Fatalf("results %+v", res)
	}
}

func mustPattern(t *testing.T, p string) approval.ToolPattern {
	t.Helper()
	tp, err := approval.CompileToolPattern(p)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// A hook runs in the user's environment (PATH, HOME, ...) minus secrets.
func TestHookEnvironment(t *testing.T) {
	t.Setenv("MYCLAW_HOOK_PROBE", "visible")
	t.Setenv("OPENAI_API_KEY", "sk-hidden")
	script := writeHook(t, t.TempDir(), "env", `echo "{\"decision\":\"deny\",\"reason\":\"probe=$MYCLAW_HOOK_PROBE key=$OPENAI_API_KEY\"}"`)
	srv := newFakeServer(t, openAIStyle("", call{"k1", "fs_write", `{"path":"a.txt","content":"x"}`}), openAIStyle("ok"))
	h := newHarness(t, approval.Full, srv, func(o *Options) {
		o.Hooks = []Hook{{Tool: mustPattern(t, "*"), Command: []string{script}}}
	})
	if err := h.run(context.Background(), "write", nil); err != nil {
		t.Fatal(err)
	}
	content := toolMessages(srv.messages(1))[0]["content"].(string)
	if !strings.Contains(content, "probe=visible") || strings.Contains(content, "sk-hidden") {
		t.Fatalf("hook saw %s; want the probe and no key", content)
	}
}

// A credential myclaw holds reaches no hook under any name, and a hook
// that prints one in its reason (read from a file, say) has it redacted
// for the model, the screen and the audit log.
func TestHookCredentialByValue(t *testing.T) {
	const key = "hook-known-credential-8c2f"
	secret.Add(key)
	t.Setenv("INNOCENT_NAME", key)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "k"), []byte(key), 0o600)
	script := writeHook(t, dir, "env", `echo "{\"decision\":\"deny\",\"reason\":\"env=$INNOCENT_NAME file=$(cat `+filepath.Join(dir, "k")+`)\"}"`)
	srv := newFakeServer(t, openAIStyle("", call{"k1", "fs_write", `{"path":"a.txt","content":"x"}`}), openAIStyle("ok"))
	h := newHarness(t, approval.Full, srv, func(o *Options) {
		o.Hooks = []Hook{{Tool: mustPattern(t, "*"), Command: []string{script}}}
	})
	if err := h.run(context.Background(), "write", nil); err != nil {
		t.Fatal(err)
	}
	content := toolMessages(srv.messages(1))[0]["content"].(string)
	if !strings.Contains(content, "env= file=[redacted]") || strings.Contains(content, key) {
		t.Fatalf("the model got %s; want no value in the hook's env and the file's redacted", content)
	}
	// The screen and the audit log get the decision from the events.
	h.mu.Lock()
	events, _ := json.Marshal(h.events)
	h.mu.Unlock()
	if strings.Contains(string(events), key) || !strings.Contains(string(events), "file=[redacted]") {
		t.Fatalf("events %s; want the hook's reason with the key redacted", events)
	}
}
