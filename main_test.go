package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/history"
	"myclaw/internal/apptest"
	"myclaw/sandbox"
)

// TestMain lets the test binary act as myclaw itself when asked, so tests
// can run it as a separate process (as a user or a script would).
func TestMain(m *testing.M) {
	sandbox.Launch() // confined shell commands re-execute this binary
	if os.Getenv("MYCLAW_TEST_AS_MAIN") == "1" {
		os.Unsetenv("MYCLAW_TEST_AS_MAIN")
		main()
		return
	}
	if os.Getenv("MYCLAW_TEST_MCP_SERVER") == "1" {
		apptest.ServeMCP()
		return
	}
	if os.Getenv("MYCLAW_TEST_BROWSER") == "1" {
		apptest.Browse(os.Args[1:])
		return
	}
	os.Exit(m.Run())
}

// The scripted server and the environment come from apptest; main's tests
// add running myclaw itself.
type scriptCall = apptest.Call

// env is a test environment that can run myclaw as a separate process.
type env struct{ *apptest.Env }

func newEnv(t *testing.T, script apptest.Script) *env { return &env{apptest.NewEnv(t, script)} }

var writeNote = apptest.WriteNote

// myclaw runs the test binary as myclaw in its own process.
func (e *env) myclaw(extraEnv []string, args ...string) (stdout, stderr string, code int) {
	e.T.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(e.Vars(), "MYCLAW_TEST_AS_MAIN=1"), extraEnv...)
	cmd.Dir = e.WS
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = 0
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		e.T.Fatalf("run myclaw: %v", err)
	}
	return out.String(), errb.String(), code
}

func TestHeadlessAndJournalCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (builds and runs the binary many times): left out of the quick -short run")
	}
	e := newEnv(t, writeNote)
	out, errOut, code := e.myclaw(nil, "-p", "say hello", "--model", "test-model")
	if code != 0 || !strings.Contains(out, "Hello there.") {
		t.Fatalf("say hello: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, _, code = e.myclaw(nil, "-p", "say hello", "--model", "test-model", "--output", "json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var types []string
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q is not JSON: %v", l, err)
		}
		types = append(types, m["type"].(string))
	}
	if code != 0 || types[0] != "session" || types[1] != "text" || types[len(types)-2] != "done" || types[len(types)-1] != "result" {
		t.Fatalf("json types %v (code %d)", types, code)
	}

	_, errOut, code = e.myclaw(nil, "-p", "write the note", "--model", "test-model")
	if code != 0 || !strings.Contains(errOut, "fs_write denied") {
		t.Fatalf("headless ask: code %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "notes")); err == nil {
		t.Fatal("headless ask wrote the note")
	}
	_, errOut, code = e.myclaw(nil, "-p", "write the note", "--model", "test-model", "--autonomy", "full")
	if code != 0 {
		t.Fatalf("full: code %d, stderr %q", code, errOut)
	}
	hist, _, _ := e.myclaw(nil, "history")
	if !strings.Contains(hist, "fs_write") || !strings.Contains(hist, "Create notes/hello.txt") {
		t.Fatalf("history: %q", hist)
	}
	out, _, code = e.myclaw(nil, "undo")
	if code != 0 || !strings.Contains(out, "Undid fs_write") {
		t.Fatalf("undo: code %d, %q", code, out)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "notes")); err == nil {
		t.Fatal("undo left the note (or its folder)")
	}
	if out, _, code = e.myclaw(nil, "redo"); code != 0 {
		t.Fatalf("redo: %d %q", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(e.WS, "notes/hello.txt")); string(b) != "hello\n" {
		t.Fatalf("redo: note holds %q", b)
	}
	// The user edits the note; undo refuses, --force does it and redo brings the edit back.
	os.WriteFile(filepath.Join(e.WS, "notes/hello.txt"), []byte("mine\n"), 0o644)
	out, _, code = e.myclaw(nil, "undo")
	if code == 0 || !strings.Contains(out, "--force") {
		t.Fatalf("undo after an edit: code %d, %q", code, out)
	}
	if _, _, code = e.myclaw(nil, "undo", "--force"); code != 0 {
		t.Fatalf("undo --force: code %d", code)
	}
	if _, err := os.Stat(filepath.Join(e.WS, "notes/hello.txt")); err == nil {
		t.Fatal("forced undo kept the note")
	}
	e.myclaw(nil, "redo")
	if b, _ := os.ReadFile(filepath.Join(e.WS, "notes/hello.txt")); string(b) != "mine\n" {
		t.Fatalf("redo after a forced undo: %q; want the user's version", b)
	}
	approvals, _, _ := e.myclaw(nil, "history", "--approvals")
	if !strings.Contains(approvals, "deny") || !strings.Contains(approvals, "allow") {
		t.Fatalf("approvals: %q", approvals)
	}
}

