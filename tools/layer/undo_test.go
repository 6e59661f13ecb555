package layer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/tools"
)

func sameTree(t *testing.T, when string, got, want map[string]string) {
	t.Helper()
	for rel, w := range want {
		if got[rel] != w {
			t.Errorf("%s %s is %q, want %q", when, rel, got[rel], w)
		}
	}
	for rel, g := range got {
		if _, ok := want[rel]; !ok {
			t.Errorf("%s %s is left (%s)", when, rel, g)
		}
	}
}

// A folder's mode change is merged, shown, applied, and taken back and
// redone by the merge's undo; a folder made read-only is filled first.
func TestAFoldersModeIsAppliedAndReverted(t *testing.T) {
	e := newEnv(t, map[string]string{"open/a.txt": "a\n", "keep/b.txt": "b\n"})
	before := tree(t, e.dir)
	l := e.open(t)
	sh(t, l, "chmod 700 open && mkdir -p locked/in && echo x > locked/in/f && chmod 555 locked/in")
	p := propose(t, l)
	if !strings.Contains(p.Report(), "open/: folder mode 0755 → 0700") {
		t.Errorf("the report does not show the folder's mode:\n%s", p.Report())
	}
	if !strings.Contains(p.Summary(), "1 folder's mode") {
		t.Errorf("the summary %q does not count the folder's mode", p.Summary())
	}
	if got := strings.Join(p.Files(), ","); !strings.Contains(got, "open") || strings.Contains(got, "keep") {
		t.Errorf("the merge changes %q; want open, not keep", got)
	}
	undo := applyMerge(t, p)
	after := tree(t, e.dir)
	for rel, want := range map[string]string{"open": "dir -rwx------", "locked/in": "dir dr-xr-xr-x", "locked/in/f": `file -rw-r--r-- "x\n"`} {
		if got := after[rel]; got != want && !(rel == "locked/in" && got == "dir -r-xr-xr-x") {
			t.Errorf("after the merge %s is %q, want %q", rel, got, want)
		}
	}
	redo, err := Revert(e.undo)(context.Background(), undo, false)
	if err != nil {
		t.Fatalf("revert: %v", err)
	}
	sameTree(t, "after the revert", tree(t, e.dir), before)
	if _, err := Revert(e.undo)(context.Background(), redo, false); err != nil {
		t.Fatalf("redo: %v", err)
	}
	sameTree(t, "after the redo", tree(t, e.dir), after)
}

// Both changing one folder's mode, differently, is a conflict.
func TestBothChangingAFoldersModeIsAConflict(t *testing.T) {
	e := newEnv(t, map[string]string{"d/a.txt": "a\n"})
	l := e.open(t)
	sh(t, l, "chmod 700 d")
	os.Chmod(filepath.Join(e.dir, "d"), 0o750)
	p := propose(t, l)
	if got := strings.Join(p.Conflicts(), ","); got != "d" || !strings.Contains(p.Report(), "both changed its mode") {
		t.Fatalf("conflicts %q\n%s", got, p.Report())
	}
}

// A file that became a folder, and a folder that became a file, are
// taken back: the tree is as it was, and redo brings the merge back.
func TestRevertingAFileFolderSwap(t *testing.T) {
	e := newEnv(t, map[string]string{"x": "a file\n", "y/inner.txt": "in a folder\n", "y/deep/z": "z\n"})
	before := tree(t, e.dir)
	l := e.open(t)
	sh(t, l, "rm x && mkdir x && echo now inside > x/made.txt && rm -r y && echo now a file > y")
	p := propose(t, l)
	if len(p.Conflicts()) > 0 {
		t.Fatalf("conflicts %v", p.Conflicts())
	}
	undo := applyMerge(t, p)
	after := tree(t, e.dir)
	if after["x"] != "dir -rwxr-xr-x" || after["x/made.txt"] == "" || !strings.HasPrefix(after["y"], "file") {
		t.Fatalf("the merge left %v", after)
	}
	redo, err := Revert(e.undo)(context.Background(), undo, false)
	if err != nil {
		t.Fatalf("revert: %v", err)
	}
	sameTree(t, "after the revert", tree(t, e.dir), before)
	if _, err := Revert(e.undo)(context.Background(), redo, false); err != nil {
		t.Fatalf("redo: %v", err)
	}
	sameTree(t, "after the redo", tree(t, e.dir), after)
}

// When the swap cannot be taken back (the user put a file in the folder
// the merge made), the revert fails saying where, and the tree is left
// as it was: what had been taken back is put back.
func TestASwapThatCannotBeRevertedLeavesTheTree(t *testing.T) {
	e := newEnv(t, map[string]string{"x": "a file\n", "other.txt": "o\n"})
	l := e.open(t)
	sh(t, l, "rm x && mkdir x && echo agent > x/made.txt && echo changed > other.txt")
	undo := applyMerge(t, propose(t, l))
	os.WriteFile(filepath.Join(e.dir, "x", "users.txt"), []byte("the user's\n"), 0o644)
	want := tree(t, e.dir)
	// Not a Conflict: even a forced undo does not replace a folder, so
	// --force is not offered.
	_, err := Revert(e.undo)(context.Background(), undo, false)
	var c *tools.Conflict
	if err == nil || errors.As(err, &c) || !strings.HasPrefix(err.Error(), "x changed since the call") || !strings.Contains(err.Error(), "the workspace is as it was") {
		t.Fatalf("revert over the user's file: %v; want a refusal on x saying the workspace is as it was", err)
	}
	sameTree(t, "after the refused revert", tree(t, e.dir), want)
}

// Apply finds the workspace changed since the merge: ChangedSince, and
// the merge proposed again sees the change.
func TestApplyOfAStaleMergeSaysSoAndMergesAgain(t *testing.T) {
	e := newEnv(t, map[string]string{"f.txt": numbered(10, nil)})
	l := e.open(t)
	write(t, l, "f.txt", numbered(10, map[int]string{2: "two by the agent"}))
	p := propose(t, l)
	os.WriteFile(filepath.Join(e.dir, "f.txt"), []byte(numbered(10, map[int]string{9: "nine meanwhile"})), 0o644)
	_, err := p.Apply(context.Background())
	var cs *ChangedSince
	if !errors.As(err, &cs) || cs.Path != "f.txt" || !cs.ChangedSinceShown() || tools.AsError(err).Kind != tools.KindExternalError {
		t.Fatalf("apply of a stale merge: %v", err)
	}
	if got := e.read(t, "f.txt"); strings.Contains(got, "by the agent") {
		t.Fatal("the stale merge applied")
	}
	applyMerge(t, propose(t, l))
	if got, want := e.read(t, "f.txt"), numbered(10, map[int]string{2: "two by the agent", 9: "nine meanwhile"}); got != want {
		t.Errorf("f.txt is\n%s\nwant\n%s", got, want)
	}
}

// Undo data in shell_run's own format (merges applied before) is still
// taken back.
func TestRevertTakesOldUndoData(t *testing.T) {
	e := newEnv(t, map[string]string{"a.txt": "a\n"})
	res, err := e.undo.Blobs.Put([]byte("a\n"))
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(e.dir, "a.txt"))
	old := fmt.Sprintf(`{"changes":[{"path":"a.txt","before":{"exists":true,"sha256":%q,"mode":420},"after":{"exists":false}}]}`, res)
	if _, err := Revert(e.undo)(context.Background(), []byte(old), false); err != nil {
		t.Fatalf("revert of shell_run's format: %v", err)
	}
	if e.read(t, "a.txt") != "a\n" {
		t.Error("a.txt was not restored")
	}
}
