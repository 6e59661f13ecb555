package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/approval"
	"myclaw/history"
)

func TestForkKeepsTwoIndependentJournals(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"w1", "fs_write", `{"path":"a.txt","content":"one\n"}`}), openAIStyle("wrote a"),
		openAIStyle("", call{"w2", "fs_write", `{"path":"b.txt","content":"two\n"}`}), openAIStyle("wrote b"),
		// in the fork: prompt 2 sent again, writing c instead
		openAIStyle("", call{"w3", "fs_write", `{"path":"c.txt","content":"three\n"}`}), openAIStyle("wrote c"),
	)
	h := newHarness(t, approval.AutoEdit, srv)
	ctx := context.Background()
	for _, p := range []string{"write a", "write b"} {
		if err := h.run(ctx, p, approveAll()); err != nil {
			t.Fatal(err)
		}
	}
	orig := h.agent.Session().Info().ID
	prompts, err := h.agent.Prompts()
	if err != nil || len(prompts) != 2 || prompts[1].Text != "write b" {
		t.Fatalf("prompts = %+v, %v", prompts, err)
	}
	if _, err := h.agent.Fork(3); err == nil || !strings.Contains(err.Error(), "no prompt 3") {
		t.Fatalf("fork before a prompt that is not there: %v", err)
	}
	f, err := h.agent.Fork(2)
	if err != nil {
		t.Fatal(err)
	}
	if f.Parent != orig || f.ID == orig || f.Draft != "write b" {
		t.Fatalf("fork = %+v", f)
	}
	if n := len(h.agent.Messages()); n != 4 { // prompt, call, result, answer
		t.Fatalf("the fork holds %d messages, want the 4 of the first turn", n)
	}
	if d := h.agent.Status().UndoDepth; d != 0 {
		t.Fatalf("the fork's journal starts empty; undo depth %d", d)
	}
	if err := h.run(ctx, "write c", approveAll()); err != nil {
		t.Fatal(err)
	}
	// The request after the fork carries the first turn, not the second.
	var sent []string
	for _, m := range srv.messages(srv.count() - 2) {
		if c, _ := m["content"].(string); m["role"] == "user" {
			sent = append(sent, withoutStateNotes(c))
		}
	}
	if strings.Join(sent, "|") != "write a|write c" {
		t.Errorf("the fork sent user prompts %q", sent)
	}
	// Undo in the fork reverts only its own call.
	if _, err := h.agent.Undo(ctx, 5, false); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"a.txt": true, "b.txt": true, "c.txt": false} {
		if _, err := os.Stat(filepath.Join(h.ws, name)); (err == nil) != want {
			t.Errorf("after undo in the fork, %s exists = %v, want %v", name, err == nil, want)
		}
	}
	// The original, opened again, still undoes its two writes.
	if err := h.agent.OpenSession(orig); err != nil {
		t.Fatal(err)
	}
	// Opened again, it is the one --continue opens next, though the
	// fork has the newer records.
	if latest, err := h.store.Latest(h.ws); err != nil || latest.ID != orig {
		t.Fatalf("Latest after reopening the original = %s, %v; want %s", latest.ID, err, orig)
	}
	if d := h.agent.Status().UndoDepth; d != 2 {
		t.Fatalf("the original's undo depth = %d, want 2", d)
	}
	if _, err := h.agent.Undo(ctx, 2, false); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(h.ws, name)); err == nil {
			t.Errorf("after undo in the original, %s still exists", name)
		}
	}
	if err := h.agent.OpenSession(orig); err == nil {
		t.Error("opening the session one is in should say so")
	}
	if err := h.agent.OpenSession("20200101-000000-0000"); err == nil || !strings.Contains(err.Error(), "No session") {
		t.Errorf("an unknown session: %v", err)
	}
}

// An undo made from a shell (another process writing the journal) shows in
// the session's history and undo count at once.
func TestHistoryFollowsAnUndoFromAShell(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"w1", "fs_write", `{"path":"a.txt","content":"one\n"}`}), openAIStyle("wrote a"),
	)
	h := newHarness(t, approval.AutoEdit, srv)
	ctx := context.Background()
	if err := h.run(ctx, "write a", approveAll()); err != nil {
		t.Fatal(err)
	}
	if d := h.agent.Status().UndoDepth; d != 1 {
		t.Fatalf("undo depth %d", d)
	}
	// The shell opens the same session's journal on its own.
	other, err := h.store.OpenSession(h.agent.Session().Info().ID)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	j, err := other.Journal()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Undo(ctx, 1, false, history.RegistryResolver(h.reg)); err != nil {
		t.Fatal(err)
	}
	if d := h.agent.Status().UndoDepth; d != 0 {
		t.Errorf("undo depth after the shell's undo = %d; want 0", d)
	}
	entries, _ := h.agent.History()
	if len(entries) != 1 || entries[0].State != history.StateUndone {
		t.Errorf("history = %+v; want the call undone", entries)
	}
}