func TestUsageErrors(t *testing.T) {
	e := newEnv(t, writeNote)
	for _, args := range [][]string{
		{"-p", "x", "--no-such-flag"},
		{"--output", "xml", "-p", "x"},
		{"undo", "zero"},
		{"-p", "x", "extra"},
		{"--autonomy", "yolo", "-p", "x"},
		{"--continue", "--session", "s", "-p", "x"},
		{"--fork", "-p", "x"},
	} {
		_, errOut, code := e.myclaw(nil, args...)
		if code != 2 || !strings.Contains(errOut, "myclaw:") {
			t.Errorf("%v: code %d, stderr %q; want 2 with a message", args, code, errOut)
		}
	}
}

// --resume, as other agents spell it, is named myclaw's way.
func TestResumeFlagPointsToContinueAndSession(t *testing.T) {
	e := newEnv(t, writeNote)
	_, errOut, code := e.myclaw(nil, "--resume")
	if code != 2 || !strings.Contains(errOut, "--continue resumes the newest session") || !strings.Contains(errOut, "--session ID") {
		t.Fatalf("--resume: code %d, stderr %q", code, errOut)
	}
}

func TestServerProblemsExitOne(t *testing.T) {
	e := newEnv(t, writeNote)
	_, errOut, code := e.myclaw(nil, "-p", "hi", "--model", "nope")
	if code != 1 || !strings.Contains(errOut, `no model "nope"`) || !strings.Contains(errOut, "test-model") {
		t.Fatalf("unknown model: code %d, stderr %q", code, errOut)
	}
	_, errOut, code = e.myclaw([]string{"OPENAI_BASE_URL=http://127.0.0.1:1/v1"}, "-p", "hi", "--model", "m")
	if code != 1 || !strings.Contains(errOut, "No model server at http://127.0.0.1:1/v1") || !strings.Contains(errOut, "OPENAI_BASE_URL") {
		t.Fatalf("no server: code %d, stderr %q", code, errOut)
	}
}

