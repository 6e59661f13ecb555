//go:build unix

package snapshot

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A capture records what undo needs to tell a link or special file is
// still the one a command left: a link's target, a pipe's inode; and a
// diff names each one that appeared, went, or was replaced, with both
// sides.
func TestDiffTellsLinksAndPipesApart(t *testing.T) {
	root := t.TempDir()
	write(t, root, "file", "f")
	os.Symlink("file", filepath.Join(root, "link"))
	os.Symlink("file", filepath.Join(root, "same"))
	syscall.Mkfifo(filepath.Join(root, "pipe"), 0o600)
	syscall.Mkfifo(filepath.Join(root, "kept"), 0o600)
	tr := newTracker(t, root)
	before := capture(t, tr)
	if l := before.Other["link"]; l.Mode&fs.ModeSymlink == 0 || l.Target != "file" {
		t.Fatalf("link captured as %+v", l)
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(filepath.Join(root, "pipe"), &st); err != nil {
		t.Fatal(err)
	}
	if p := before.Other["pipe"]; p.Mode&fs.ModeNamedPipe == 0 || p.Ino != st.Ino || p.Dev != uint64(st.Dev) { //nolint:unconvert // Dev is int32 on darwin
		t.Fatalf("pipe captured as %+v; want inode %d on device %d", p, st.Ino, st.Dev)
	}
	// Retargeted; made again with the same target (the same link);
	// replaced by a new pipe (made first, so its inode differs); removed.
	os.Remove(filepath.Join(root, "link"))
	os.Symlink("elsewhere", filepath.Join(root, "link"))
	os.Remove(filepath.Join(root, "same"))
	os.Symlink("file", filepath.Join(root, "same"))
	syscall.Mkfifo(filepath.Join(root, "pipe.new"), 0o600)
	os.Rename(filepath.Join(root, "pipe.new"), filepath.Join(root, "pipe"))
	os.Remove(filepath.Join(root, "kept"))
	os.Symlink("/outside", filepath.Join(root, "new"))
	d := Diff(before, capture(t, tr))
	got := map[string]OtherChange{}
	for _, o := range d.Other {
		got[o.Path] = o
	}
	if len(got) != 4 {
		t.Fatalf("changed: %+v; want link, pipe, kept and new", d.Other)
	}
	if o := got["link"]; o.Before == nil || o.After == nil || o.Before.Target != "file" || o.After.Target != "elsewhere" {
		t.Errorf("link: %+v", o)
	}
	if o := got["pipe"]; o.Before == nil || o.After == nil || o.Before.Ino == o.After.Ino {
		t.Errorf("pipe: %+v", o)
	}
	if o := got["kept"]; o.Before == nil || o.After != nil {
		t.Errorf("kept: %+v", o)
	}
	if o := got["new"]; o.Before != nil || o.After == nil || o.After.Target != "/outside" {
		t.Errorf("new: %+v", o)
	}
}
