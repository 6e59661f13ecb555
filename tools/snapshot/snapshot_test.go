package snapshot

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t testing.TB, root, rel, body string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func newTracker(t testing.TB, root string) *Tracker {
	tr := New(Options{Root: root, CacheDir: filepath.Join(t.TempDir(), "cache"), Exclude: func(rel string) string {
		if filepath.Base(rel) == ".git" {
			return "git"
		}
		return ""
	}})
	t.Cleanup(func() { tr.Close() })
	return tr
}

func capture(t testing.TB, tr *Tracker) *Snapshot {
	t.Helper()
	s, err := tr.Capture(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func describe(d Delta) string {
	var parts []string
	for _, c := range d.Files {
		tag := "M"
		if c.Before == nil {
			tag = "A"
		} else if c.After == nil {
			tag = "D"
		}
		parts = append(parts, tag+" "+c.Path)
	}
	for _, p := range d.CreatedDirs {
		parts = append(parts, "+dir "+p)
	}
	for _, p := range d.RemovedDirs {
		parts = append(parts, "-dir "+p)
	}
	for _, o := range d.Other {
		parts = append(parts, "other "+o.Path)
	}
	return strings.Join(parts, ", ")
}

func TestDiffFindsEveryKindOfChange(t *testing.T) {
	root := t.TempDir()
	write(t, root, "keep.txt", "k")
	write(t, root, "edit.txt", "e1")
	write(t, root, "gone.txt", "g")
	write(t, root, "d/in.txt", "i")
	write(t, root, ".git/config", "c")
	tr := newTracker(t, root)
	before := capture(t, tr)
	write(t, root, "edit.txt", "e2")
	write(t, root, "new/deep/n.txt", "n")
	write(t, root, ".git/config", "changed")
	os.Remove(filepath.Join(root, "gone.txt"))
	os.RemoveAll(filepath.Join(root, "d"))
	os.Symlink("keep.txt", filepath.Join(root, "link"))
	if err := os.Chtimes(filepath.Join(root, "keep.txt"), nowPlus(5), nowPlus(5)); err != nil {
		t.Fatal(err)
	}
	after := capture(t, tr)
	got := describe(Diff(before, after))
	want := "D d/in.txt, M edit.txt, D gone.txt, A new/deep/n.txt, +dir new, +dir new/deep, -dir d, other link"
	if got != want {
		t.Fatalf("diff:\n got %s\nwant %s", got, want)
	}
	if len(after.Excluded) != 1 || after.Excluded[0] != ".git/ (git)" {
		t.Fatalf("excluded %q", after.Excluded)
	}
	// The prior content of the edited file is still in the cache.
	var sum string
	for _, c := range Diff(before, after).Files {
		if c.Path == "edit.txt" {
			sum = c.Before.SHA256
		}
	}
	if data, err := tr.Content(sum); err != nil || string(data) != "e1" {
		t.Fatalf("prior content %q, %v", data, err)
	}
}

func TestCacheDropsWhatNoFileHoldsAnyMore(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a.txt", "one")
	tr := newTracker(t, root)
	s1 := capture(t, tr)
	old := s1.Files["a.txt"].SHA256
	write(t, root, "a.txt", "two")
	capture(t, tr)
	if _, err := tr.Content(old); err != nil {
		t.Fatalf("the content before the last capture is gone too early: %v", err)
	}
	capture(t, tr)
	if _, err := tr.Content(old); err == nil {
		t.Fatal("the cache still holds content no file has had for two captures")
	}
}

func TestUnchangedFilesAreNotReadAgain(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a.txt", "one")
	tr := newTracker(t, root)
	capture(t, tr)
	// Make the cached copy unreadable: a capture that read the file again
	// would not notice, one that reuses the stat tuple never looks.
	os.RemoveAll(tr.opts.CacheDir)
	s := capture(t, tr)
	if s.Files["a.txt"].SHA256 == "" {
		t.Fatal("the unchanged file lost its content name")
	}
}

// benchTree makes n files in folders of 100, aged past racySlack as a
// user's tree mostly is (files changed more recently are read again).
func benchTree(b *testing.B, n int) string {
	root := b.TempDir()
	for i := 0; i < n; i++ {
		write(b, root, fmt.Sprintf("pkg%03d/file%04d.go", i/100, i), fmt.Sprintf("package p\n\n// file %d\nvar X%d = %d\n", i, i, i))
	}
	time.Sleep(racySlack)
	return root
}

// BenchmarkCaptureUnchanged10k is the cost a command that changes nothing
// pays: one capture after it and a diff (the capture before it is the
// previous command's after).
func BenchmarkCaptureUnchanged10k(b *testing.B) {
	root := benchTree(b, 10_000)
	tr := newTracker(b, root)
	before := capture(b, tr)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		after := capture(b, tr)
		if !Diff(before, after).Empty() {
			b.Fatal("unchanged tree differs")
		}
		before = after
	}
}

// BenchmarkCapture100Changed10k: a command that rewrote 100 of 10,000 files.
func BenchmarkCapture100Changed10k(b *testing.B) {
	root := benchTree(b, 10_000)
	tr := newTracker(b, root)
	before := capture(b, tr)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for j := 0; j < 100; j++ {
			write(b, root, fmt.Sprintf("pkg%03d/file%04d.go", j, j*100), fmt.Sprintf("package p // %d %d\n", i, j))
		}
		b.StartTimer()
		after := capture(b, tr)
		if n := len(Diff(before, after).Files); n != 100 {
			b.Fatalf("%d changes; want 100", n)
		}
		before = after
	}
}

// BenchmarkFirstCapture10k is the one-time cost of the first command in a
// session: every file is read once into the cache.
func BenchmarkFirstCapture10k(b *testing.B) {
	root := benchTree(b, 10_000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tr := New(Options{Root: root, CacheDir: filepath.Join(b.TempDir(), "cache")})
		capture(b, tr)
		b.StopTimer()
		tr.Close()
		b.StartTimer()
	}
}

func nowPlus(s int) time.Time { return time.Now().Add(time.Duration(s) * time.Second) }
