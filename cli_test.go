package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"myclaw/internal/apptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeThenRun writes a note, then runs command, as most turns end.
func writeThenRun(command string) func(first string, round int) (string, []scriptCall) {
	return func(first string, round int) (string, []scriptCall) {
		switch round {
		case 0:
			return "", []scriptCall{{Name: "fs_write", Args: `{"path":"notes/todo.md","content":"one\n"}`}}
		case 1:
			return "", []scriptCall{{Name: "shell_run", Args: `{"command":"` + command + `"}`}}
		}
		return "Done.", nil
	}
}

func TestUndoStepsOverShellCalls(t *testing.T) {
	e := newEnv(t, writeThenRun("head -c 9000000 /dev/zero > big.bin")) // over 8 MB: undo does not keep it
	if _, errOut, code := e.myclaw(nil, "-p", "go", "--model", "test-model", "--autonomy", "full"); code != 0 {
		t.Fatalf("run: code %d, stderr %q", code, errOut)
	}
	out, errOut, code := e.myclaw(nil, "undo")
	if code != 0 {
		t.Fatalf("undo: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	if !strings.Contains(out, "skipped shell_run `head -c 9000000 /dev/zero > big.bin`: its effects stay") || !strings.Contains(out, "Undid fs_write") {
		t.Fatalf("undo said %q; want the shell call skipped and the write undone", out)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "notes", "todo.md")); err == nil {
		t.Fatal("undo left the note")
	}
	out, _, code = e.myclaw(nil, "undo")
	if code != 0 || strings.TrimSpace(out) != "Nothing to undo." {
		t.Fatalf("second undo: code %d, %q; want Nothing to undo.", code, out)
	}
}

func TestHeadlessShowsAFailingCommandAsFailed(t *testing.T) {
	e := newEnv(t, writeThenRun("exit 1"))
	_, errOut, code := e.myclaw(nil, "-p", "go", "--model", "test-model", "--autonomy", "full")
	if code != 0 {
		t.Fatalf("run: code %d, stderr %q", code, errOut)
	}
	if !strings.Contains(errOut, "✗ shell_run exit 1") || strings.Contains(errOut, "✓ shell_run") {
		t.Fatalf("stderr %q; want the shell call drawn as failed with its exit status", errOut)
	}
}

// roundsThenAnswer talks in two rounds, the first with a call written as text.
func roundsThenAnswer(first string, round int) (string, []scriptCall) {
	switch round {
	case 0:
		return "I'll create the file.", []scriptCall{{Name: "time_now", Args: `{}`}}
	case 1:
		return "Checking.\n<tool_call>{\"name\":\"time_now\",\"arguments\":{}}</tool_call>", nil
	}
	return "Done.", nil
}

func TestHeadlessTextKeepsRoundsApart(t *testing.T) {
	e := newEnv(t, roundsThenAnswer)
	out, errOut, code := e.myclaw(nil, "-p", "go", "--model", "test-model")
	if code != 0 {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	if out != "I'll create the file.\nChecking.\nDone.\n" {
		t.Fatalf("stdout %q; want each round on its own line and no text tool call", out)
	}
	// Under 2>&1 the activity lines start lines of their own.
	cmd := exec.Command(os.Args[0], "-p", "go", "--model", "test-model")
	cmd.Env = append(e.Vars(), "MYCLAW_TEST_AS_MAIN=1")
	cmd.Dir = e.WS
	both, _ := cmd.CombinedOutput()
	for _, l := range strings.Split(string(both), "\n") {
		if strings.Contains(l, "→") && !strings.HasPrefix(l, "→") {
			t.Errorf("an activity line is glued to text: %q\n%s", l, both)
		}
	}
}

func jsonEvents(t *testing.T, out string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q is not JSON: %v\n%s", l, err, out)
		}
		evs = append(evs, m)
	}
	return evs
}

