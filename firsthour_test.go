package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeThenTest writes a note, then runs a test command, as most turns end.
func writeThenTest(first string, round int) (string, []scriptCall) {
	switch round {
	case 0:
		return "", []scriptCall{{"fs_write", `{"path":"notes/todo.md","content":"one\n"}`}}
	case 1:
		return "", []scriptCall{{"shell_run", `{"command":"exit 1"}`}}
	}
	return "Done.", nil
}

func TestUndoStepsOverShellCalls(t *testing.T) {
	e := newEnv(t, writeThenTest)
	if _, errOut, code := e.myclaw(nil, "-p", "go", "--model", "test-model", "--autonomy", "full"); code != 0 {
		t.Fatalf("run: code %d, stderr %q", code, errOut)
	}
	out, errOut, code := e.myclaw(nil, "undo")
	if code != 0 {
		t.Fatalf("undo: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	if !strings.Contains(out, "skipped shell_run `exit 1`: its effects stay") || !strings.Contains(out, "Undid fs_write") {
		t.Fatalf("undo said %q; want the shell call skipped and the write undone", out)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "notes", "todo.md")); err == nil {
		t.Fatal("undo left the note")
	}
	out, _, code = e.myclaw(nil, "undo")
	if code != 0 || strings.TrimSpace(out) != "Nothing to undo." {
		t.Fatalf("second undo: code %d, %q; want Nothing to undo.", code, out)
	}
}

func TestHeadlessShowsAFailingCommandAsFailed(t *testing.T) {
	e := newEnv(t, writeThenTest)
	_, errOut, code := e.myclaw(nil, "-p", "go", "--model", "test-model", "--autonomy", "full")
	if code != 0 {
		t.Fatalf("run: code %d, stderr %q", code, errOut)
	}
	if !strings.Contains(errOut, "✗ shell_run exit 1") || strings.Contains(errOut, "✓ shell_run") {
		t.Fatalf("stderr %q; want the shell call drawn as failed with its exit status", errOut)
	}
}