// TestSecretsStayOutOfChildren: a shell command cannot see the API key,
// neither in its own environment nor in myclaw's /proc/<pid>/environ.
func TestSecretsStayOutOfChildren(t *testing.T) {
	e := newEnv(t, writeNote)
	_, errOut, code := e.myclaw([]string{"OPENAI_API_KEY=sk-very-secret", "GITHUB_TOKEN=ghp-secret", "DATABASE_URL=postgres://app:pw-secret@db/x"}, "-p", "show env", "--model", "test-model", "--autonomy", "full")
	if code != 0 {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	results := e.Srv.ToolResults()
	if len(results) != 1 || !strings.Contains(results[0], "PATH=") {
		t.Fatalf("tool results %q", results)
	}
	if strings.Contains(results[0], "sk-very-secret") || strings.Contains(results[0], "ghp-secret") || strings.Contains(results[0], "pw-secret") {
		t.Fatalf("a secret reached the shell: %s", results[0])
	}
	if !strings.Contains(results[0], "DATABASE_URL=postgres://app:***@db/x") {
		t.Errorf("DATABASE_URL did not reach the shell with its password masked: %s", results[0])
	}
}

func TestProjectConfigNeedsTrust(t *testing.T) {
	e := newEnv(t, writeNote)
	os.WriteFile(filepath.Join(e.WS, ".myclaw.toml"), []byte("[[tools]]\nname = \"proj/hello\"\ndescription = \"Say hello.\"\ncommand = [\"echo\", \"hi\"]\ncapability = { read_only = true }\n"), 0o644)
	toolNames := func() string {
		e.Srv.Mu.Lock()
		defer e.Srv.Mu.Unlock()
		b, _ := json.Marshal(e.Srv.Bodies[len(e.Srv.Bodies)-1]["tools"])
		return string(b)
	}
	_, errOut, _ := e.myclaw(nil, "-p", "say hello", "--model", "test-model")
	if !strings.Contains(errOut, "Ignored .myclaw.toml") || strings.Contains(toolNames(), "proj__hello") {
		t.Fatalf("untrusted project config: stderr %q, tools %s", errOut, toolNames())
	}
	_, errOut, _ = e.myclaw(nil, "-p", "say hello", "--model", "test-model", "--trust")
	if !strings.Contains(errOut, "Loaded .myclaw.toml") || !strings.Contains(toolNames(), "proj__hello") {
		t.Fatalf("trusted: stderr %q, tools %s", errOut, toolNames())
	}
	// Remembered...
	e.myclaw(nil, "-p", "say hello", "--model", "test-model")
	if !strings.Contains(toolNames(), "proj__hello") {
		t.Fatal("trust was not remembered")
	}
	// ...until the file changes.
	os.WriteFile(filepath.Join(e.WS, ".myclaw.toml"), []byte("[[hooks.pre_tool]]\ncommand = [\"true\"]\n"), 0o644)
	_, errOut, _ = e.myclaw(nil, "-p", "say hello", "--model", "test-model")
	if !strings.Contains(errOut, "changed since you trusted it") {
		t.Fatalf("changed project config: %q", errOut)
	}
}

func TestContinueResumesTheSession(t *testing.T) {
	e := newEnv(t, writeNote)
	// With nothing to resume, it says so rather than start afresh unasked.
	_, errOut, code := e.myclaw(nil, "-p", "say hello", "--model", "test-model", "--continue")
	if code != 0 || !strings.Contains(errOut, "No earlier session in") {
		t.Fatalf("--continue with no session: code %d, stderr %q", code, errOut)
	}
	e.myclaw(nil, "-p", "second question", "--model", "test-model", "--continue")
	e.Srv.Mu.Lock()
	last := e.Srv.Bodies[len(e.Srv.Bodies)-1]
	e.Srv.Mu.Unlock()
	msgs := last["messages"].([]any)
	if len(msgs) != 4 {
		t.Fatalf("resumed request has %d messages; want system, user, assistant, user", len(msgs))
	}
}

func TestForkContinuesInACopy(t *testing.T) {
	e := newEnv(t, writeNote)
	e.myclaw(nil, "-p", "say hello", "--model", "test-model")
	out, _, _ := e.myclaw(nil, "sessions")
	_, errOut, code := e.myclaw(nil, "-p", "second question", "--model", "test-model", "--continue", "--fork")
	if code != 0 || !strings.Contains(errOut, "Forked session") {
		t.Fatalf("--fork: code %d, stderr %q", code, errOut)
	}
	e.Srv.Mu.Lock()
	msgs := e.Srv.Bodies[len(e.Srv.Bodies)-1]["messages"].([]any)
	e.Srv.Mu.Unlock()
	if len(msgs) != 4 {
		t.Fatalf("the fork's request has %d messages; want the earlier turn and the new prompt", len(msgs))
	}
	after, _, _ := e.myclaw(nil, "sessions")
	if strings.Count(after, "\n") != strings.Count(out, "\n")+1 || !strings.Contains(after, "(fork of ") {
		t.Fatalf("sessions before the fork:\n%s\nafter:\n%s\nwant one more", out, after)
	}
}

func TestDispatchInProcess(t *testing.T) {
	// run maps help to 0 without a server.
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, nil, strings.NewReader(""), &out, &errb); code != 0 || !strings.Contains(errb.String(), "myclaw undo") {
		t.Fatalf("help: %d %q", code, errb.String())
	}
}