func TestHeadlessJSONSessionAndResult(t *testing.T) {
	e := newEnv(t, roundsThenAnswer)
	out, errOut, code := e.myclaw(nil, "-p", "go", "--model", "test-model", "--output", "json")
	if code != 0 || errOut != "" {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	evs := jsonEvents(t, out)
	first, last := evs[0], evs[len(evs)-1]
	id, _ := first["session_id"].(string)
	if first["type"] != "session" || id == "" || first["model"] != "test-model" || first["workspace"] == "" {
		t.Fatalf("first event %v; want the session id, model and workspace", first)
	}
	usage, _ := last["usage"].(map[string]any)
	if last["type"] != "result" || last["session_id"] != id || last["text"] != "I'll create the file.\nChecking.\nDone." ||
		last["reason"] != "stop" || last["exit_code"] != float64(0) || usage["total_tokens"].(float64) <= 0 {
		t.Fatalf("result event %v", last)
	}
	// The session id works for undo.
	if out, _, code := e.myclaw(nil, "undo", "--session", id); code != 0 || !strings.Contains(out, "Nothing to undo.") {
		t.Fatalf("undo --session %s: code %d, %q", id, code, out)
	}
}

func TestHeadlessJSONStartupFailure(t *testing.T) {
	e := newEnv(t, roundsThenAnswer)
	out, errOut, code := e.myclaw(nil, "-p", "go", "--model", "nope", "--output", "json")
	if code != 1 || errOut != "" {
		t.Fatalf("code %d, stderr %q; want 1 and nothing on stderr", code, errOut)
	}
	evs := jsonEvents(t, out)
	last := evs[len(evs)-1]
	if evs[0]["type"] != "session" || evs[len(evs)-2]["type"] != "error" || !strings.Contains(evs[len(evs)-2]["message"].(string), "no model") {
		t.Fatalf("events %v; want session, then the error", evs)
	}
	if last["type"] != "result" || last["reason"] != "error" || last["exit_code"] != float64(1) {
		t.Fatalf("result %v", last)
	}
	// A bad config fails before any session: still JSON on stdout.
	bad := filepath.Join(e.Config, "bad.toml")
	os.WriteFile(bad, []byte("autonomy = \"sometimes\"\n"), 0o644)
	out, errOut, code = e.myclaw(nil, "-p", "go", "--config", bad, "--output", "json")
	evs = jsonEvents(t, out)
	if code != 1 || errOut != "" || evs[0]["type"] != "error" || evs[len(evs)-1]["type"] != "result" {
		t.Fatalf("bad config: code %d, stderr %q, events %v", code, errOut, evs)
	}
}

func TestApprovalsAreScopedToTheWorkspace(t *testing.T) {
	e := newEnv(t, writeNote)
	if _, errOut, code := e.myclaw(nil, "-p", "write the note", "--model", "test-model"); code != 0 {
		t.Fatalf("run: %d %q", code, errOut)
	}
	// The same state, another workspace.
	other := &env{&apptest.Env{T: t, WS: t.TempDir(), State: e.State, Config: e.Config, Srv: e.Srv}}
	out, _, _ := other.myclaw(nil, "history", "--approvals")
	if !strings.HasPrefix(out, "No approval decisions in ") {
		t.Fatalf("another workspace sees %q; want none of the first one's decisions", out)
	}
	out, _, _ = other.myclaw(nil, "history", "--approvals", "--all")
	if !strings.Contains(out, "fs_write") || !strings.Contains(out, e.WS) {
		t.Fatalf("--all shows %q; want the decision with its workspace", out)
	}
	hist, _, _ := e.myclaw(nil, "history")
	id := strings.Fields(hist)[1]
	out, _, _ = e.myclaw(nil, "history", "--approvals")
	if !strings.Contains(out, "fs_write") || !strings.Contains(out, id) {
		t.Fatalf("own workspace shows %q; want the decision with session %s", out, id)
	}
}

func TestCLIUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, nil, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("help: code %d", code)
	}
	help := errb.String()
	for _, want := range []string{"  --model name", "  --workspace dir", "  -p prompt", "OPENAI_BASE_URL", "OPENAI_API_KEY", "myclaw sessions"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "\n  -model") {
		t.Errorf("--help shows single-dash long flags:\n%s", help)
	}
	errb.Reset()
	if code := run(context.Background(), []string{"--no-such-flag"}, nil, strings.NewReader(""), &out, &errb); code != 2 {
		t.Fatalf("bad flag: code %d", code)
	}
	if got := errb.String(); strings.Count(got, "no-such-flag") != 1 || strings.Contains(got, "Flags:") {
		t.Errorf("bad flag printed %q; want the error once and no usage dump", got)
	}
}

