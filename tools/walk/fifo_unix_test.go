//go:build unix

package walk

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// An ignore file, the index's neighbours or the excludes file a
// repository names may be a FIFO a command made: opening one for reading
// waits for a writer, so a listing must pass it by instead of hanging.
func TestIgnoreFilesThatAreFIFOsDoNotHang(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{".git/info", "sub"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{".git/HEAD": "ref: refs/heads/main\n", "a.txt": "x", "sub/b.txt": "y",
		".git/config": "[core]\n\texcludesFile = excl\n"}
	for p, c := range files {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{".gitignore", "sub/.gitignore", ".git/info/exclude", "excl"} {
		if err := unix.Mkfifo(filepath.Join(dir, p), 0o644); err != nil {
			t.Skipf("cannot make a FIFO here: %v", err)
		}
	}
	done := make(chan []string, 1)
	go func() {
		root, err := os.OpenRoot(dir)
		if err != nil {
			done <- nil
			return
		}
		defer root.Close()
		var got []string
		_, _ = Files(context.Background(), root.FS(), Options{Repo: OpenRepo(filepath.Join(dir, "sub"), nil)}, func(p string, d fs.DirEntry) error {
			got = append(got, p)
			return nil
		})
		done <- got
	}()
	select {
	case got := <-done:
		if len(got) == 0 {
			t.Errorf("listed nothing; want a.txt and sub/b.txt")
		}
	case <-time.After(time.Minute):
		t.Fatal("the listing hung on a FIFO")
	}
}
