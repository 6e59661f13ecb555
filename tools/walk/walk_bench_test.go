package walk

import (
	"context"
	"fmt"
	"io/fs"
	"testing"
)

// benchTree is 10,000 files in 100 folders, with a .gitignore of a few
// common rules that exclude a tenth of them.
func benchTree(b *testing.B) fs.FS {
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
	fsys, _ := testTree(b, files)
	return fsys
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