func TestPipedStdinSuggestsDashP(t *testing.T) {
	e := newEnv(t, writeNote)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(e.Vars(), "MYCLAW_TEST_AS_MAIN=1")
	cmd.Dir = e.WS
	cmd.Stdin = strings.NewReader("hi\n")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	if ee := (*exec.ExitError)(nil); !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(errb.String(), "myclaw -p -") {
		t.Fatalf("echo hi | myclaw: %v, stderr %q; want exit 2 suggesting -p -", err, errb.String())
	}
}

func TestSessionsCommand(t *testing.T) {
	e := newEnv(t, writeNote)
	out, _, code := e.myclaw(nil, "sessions")
	if code != 0 || !strings.HasPrefix(out, "No sessions in ") {
		t.Fatalf("sessions before any: code %d, %q", code, out)
	}
	if _, errOut, code := e.myclaw(nil, "-p", "say hello", "--model", "test-model"); code != 0 {
		t.Fatalf("run: %d %q", code, errOut)
	}
	out, _, code = e.myclaw(nil, "sessions")
	if code != 0 || !strings.Contains(out, "say hello") || !strings.Contains(out, "myclaw --session ID") {
		t.Fatalf("sessions: code %d, %q", code, out)
	}
}

func TestMissingExplicitConfig(t *testing.T) {
	e := newEnv(t, writeNote)
	_, errOut, code := e.myclaw(nil, "-p", "x", "--config", filepath.Join(e.Config, "nope.toml"))
	if code != 1 || !strings.Contains(errOut, "There is no config file") || strings.Contains(errOut, "pass --config FILE") {
		t.Fatalf("code %d, stderr %q; want the missing file named, without suggesting --config", code, errOut)
	}
}

// --screen takes the modes of [ui] screen and names them when it is wrong.
func TestScreenFlag(t *testing.T) {
	e := newEnv(t, writeNote)
	_, errOut, code := e.myclaw(nil, "-p", "go", "--model", "test-model", "--screen", "sideways")
	if code != 2 || !strings.Contains(errOut, `--screen "sideways": want auto, alternate or inline`) {
		t.Errorf("got code %d, %q; want 2 and the allowed modes", code, errOut)
	}
	if _, errOut, code := e.myclaw(nil, "-p", "go", "--model", "test-model", "--screen", "inline"); code != 0 {
		t.Errorf("--screen inline: code %d, %q; want 0", code, errOut)
	}
}

// A session continued from another folder would undo there: --session,
// headless or not, and `undo --session` refuse, naming the session's
// own workspace, as /resume does; this folder's files stay as they are.
func TestSessionOfAnotherWorkspaceIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (runs the binary): left out of the quick -short run")
	}
	e := newEnv(t, writeNote)
	out, errOut, code := e.myclaw(nil, "-p", "write the note", "--model", "test-model", "--autonomy", "full", "--output", "json")
	if code != 0 {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	id, _ := jsonEvents(t, out)[0]["session_id"].(string)
	other := t.TempDir()
	copyOfNote := filepath.Join(other, "notes", "hello.txt")
	if err := os.MkdirAll(filepath.Dir(copyOfNote), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copyOfNote, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"-p", "go on", "--model", "test-model", "--workspace", other, "--session", id},
		{"undo", "--workspace", other, "--session", id},
	} {
		_, errOut, code := e.myclaw(nil, args...)
		if code == 0 || !strings.Contains(errOut, "belongs to another workspace") || !strings.Contains(errOut, e.WS) {
			t.Errorf("%v: code %d, stderr %q; want a refusal naming %s", args, code, errOut, e.WS)
		}
	}
	if _, err := os.Stat(copyOfNote); err != nil {
		t.Errorf("the other folder's copy of the note is gone: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "notes", "hello.txt")); err != nil {
		t.Errorf("the session's own note is gone: %v", err)
	}
}
