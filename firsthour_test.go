package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"myclaw/agent"
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
	out := earlier(msgs, recs, 60)
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
}
