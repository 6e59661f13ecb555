package builtin

import (
	"context"
	"fmt"
	"myclaw/tools"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// searchBenchTree fills dir, unless it already holds the tree, with 50,000
// files: 40,000 in node_modules (which .gitignore excludes) and 10,000
// of the project's own, 8,000 Go files in 200 packages and 2,000
// TypeScript files. Each file is about 2 KB; every Go file takes a
// context.Context, and one Go file in a hundred defines NewServer.
func searchBenchTree(b *testing.B, dir string) {
	b.Helper()
	if _, err := os.Stat(filepath.Join(dir, ".gitignore")); err == nil {
		return
	}
	var body strings.Builder
	for i := range 30 {
		fmt.Fprintf(&body, "\tif err := step%d(w, r); err != nil { return fmt.Errorf(\"step %d: %%w\", err) }\n", i, i)
	}
	filler := body.String()
	write := func(p, content string) {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write(".gitignore", "node_modules/\n")
	for i := range 8000 {
		extra := ""
		if i%100 == 0 {
			extra = "func NewServer(addr string) *Server { return &Server{addr: addr} }\n"
		}
		write(fmt.Sprintf("internal/pkg%03d/file%02d.go", i/40, i%40),
			fmt.Sprintf("package pkg%03d\n\nfunc handler%d(ctx context.Context, w io.Writer, r *Request) error {\n%s}\n%s", i/40, i, filler, extra))
	}
	for i := range 2000 {
		write(fmt.Sprintf("web/src/comp%02d/view%02d.ts", i/50, i%50), fmt.Sprintf("export function view%d(ctx: Context) {\n%s}\n", i, filler))
	}
	for i := range 40000 {
		write(fmt.Sprintf("node_modules/mod%03d/lib/f%03d.js", i/200, i%200), fmt.Sprintf("function f%d(context) {\n%s}\nmodule.exports = { NewServer: f%d }\n", i, filler, i))
	}
}

// BenchmarkSearchBigTree searches and lists the 50,000-file tree of
// searchBenchTree, whose node_modules is ignored. Set MYCLAW_SEARCH_TREE
// to a folder to build the tree there and keep it, to time other tools
// (GNU grep) on the same files.
func BenchmarkSearchBigTree(b *testing.B) {
	dir := os.Getenv("MYCLAW_SEARCH_TREE")
	if dir == "" {
		dir = b.TempDir()
	}
	searchBenchTree(b, dir)
	ws, err := OpenWorkspace(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	benchSearches(b, ws, func(b *testing.B, name string, out any) {
		switch o := out.(type) {
		case grepSearchOutput:
			if name == "grep_literal" && (o.Total != 80 || o.FilesSearched != 10001 || o.SkippedIgnored != 1) {
				b.Fatalf("got %d matches in %d files, %d ignored; want 80 in the 10001 not ignored (with .gitignore), node_modules/ left out", o.Total, o.FilesSearched, o.SkippedIgnored)
			}
			// The page fills long before the walk reaches node_modules.
			if name == "grep_regexp_glob" && (o.Returned != 100 || !o.TotalAtLeast) {
				b.Fatalf("got %+v; want a full page, the total a lower bound", o)
			}
			if name == "grep_regexp_glob_all" && (o.Total != 8000 || o.TotalAtLeast || o.FilesSearched != 8000) {
				b.Fatalf("got %+v; want all 8000 Go files searched, 8000 matches", o)
			}
		case globListOutput:
			if o.Total != 8000 || o.SkippedIgnored != 1 {
				b.Fatalf("got %d Go files, %d ignored; want 8000 and node_modules/", o.Total, o.SkippedIgnored)
			}
		}
	})
}

// BenchmarkSearchDir runs the same searches on the folder that
// MYCLAW_SEARCH_DIR names (a Go module cache, say), for comparing with
// GNU grep on real code. It is skipped when the variable is unset.
func BenchmarkSearchDir(b *testing.B) {
	dir := os.Getenv("MYCLAW_SEARCH_DIR")
	if dir == "" {
		b.Skip("MYCLAW_SEARCH_DIR is not set")
	}
	ws, err := OpenWorkspace(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	benchSearches(b, ws, func(*testing.B, string, any) {})
}

// benchSearches times a literal search, a case-insensitive regexp
// restricted by a glob, and a listing, and reports how many files each
// read.
func benchSearches(b *testing.B, ws *Workspace, check func(b *testing.B, name string, out any)) {
	grep := grepTestTool(ws)
	glob := &globListTool{ws: ws, excludes: func() []string { return nil }}
	for _, bc := range []struct {
		name string
		tool tools.Tool
		args map[string]any
	}{
		{"grep_literal", grep, map[string]any{"pattern": "func NewServer"}},
		{"grep_regexp_glob", grep, map[string]any{"pattern": `(?i)context\.Context`, "glob": "**/*.go"}},
		// An offset past the end makes it read every file and count every
		// match, as grep does.
		{"grep_regexp_glob_all", grep, map[string]any{"pattern": `(?i)context\.Context`, "glob": "**/*.go", "offset": 99_999, "max_results": 1}},
		{"glob", glob, map[string]any{"pattern": "**/*.go"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			args := fsTestArgs(b, bc.args)
			var out any
			for b.Loop() {
				res, err := bc.tool.Execute(context.Background(), args)
				if err != nil {
					b.Fatal(err)
				}
				out = res.Output
			}
			check(b, bc.name, out)
			if o, ok := out.(grepSearchOutput); ok {
				b.ReportMetric(float64(o.FilesSearched), "files_searched")
				b.ReportMetric(float64(o.Total), "matches")
			}
			if o, ok := out.(globListOutput); ok {
				b.ReportMetric(float64(o.Total), "matches")
			}
		})
	}
}
