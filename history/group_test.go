package history

import (
	"context"
	"encoding/json"
	"os"
	"testing"
)

// writeIn journals, runs and commits a write that belongs to group.
func (h *harness) writeIn(group, id, name, content string) {
	h.t.Helper()
	undo, path := h.plan(name, content)
	args, _ := json.Marshal(map[string]string{"path": name, "content": content})
	if err := h.j.Begin(Entry{CallID: id, Tool: "test_write", Args: args, Summary: "Write " + name, Undo: undo, Group: group}); err != nil {
		h.t.Fatalf("Begin %s: %v", id, err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
	if err := h.j.Commit(id, nil); err != nil {
		h.t.Fatalf("Commit %s: %v", id, err)
	}
}

// A group's calls are one step: one undo takes them all back, one redo
// re-applies them, in order, also after a restart; calls outside a group
// stay steps of their own.
func TestUndoTakesAGroupBackWhole(t *testing.T) {
	h := newHarness(t)
	h.write("c0", "a.txt", "zero")
	h.writeIn("goal/1", "c1", "a.txt", "one")
	h.shell("sh", "make")
	h.writeIn("goal/1", "c2", "b.txt", "two")
	h.writeIn("goal/2", "c3", "a.txt", "three")
	h.writeIn("goal/2", "c4", "c.txt", "four")
	h.writeIn("goal/2", "c5", "b.txt", "five")
	h.wantDepth(3, 0)

	wantOutcomes(t, h.undo(1, false), "done:c5 done:c4 done:c3")
	h.wantFiles(map[string]string{"a.txt": "one", "b.txt": "two"})
	h.wantDepth(2, 3)
	h.reopen()
	wantOutcomes(t, h.undo(1, false), "done:c2 skipped:sh done:c1")
	h.wantFiles(map[string]string{"a.txt": "zero"})
	h.wantDepth(1, 5)

	wantOutcomes(t, h.redo(1), "done:c1 done:c2")
	h.wantFiles(map[string]string{"a.txt": "one", "b.txt": "two"})
	wantOutcomes(t, h.redo(1), "done:c3 done:c4 done:c5")
	h.wantFiles(map[string]string{"a.txt": "three", "b.txt": "five", "c.txt": "four"})

	// /undo 2 is two steps: both groups, and not the ungrouped call before.
	outs, err := h.j.Undo(context.Background(), 2, false, h.resolve)
	if err != nil {
		t.Fatal(err)
	}
	wantOutcomes(t, outs, "done:c5 done:c4 done:c3 done:c2 skipped:sh done:c1")
	h.wantFiles(map[string]string{"a.txt": "zero"})
	h.wantDepth(1, 5)
}
