package snapshot

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// aged makes tr trust stat tuples older than a few milliseconds, and waits
// until what was written so far is that old.
func aged(tr *Tracker) {
	tr.racy = 20 * time.Millisecond
	time.Sleep(3 * tr.racy)
}

// A file changed just before a capture and again right after it, in the
// same tick of the kernel's clock and to the same size, keeps its stat
// tuple. It must still be seen changed: such a file is read again.
func TestRacilyCleanFileIsReadAgain(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a.txt", "one")
	tr := newTracker(t, root)
	before := capture(t, tr)
	write(t, root, "a.txt", "two")
	// Stand for the coarse clock: the last capture saw the tuple the file
	// has now, as it would have had the change come within its tick.
	f, err := statAt(mustOpen(t, root), "a.txt")
	if err != nil {
		t.Fatal(err)
	}
	f.SHA256 = tr.last["a.txt"].SHA256
	tr.last["a.txt"] = f
	forged := before.Files["a.txt"]
	forged.Size, forged.ModTime, forged.Mode, forged.Ino, forged.Ctime = f.Size, f.ModTime, f.Mode, f.Ino, f.Ctime
	before.Files["a.txt"] = forged
	after := capture(t, tr)
	if got := describe(Diff(before, after)); got != "M a.txt" {
		t.Fatalf("a change under an unchanged tuple: diff %q, want M a.txt", got)
	}
	if data, err := tr.Content(after.Files["a.txt"].SHA256); err != nil || string(data) != "two" {
		t.Fatalf("content %q, %v", data, err)
	}
}

// A file last changed well before a capture is trusted by its tuple: not
// read again, yet every change to it is still seen, the one that keeps its
// size and puts its modification time back included (its change time
// cannot be put back).
func TestTrustedTupleStillSeesEveryChange(t *testing.T) {
	root := t.TempDir()
	for _, n := range []string{"same.txt", "edit.txt", "mode.txt", "gone.txt", "from.txt", "swap.txt", "dir2file/x", "file2dir"} {
		write(t, root, n, "v1")
	}
	tr := newTracker(t, root)
	aged(tr)
	before := capture(t, tr)
	reads := tr.reads
	if again := capture(t, tr); !Diff(before, again).Empty() || tr.reads != reads {
		t.Fatalf("an unchanged, trusted tree: diff %q, %d files read again", describe(Diff(before, again)), tr.reads-reads)
	}
	p := func(n string) string { return filepath.Join(root, n) }
	info, _ := os.Lstat(p("edit.txt"))
	write(t, root, "edit.txt", "v2")
	if err := os.Chtimes(p("edit.txt"), info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p("mode.txt"), 0o600)
	os.Remove(p("gone.txt"))
	os.Rename(p("from.txt"), p("to.txt"))
	os.Remove(p("swap.txt"))
	os.Symlink("same.txt", p("swap.txt"))
	os.RemoveAll(p("dir2file"))
	write(t, root, "dir2file", "f")
	os.Remove(p("file2dir"))
	write(t, root, "file2dir/y", "d")
	write(t, root, "new.txt", "n")
	after := capture(t, tr)
	got := describe(Diff(before, after))
	want := "A dir2file, D dir2file/x, M edit.txt, D file2dir, A file2dir/y, D from.txt, D gone.txt, M mode.txt, A new.txt, D swap.txt, A to.txt, +dir file2dir, -dir dir2file, other swap.txt"
	if got != want {
		t.Fatalf("diff:\n got %s\nwant %s", got, want)
	}
}

func mustOpen(t *testing.T, dir string) *os.File {
	t.Helper()
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}
