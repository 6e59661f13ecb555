package layer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"myclaw/sandbox"
)

// benchTree makes a workspace of 60,000 small files in 600 folders.
func benchTree(b *testing.B) *env {
	files := map[string]string{}
	for d := 0; d < 600; d++ {
		for f := 0; f < 100; f++ {
			files[fmt.Sprintf("d%03d/f%03d.txt", d, f)] = fmt.Sprintf("file %d of folder %d\nsecond line\n", f, d)
		}
	}
	return newEnv(b, files)
}

// BenchmarkLayer: Open over a 60,000-file tree (the target is 50 ms: the
// mount does not depend on the tree's size, and the sandbox's scan for
// repositories, once its cache is warm, stats each folder and reads none;
// first-call is Open with a cold cache, a session's first confined call),
// and the merge of 1, 10 and 100 changed files in that tree (its cost
// follows the changes only).
func BenchmarkLayer(b *testing.B) {
	// The same over an empty tree: what the tree's size adds.
	empty := newEnv(b, nil)
	b.Run("Open/empty-tree", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			l, err := Open(empty.ws, empty.sb, b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			l.Discard()
			b.StartTimer()
		}
	})
	e := benchTree(b)
	// The sandbox's scan reads again every folder changed in the last
	// few seconds (a change in the same clock tick could leave its stamp
	// as it was); a user's tree is mostly older than that.
	time.Sleep(4 * time.Second)
	b.Run("Open/60k-files", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			l, err := Open(e.ws, e.sb, b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			l.Discard()
			b.StartTimer()
		}
	})
	b.Run("Open/60k-files-first-call", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			sb := sandbox.New(sandbox.Options{Workspace: e.dir})
			if st := sb.Check(context.Background()); !st.Active {
				b.Fatal(st.Why)
			}
			b.StartTimer()
			l, err := Open(e.ws, sb, b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			l.Discard()
			b.StartTimer()
		}
	})
	for _, n := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("Propose/%d-changed", n), func(b *testing.B) {
			l := e.open(b)
			for i := 0; i < n; i++ {
				rel := fmt.Sprintf("d%03d/f%03d.txt", i%600, i/600)
				if err := l.beforeWrite(rel); err != nil {
					b.Fatal(err)
				}
				if err := l.view.Root().WriteFile(rel, []byte("changed\nsecond line\n"), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			// The user changes the other line of each, so every file merges.
			for i := 0; i < n; i++ {
				p := filepath.Join(e.dir, fmt.Sprintf("d%03d/f%03d.txt", i%600, i/600))
				os.WriteFile(p, []byte(fmt.Sprintf("file %d of folder %d\nuser's line\n", i/600, i%600)), 0o644)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p, err := l.Propose(context.Background())
				if err != nil || len(p.Files()) != n || len(p.Conflicts()) != 0 {
					b.Fatalf("%v: %d files, conflicts %v", err, len(p.Files()), p.Conflicts())
				}
			}
			b.StopTimer()
			for i := 0; i < n; i++ {
				p := filepath.Join(e.dir, fmt.Sprintf("d%03d/f%03d.txt", i%600, i/600))
				os.WriteFile(p, []byte(fmt.Sprintf("file %d of folder %d\nsecond line\n", i/600, i%600)), 0o644)
			}
		})
	}
}
