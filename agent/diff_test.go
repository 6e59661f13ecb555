package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/approval"
)

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
