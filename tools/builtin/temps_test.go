package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// staleTemp leaves a temporary file an hour old at rel, as a write cut
// short by a crash does.
func staleTemp(t testing.TB, dir, rel string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("half a file"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
}

func TestStaleTempsAreLookedForWhereWritesWent(t *testing.T) {
	dir := t.TempDir()
	record := filepath.Join(t.TempDir(), "temps", "ws")
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ws.RecordTemps(record)

	// The first start has no record: it walks the tree once.
	staleTemp(t, dir, "old/.a.go.myclaw-000000000000.tmp")
	if got := ws.RemoveStaleTemps(30*time.Second, true); !slices.Equal(got, []string{"old/.a.go.myclaw-000000000000.tmp"}) {
		t.Fatalf("first start removed %q; want the old temp found by a walk", got)
	}

	// Writes note their folders, through the workspace's root and through
	// a folder's own root (as a preview's changes are copied in).
	for _, d := range []string{"src", "deep/er"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := fsAtomicWrite(ws.root, "src/main.go", []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub, err := ws.root.OpenRoot("deep/er")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if err := fsAtomicWrite(sub, "x.txt", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Then a crash leaves temps there, and one lies where myclaw never wrote.
	staleTemp(t, dir, "src/.main.go.myclaw-0123456789ab.tmp")
	staleTemp(t, dir, "deep/er/.x.txt.myclaw-abcdefabcdef.tmp")
	staleTemp(t, dir, "elsewhere/.y.myclaw-111111111111.tmp")

	got := ws.RemoveStaleTemps(30*time.Second, true)
	slices.Sort(got)
	if want := []string{"deep/er/.x.txt.myclaw-abcdefabcdef.tmp", "src/.main.go.myclaw-0123456789ab.tmp"}; !slices.Equal(got, want) {
		t.Fatalf("removed %q; want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "elsewhere/.y.myclaw-111111111111.tmp")); err != nil {
		t.Errorf("a file where myclaw never wrote was looked at: %v", err)
	}
	if b, err := os.ReadFile(record); err != nil || len(b) != 0 {
		t.Errorf("record %q (%v); want it emptied once its folders hold no temps", b, err)
	}
}

func TestStaleTempsRecordKeepsFoldersWithNewTemps(t *testing.T) {
	dir := t.TempDir()
	record := filepath.Join(t.TempDir(), "ws")
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ws.RecordTemps(record)
	ws.RemoveStaleTemps(30*time.Second, true)
	for _, d := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := fsAtomicWrite(ws.root, "a/f.txt", []byte("f"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Another myclaw's write in progress: too new to remove.
	if err := os.WriteFile(filepath.Join(dir, "a/.f.txt.myclaw-222222222222.tmp"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := ws.RemoveStaleTemps(30*time.Second, true); len(got) != 0 {
		t.Fatalf("removed %q; want nothing", got)
	}
	if b, _ := os.ReadFile(record); !strings.Contains(string(b), filepath.Join(ws.Dir(), "a")) {
		t.Fatalf("record %q; want the folder with a temp still in it", b)
	}
	// Not alone: the record is read but not rewritten.
	if err := fsAtomicWrite(ws.root, "b/g.txt", []byte("g"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(record)
	ws.RemoveStaleTemps(30*time.Second, false)
	if after, _ := os.ReadFile(record); string(after) != string(before) {
		t.Fatalf("record rewritten to %q while another myclaw may be writing; was %q", after, before)
	}
}

// BenchmarkRemoveStaleTemps is the start-up's look for temporary files
// in a 40,000-file tree (node_modules-like): a walk of the whole tree,
// and a look in the folders recorded as written to.
func BenchmarkRemoveStaleTemps(b *testing.B) {
	dir := b.TempDir()
	for i := range 400 {
		d := filepath.Join(dir, "node_modules", fmt.Sprintf("pkg%03d", i), "lib")
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := range 100 {
			if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("f%02d.js", j)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	ws, err := OpenWorkspace(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			ws.RemoveStaleTemps(30*time.Second, true)
		}
	})
	ws.RecordTemps(filepath.Join(b.TempDir(), "ws"))
	ws.RemoveStaleTemps(30*time.Second, true) // the one walk that makes the record
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		b.Fatal(err)
	}
	for _, rel := range []string{"src/main.go", "README.md", "node_modules/pkg007/lib/f01.js"} {
		if err := fsAtomicWrite(ws.root, rel, []byte("x"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("record", func(b *testing.B) {
		for b.Loop() {
			ws.RemoveStaleTemps(30*time.Second, false)
		}
	})
}
