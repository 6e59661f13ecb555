package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// benchWorkspace makes a workspace of files small files in folders of 100,
// in a git repository with one nested repository.
func benchWorkspace(b *testing.B, files int) string {
	ws := b.TempDir()
	writeDirs := func(rel ...string) {
		for _, r := range rel {
			if err := os.MkdirAll(filepath.Join(ws, r), 0o755); err != nil {
				b.Fatal(err)
			}
		}
	}
	writeDirs(".git/hooks", ".git/refs", ".git/objects", "sub/.git/hooks", "sub/.git/refs", "sub/.git/objects")
	for _, gd := range []string{".git", "sub/.git"} {
		os.WriteFile(filepath.Join(ws, gd, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
		os.WriteFile(filepath.Join(ws, gd, "config"), []byte("[core]\n"), 0o644)
	}
	for i := 0; i < files; i++ {
		dir := filepath.Join(ws, fmt.Sprintf("d%03d", i/100))
		if i%100 == 0 {
			writeDirs(dir[len(ws):])
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.txt", i%100)), []byte("a line\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return ws
}

// BenchmarkConfine: what a confined command costs myclaw before it runs
// (Confine: the protected paths, the launcher's arguments) and after it
// ended (finish: the check for repositories it made), over an empty
// workspace and one of 60,000 files; the command itself is not run.
func BenchmarkConfine(b *testing.B) {
	for _, n := range []int{0, 60000} {
		ws := benchWorkspace(b, n)
		s := active(b, ws)
		// A tree all changed this moment is read again until racySlack
		// has passed; a user's tree mostly is older.
		time.Sleep(racySlack)
		b.Run(fmt.Sprintf("setup/%d-files", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				finish, err := s.Confine(exec.Command("true"), false)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				finish("")
				b.StartTimer()
			}
		})
		b.Run(fmt.Sprintf("setup+finish/%d-files", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				finish, err := s.Confine(exec.Command("true"), false)
				if err != nil {
					b.Fatal(err)
				}
				finish("")
			}
		})
	}
}

// BenchmarkScan: the scan for repositories over 60,000 files in 600
// folders, reading every folder (cold: the first call of a session) and
// through a warm cache (every later call: a stat per folder).
func BenchmarkScan(b *testing.B) {
	ws := benchWorkspace(b, 60000)
	b.Run("cold", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			(&treeCache{}).dotGits(ws, time.Time{})
		}
	})
	b.Run("warm", func(b *testing.B) {
		// Trusted as a tree older than racySlack is.
		c := &treeCache{now: func() time.Time { return time.Now().Add(time.Hour) }}
		c.dotGits(ws, time.Time{})
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			c.dotGits(ws, time.Time{})
		}
	})
}
