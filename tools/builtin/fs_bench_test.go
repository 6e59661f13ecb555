package builtin

import (
	"context"
	"fmt"
	"myclaw/tools"
	"strings"
	"testing"
)

// fsBenchTree fills dir with 10,000 small Go-like files in 100 folders of
// 100, each of about 40 lines; one line in every hundredth file says
// "needle".
func fsBenchTree(b *testing.B, dir string) {
	b.Helper()
	var body strings.Builder
	for i := range 40 {
		fmt.Fprintf(&body, "func handler%d(w http.ResponseWriter, r *http.Request) { return }\n", i)
	}
	plain := body.String()
	for d := range 100 {
		for f := range 100 {
			content := plain
			if f == 0 {
				content += "// needle in this file\n"
			}
			fsTestFile(b, dir, fmt.Sprintf("pkg%03d/file%03d.go", d, f), content, 0o644)
		}
	}
}

// BenchmarkGrepSearch10kFiles searches a 10,000-file tree: a literal that
// occurs in 100 files, and a regexp with no literal prefix.
func BenchmarkGrepSearch10kFiles(b *testing.B) {
	ws, dir := fsTestWorkspace(b)
	fsBenchTree(b, dir)
	tool := NewGrepSearch(ws)
	for _, bc := range []struct{ name, pattern string }{
		{"literal", "needle"},
		{"regexp", `[Nn]ee+dle\b`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			args := fsTestArgs(b, map[string]any{"pattern": bc.pattern})
			for b.Loop() {
				res, err := tool.Execute(context.Background(), args)
				if err != nil {
					b.Fatal(err)
				}
				// The page fills at the last needle, in pkg099/file000.go.
				if out := res.Output.(grepSearchOutput); out.Total != 100 || out.FilesSearched < 9901 {
					b.Fatalf("got %d matches in %d files; want 100 in at least 9901", out.Total, out.FilesSearched)
				}
			}
		})
	}
}

// BenchmarkGlobList10kFiles lists the Go files of a 10,000-file tree.
func BenchmarkGlobList10kFiles(b *testing.B) {
	ws, dir := fsTestWorkspace(b)
	fsBenchTree(b, dir)
	tool := NewGlobList(ws)
	args := fsTestArgs(b, map[string]any{"pattern": "**/*.go"})
	for b.Loop() {
		res, err := tool.Execute(context.Background(), args)
		if err != nil {
			b.Fatal(err)
		}
		if out := res.Output.(globListOutput); out.Total != 10000 {
			b.Fatalf("got %d matches; want 10000", out.Total)
		}
	}
}

// BenchmarkFsWriteDryRun previews overwriting a 2,000-line file with one
// line changed: read, diff and the undo data.
func BenchmarkFsWriteDryRun(b *testing.B) {
	ws, dir := fsTestWorkspace(b)
	var old strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&old, "line %d of a medium-sized source file\n", i)
	}
	fsTestFile(b, dir, "f.txt", old.String(), 0o644)
	content := strings.Replace(old.String(), "line 1000 of", "line one thousand of", 1)
	tool := NewFsWrite(ws, &fsTestBlobs{})
	args := fsTestArgs(b, map[string]any{"path": "f.txt", "content": content})
	for b.Loop() {
		if _, err := tools.Call(context.Background(), tool, args, true); err != nil {
			b.Fatal(err)
		}
	}
}