func TestUndoWithNothingToUndo(t *testing.T) {
	e := newEnv(t, writeNote)
	e.myclaw(nil, "-p", "say hello", "--model", "test-model")
	out, errOut, code := e.myclaw(nil, "undo")
	if code != 0 || strings.TrimSpace(out) != "Nothing to undo." {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// With an 8k window the whole builtin catalog and the system prompt fit in
// 1,200 tokens (four bytes each) of the request, as sent; with 128k the full
// texts go.
func TestSmallWindowPromptFitsTheBudget(t *testing.T) {
	sizes := map[int]int{}
	for _, window := range []int{8192, 131072} {
		e := newEnv(t, writeNote)
		cfg := filepath.Join(e.Config, "myclaw", "config.toml")
		os.MkdirAll(filepath.Dir(cfg), 0o700)
		os.WriteFile(cfg, []byte(fmt.Sprintf("context_window = %d\n", window)), 0o600)
		if _, errOut, code := e.myclaw(nil, "-p", "say hello", "--model", "test-model"); code != 0 {
			t.Fatalf("window %d: code %d, %s", window, code, errOut)
		}
		e.Srv.Mu.Lock()
		body := e.Srv.Bodies[0]
		e.Srv.Mu.Unlock()
		tools, _ := json.Marshal(body["tools"])
		sys := body["messages"].([]any)[0].(map[string]any)["content"].(string)
		sizes[window] = (len(tools) + len(sys) + 3) / 4
		if len(body["tools"].([]any)) < 9 {
			t.Fatalf("window %d: only %d tools sent", window, len(body["tools"].([]any)))
		}
	}
	t.Logf("system prompt + tools: %d tokens at 8k, %d at 128k", sizes[8192], sizes[131072])
	if sizes[8192] > 1200 || sizes[131072] < 2*sizes[8192] {
		t.Fatalf("system prompt + tools: %d tokens at 8k (want ≤ 1200), %d at 128k (want the full texts)", sizes[8192], sizes[131072])
	}
}

func TestShellUndoSeesEverySessionOfTheWorkspace(t *testing.T) {
	e := newEnv(t, func(first string, round int) (string, []scriptCall) {
		if name, ok := strings.CutPrefix(first, "write "); ok && round == 0 {
			return "", []scriptCall{{Name: "fs_write", Args: `{"path":"` + name + `","content":"x\n"}`}}
		}
		return "Done.", nil
	})
	// Another session is running on the workspace: the next one is told.
	store := history.NewStore(filepath.Join(e.State, "myclaw"))
	running, err := store.NewSession(e.WS, "test-model")
	if err != nil {
		t.Fatal(err)
	}
	if err := running.Hold(); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := e.myclaw(nil, "-p", "write one.txt", "--model", "test-model", "--autonomy", "full")
	if code != 0 || !strings.Contains(errOut, "Another myclaw session ("+running.Info().ID) {
		t.Fatalf("first: code %d, stderr %q; want a note about the running session", code, errOut)
	}
	running.Close()
	// Once it has ended (or crashed), nobody is told.
	_, errOut, code = e.myclaw(nil, "-p", "write two.txt", "--model", "test-model", "--autonomy", "full")
	if code != 0 || strings.Contains(errOut, "Another myclaw session") {
		t.Fatalf("second: code %d, stderr %q; want no note", code, errOut)
	}
	hist, _, _ := e.myclaw(nil, "history")
	i, j := strings.Index(hist, "Create one.txt"), strings.Index(hist, "Create two.txt")
	if i < 0 || j < i || strings.Count(hist, "fs_write") != 2 {
		t.Fatalf("history should list both sessions' writes in time order:\n%s", hist)
	}
	sessions, _ := store.Sessions(e.WS)
	for _, s := range sessions {
		if s.ID != running.Info().ID && !strings.Contains(hist, s.ID) {
			t.Errorf("history does not label a call with session %s:\n%s", s.ID, hist)
		}
	}
	if out, _, code := e.myclaw(nil, "undo"); code != 0 || !strings.Contains(out, "two.txt") {
		t.Fatalf("undo: code %d, %q", code, out)
	}
	if out, _, code := e.myclaw(nil, "undo"); code != 0 || !strings.Contains(out, "one.txt") || !strings.Contains(out, "(session ") {
		t.Fatalf("undo of the older session's call: code %d, %q", code, out)
	}
	// The session that made the call is the one told of the undo.
	for _, info := range sessions {
		s, err := store.OpenSession(info.ID)
		if err != nil {
			t.Fatal(err)
		}
		records, _, _ := s.Records()
		s.Close()
		var all string
		for _, r := range records {
			all += r.Kind + ":" + string(r.Data) + "\n"
		}
		told := strings.Contains(all, "note:") && strings.Contains(all, "undid") && strings.Contains(all, "one.txt") && strings.Count(all, "note:") == 1
		if made := strings.Contains(all, "write one.txt"); made != told {
			t.Errorf("session %s (made the call: %v) was told: %v\n%s", info.ID, made, told, all)
		}
	}
	for _, name := range []string{"one.txt", "two.txt"} {
		if _, err := os.Stat(filepath.Join(e.WS, name)); err == nil {
			t.Errorf("%s is still there after undo from a shell", name)
		}
	}
	if out, _, code := e.myclaw(nil, "redo"); code != 0 || !strings.Contains(out, "one.txt") {
		t.Fatalf("redo brings back the last undone first: code %d, %q", code, out)
	}
}
