package walk

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// benchTree is 10,000 files in 100 folders, with a .gitignore of a few
// common rules that exclude a tenth of them.
func benchTree(b *testing.B) fs.FS {
	fsys, _ := benchTreeDir(b)
	return fsys
}

func benchTreeDir(b *testing.B) (fs.FS, string) {
	files := map[string]string{".gitignore": "*.log\n/build/\nnode_modules/\n!keep.log\n**/gen/*.go\n"}
	for d := range 100 {
		for f := range 100 {
			name := fmt.Sprintf("pkg%03d/file%03d.go", d, f)
			if f%10 == 0 {
				name = fmt.Sprintf("pkg%03d/file%03d.log", d, f)
			}
			files[name] = "x"
		}
	}
	return testTree(b, files)
}

func BenchmarkWalk10kFiles(b *testing.B) {
	fsys := benchTree(b)
	for b.Loop() {
		st, err := Files(context.Background(), fsys, Options{}, func(string, fs.DirEntry) error { return nil })
		if err != nil || st.IgnoredFiles != 1000 {
			b.Fatalf("got %+v, %v; want 1000 ignored files", st, err)
		}
	}
}

// BenchmarkWalkRepo10kFiles is BenchmarkWalk10kFiles in a repository
// whose index tracks the 9,000 files not ignored, read by OpenRepo on
// every walk as the tools do.
func BenchmarkWalkRepo10kFiles(b *testing.B) {
	fsys, dir := benchTreeDir(b)
	idx := &index.Index{Version: 2}
	if _, err := Files(context.Background(), fsys, Options{}, func(p string, _ fs.DirEntry) error {
		idx.Entries = append(idx.Entries, &index.Entry{Name: p, Mode: filemode.Regular})
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := index.NewEncoder(&buf).Encode(idx); err != nil {
		b.Fatal(err)
	}
	for p, s := range map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/objects/pack/x": "", ".git/refs/heads/x": "", ".git/index": buf.String()} {
		writeFile(b, filepath.Join(dir, p), s)
	}
	for b.Loop() {
		st, err := Files(context.Background(), fsys, Options{Repo: OpenRepo(dir, nil)}, func(string, fs.DirEntry) error { return nil })
		if err != nil || st.IgnoredFiles != 1000 {
			b.Fatalf("got %+v, %v; want 1000 ignored files", st, err)
		}
	}
}
