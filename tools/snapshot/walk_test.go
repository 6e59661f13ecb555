package snapshot

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// A capture holds at most MaxFiles entries and says it stopped.
func TestCaptureStopsAtMaxFiles(t *testing.T) {
	root := t.TempDir()
	for i := 0; i < 30; i++ {
		write(t, root, fmt.Sprintf("d%d/f%d", i%3, i), "x")
	}
	tr := New(Options{Root: root, CacheDir: filepath.Join(t.TempDir(), "cache"), MaxFiles: 10})
	defer tr.Close()
	s, err := tr.Capture(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.Files) + len(s.Dirs) + len(s.Other); !s.Truncated || n > 10 {
		t.Fatalf("truncated %v with %d entries; want true with at most 10", s.Truncated, n)
	}
	tr2 := New(Options{Root: root, CacheDir: filepath.Join(t.TempDir(), "cache"), MaxFiles: 33})
	defer tr2.Close()
	if s, err = tr2.Capture(context.Background()); err != nil || s.Truncated || len(s.Files) != 30 || len(s.Dirs) != 3 {
		t.Fatalf("a tree of 33 entries under a cap of 33: truncated %v, %d files, %d folders, %v", s.Truncated, len(s.Files), len(s.Dirs), err)
	}
}

// A cancelled capture fails rather than return part of the tree.
func TestCancelledCaptureFails(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a/b", "x")
	tr := newTracker(t, root)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tr.Capture(ctx); err == nil {
		t.Fatal("a cancelled capture returned a snapshot")
	}
}
