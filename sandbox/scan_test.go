package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// trustingCache is a cache whose clock runs ahead, so folders made a
// moment ago are trusted as if made long before (each test then waits for
// the file system's clock to pass the scan before it changes anything,
// which is what racySlack guarantees in real use).
func trustingCache(t *testing.T) *treeCache {
	if runtime.GOOS != "linux" {
		t.Skip("folder stamps are used on Linux only; elsewhere every folder is read")
	}
	return &treeCache{now: func() time.Time { return time.Now().Add(time.Hour) }}
}

// pastTheScan waits until a change made now gets a ctime after every
// stamp the cache holds: the file system stamps times with a coarse clock.
func pastTheScan(t *testing.T, scanned time.Time) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return // no stamps, no cache
	}
	probe := filepath.Join(t.TempDir(), "probe")
	for i := 0; i < 5000; i++ {
		os.Remove(probe)
		if err := os.Mkdir(probe, 0o755); err != nil {
			t.Fatal(err)
		}
		if st, ok := dirStamp(probe); ok && st.ctime > scanned.UnixNano() {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("the file system's clock never passed the scan")
}

func sorted(s []string) []string { slices.Sort(s); return s }

// TestCachedScanSeesEveryChange: after each way of adding, moving or
// removing a repository (deep in a folder the cache holds, behind a
// replaced or renamed folder, a bare one, a .git link), the cached scan
// finds exactly what reading every folder finds.
func TestCachedScanSeesEveryChange(t *testing.T) {
	c := trustingCache(t)
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		".git/HEAD": "ref: refs/heads/main\n", ".git/refs/": "",
		"d1/y/f": "", "d2/f": "", "d3/x/f": "", "d4/refs/": "", "d5/f": "", "d6/z/f": "",
		"elsewhere/gd/HEAD": "x", "elsewhere/gd/refs/": "",
		"node_modules/m/f": "",
	})
	check := func(what string) {
		t.Helper()
		fresh := sorted((*treeCache)(nil).dotGits(ws, time.Time{}))
		if got := sorted(c.dotGits(ws, time.Time{})); !slices.Equal(got, fresh) {
			t.Fatalf("after %s the cached scan found %q; reading every folder finds %q", what, got, fresh)
		}
	}
	check("the first scan")
	for _, step := range []struct {
		what string
		do   func() error
	}{
		{"a repository made deep in a folder already read", func() error { return os.MkdirAll(filepath.Join(ws, "d3/x/new/.git"), 0o755) }},
		{"a .git file in a folder already read", func() error {
			return os.WriteFile(filepath.Join(ws, "d6/z/.git"), []byte("gitdir: ../../elsewhere/gd\n"), 0o644)
		}},
		{"a folder renamed away and replaced", func() error {
			if err := os.Rename(filepath.Join(ws, "d1"), filepath.Join(ws, "d1-old")); err != nil {
				return err
			}
			return os.MkdirAll(filepath.Join(ws, "d1/y/.git"), 0o755)
		}},
		{"the old folder moved back under a new name", func() error { return os.Rename(filepath.Join(ws, "d1-old"), filepath.Join(ws, "d1/back")) }},
		{"a HEAD that makes a folder with refs a bare repository", func() error { return os.WriteFile(filepath.Join(ws, "d4/HEAD"), []byte("x"), 0o644) }},
		{"a bare repository made in a new folder", func() error {
			if err := os.MkdirAll(filepath.Join(ws, "d2/bare/refs"), 0o755); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(ws, "d2/bare/HEAD"), []byte("x"), 0o644)
		}},
		{"a .git link", func() error { return os.Symlink("../elsewhere/gd", filepath.Join(ws, "d5/.git")) }},
		{"a folder replaced by a link to a repository", func() error {
			if err := os.RemoveAll(filepath.Join(ws, "d6")); err != nil {
				return err
			}
			return os.Symlink("elsewhere", filepath.Join(ws, "d6"))
		}},
		{"a repository removed", func() error { return os.RemoveAll(filepath.Join(ws, "d3/x/new")) }},
		{"a repository moved in from outside", func() error {
			out := filepath.Join(t.TempDir(), "r")
			if err := os.MkdirAll(filepath.Join(out, "deep/.git"), 0o755); err != nil {
				return err
			}
			return os.Rename(out, filepath.Join(ws, "d2/moved"))
		}},
	} {
		pastTheScan(t, time.Now())
		if err := step.do(); err != nil {
			t.Fatalf("%s: %v", step.what, err)
		}
		check(step.what)
	}
}

// TestCachedScanReadsOnlyWhatChanged: a second scan of an unchanged tree
// reads no folder; after a change, only the changed folder and what is
// new below it.
func TestCachedScanReadsOnlyWhatChanged(t *testing.T) {
	c := trustingCache(t)
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"a/b/c/f": "", "d/e/f": "", "g/f": ""})
	c.dotGits(ws, time.Time{})
	if c.reads != 7 {
		t.Fatalf("the first scan read %d folders; want all 7", c.reads)
	}
	pastTheScan(t, time.Now())
	c.reads = 0
	c.dotGits(ws, time.Time{})
	if c.reads != 0 {
		t.Errorf("a scan of the unchanged tree read %d folders; want none", c.reads)
	}
	if err := os.MkdirAll(filepath.Join(ws, "d/e/new/.git"), 0o755); err != nil {
		t.Fatal(err)
	}
	c.reads = 0
	got := c.dotGits(ws, time.Time{})
	if c.reads != 2 || !slices.Contains(got, filepath.Join(ws, "d/e/new/.git")) {
		t.Errorf("after a repository was made in d/e the scan read %d folders (want d/e and d/e/new) and found %q", c.reads, got)
	}
}

// TestCachedScanTrustsNoRecentStamp: a folder changed within racySlack of
// its read (here, all of them, with the real clock) is read every time,
// since a change in the same clock tick would leave its stamp as it was.
func TestCachedScanTrustsNoRecentStamp(t *testing.T) {
	c := &treeCache{}
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"a/b/f": "", "c/f": ""})
	c.dotGits(ws, time.Time{})
	c.reads = 0
	c.dotGits(ws, time.Time{})
	if c.reads != 4 {
		t.Errorf("a scan right after the tree was made read %d folders; want all 4", c.reads)
	}
}

// TestCachedScanForgetsWhenTheClockGoesBack: a scan that finds the clock
// before the last one trusts nothing it kept.
func TestCachedScanForgetsWhenTheClockGoesBack(t *testing.T) {
	c := trustingCache(t)
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"a/b/f": "", "c/f": ""})
	c.dotGits(ws, time.Time{})
	c.now = func() time.Time { return time.Now().Add(time.Minute) }
	c.reads = 0
	c.dotGits(ws, time.Time{})
	if c.reads != 4 {
		t.Errorf("after the clock went back the scan read %d folders; want all 4", c.reads)
	}
}
