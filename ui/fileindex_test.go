package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

func TestWalkWorkspaceRespectsGitignore(t *testing.T) {
	fsys := fstest.MapFS{
		".gitignore":            {Data: []byte("# build output\n/bin/\n*.log\nnode_modules/\n!keep.log\ndocs/**\n")},
		".git/HEAD":             {Data: []byte("ref")},
		"bin/tool":              {Data: []byte("x")},
		"cmd/bin/main.go":       {Data: []byte("x")}, // /bin/ is anchored: this one stays
		"a.log":                 {Data: []byte("x")},
		"keep.log":              {Data: []byte("x")},
		"web/node_modules/x.js": {Data: []byte("x")},
		"web/app.js":            {Data: []byte("x")},
		"web/.gitignore":        {Data: []byte("dist\n")},
		"web/dist/app.min.js":   {Data: []byte("x")},
		"dist/keep.txt":         {Data: []byte("x")}, // web's rule does not reach here
		"docs/guide/intro.md":   {Data: []byte("x")},
		"README.md":             {Data: []byte("x")},
	}
	paths, partial := walkWorkspace(context.Background(), fsys, "", 1000)
	got := strings.Join(paths, " ")
	want := ".gitignore README.md cmd/ cmd/bin/ cmd/bin/main.go dist/ dist/keep.txt docs/ keep.log web/ web/.gitignore web/app.js"
	if got != want || partial {
		t.Fatalf("got  %s\nwant %s (partial %v)", got, want, partial)
	}
	paths, partial = walkWorkspace(context.Background(), fsys, "", 3)
	if len(paths) != 3 || !partial {
		t.Fatalf("bounded walk: %d paths, partial %v", len(paths), partial)
	}
}

// TestWalkWorkspaceAsGit lists what glob_list lists: git's rules in
// full, and the repository around the workspace.
func TestWalkWorkspaceAsGit(t *testing.T) {
	top := t.TempDir()
	for p, s := range map[string]string{
		".git/HEAD": "ref: refs/heads/main\n", ".git/objects/pack/x": "", ".git/refs/heads/x": "",
		".git/info/exclude": "secret.txt\n",
		".gitignore":        "*.log\n",
		"ws/.gitignore":     "abc/**\n!abc/keep.txt\n[!a].tmp\nsrc/**.js\n",
		"ws/abc/keep.txt":   "", "ws/abc/drop.txt": "", "ws/a.tmp": "", "ws/b.tmp": "", "ws/x.log": "", "ws/secret.txt": "",
		"ws/src/a/b.js": "", "ws/src/c.js": "",
	} {
		full := filepath.Join(top, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(top, "ws")
	paths, _ := walkWorkspace(context.Background(), os.DirFS(dir), dir, 1000)
	got := strings.Join(paths, " ")
	want := ".gitignore a.tmp abc/ abc/keep.txt src/ src/a/ src/a/b.js"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func testIndex(paths ...string) *fileIndex {
	ix := &fileIndex{}
	ix.set(indexBuiltMsg{paths: paths, at: time.Now()})
	return ix
}

func TestFuzzyRanking(t *testing.T) {
	ix := testIndex(
		"domain/xman_index.go", "cmd/main.go", "main.go", "internal/maintenance/plan.go",
		"ui/markdown.go", "ui/mentions.go", "docs/MAIN_NOTES.md", "agent/", "agent/agent.go",
	)
	for _, tc := range []struct {
		q    string
		want []string // the first results, in order
	}{
		{"main", []string{"main.go", "cmd/main.go", "docs/MAIN_NOTES.md"}},
		{"mdn", []string{"ui/markdown.go"}},
		{"uimen", []string{"ui/mentions.go"}},
		{"agent", []string{"agent/", "agent/agent.go"}},
		{"MAIN_N", []string{"docs/MAIN_NOTES.md"}},
		{"zzz", nil},
	} {
		got := ix.match(tc.q, 8)
		if len(got) < len(tc.want) || (len(tc.want) == 0 && len(got) != 0) {
			t.Errorf("match(%q) = %q; want first %q", tc.q, got, tc.want)
			continue
		}
		for i, w := range tc.want {
			if got[i] != w {
				t.Errorf("match(%q) = %q; want first %q", tc.q, got, tc.want)
				break
			}
		}
	}
}

// benchIndex is a tree of 100,000 paths shaped like a large repository.
func benchIndex() *fileIndex {
	var paths []string
	words := []string{"src", "internal", "pkg", "api", "server", "client", "model", "view", "util", "config", "test", "vendor"}
	exts := []string{".go", ".ts", ".md", "_test.go", ".json"}
	for i := 0; len(paths) < 100_000; i++ {
		p := fmt.Sprintf("%s/%s/%s_%d/%s%d%s", words[i%12], words[(i/12)%12], words[(i/144)%12], i/1728, words[(i/7)%12], i, exts[i%5])
		paths = append(paths, p)
	}
	return testIndex(paths...)
}

func BenchmarkFuzzyMatch100k(b *testing.B) {
	ix := benchIndex()
	for _, q := range []string{"srvmodel", "config.json", "x"} {
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				ix.match(q, maxPopupRows)
			}
		})
	}
}

func TestIndexKeptFresh(t *testing.T) {
	ix := testIndex("a.go")
	now := ix.built
	if ix.stale(now.Add(indexMaxAge / 2)) {
		t.Error("a fresh index is stale")
	}
	if !ix.stale(now.Add(indexMaxAge + time.Second)) {
		t.Error("an old index is not built again")
	}
	ix.pending = true
	if ix.stale(now.Add(time.Hour)) {
		t.Error("a second walk starts while one runs")
	}
}

// BenchmarkFileIndexWalk builds the @ completion's list of a 10,000-file
// workspace.
func BenchmarkFileIndexWalk(b *testing.B) {
	dir := b.TempDir()
	ignore := "*.log\n/build/\nnode_modules/\n!keep.log\n"
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(ignore), 0o644); err != nil {
		b.Fatal(err)
	}
	for d := range 100 {
		if err := os.Mkdir(filepath.Join(dir, fmt.Sprintf("pkg%03d", d)), 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 100 {
			name := fmt.Sprintf("pkg%03d/file%03d.go", d, f)
			if f%10 == 0 {
				name = fmt.Sprintf("pkg%03d/file%03d.log", d, f)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	fsys := os.DirFS(dir)
	for b.Loop() {
		paths, _ := walkWorkspace(context.Background(), fsys, dir, indexMaxEntries)
		if len(paths) != 9101 {
			b.Fatalf("got %d paths; want 9101", len(paths))
		}
	}
}

// A mention ends at the first blank: a name holding a line break, a tab, a
// space or a character that does not show as itself is not offered, for
// completing it would type a raw line break into the prompt or name
// something else.
func TestIndexOffersOnlyMentionableNames(t *testing.T) {
	fsys := fstest.MapFS{
		"nl\nline.txt":     {Data: []byte("x")},
		"tab\tname.txt":    {Data: []byte("x")},
		"my notes/a.md":    {Data: []byte("x")},
		"ev\u202eil.txt":   {Data: []byte("x")},
		"esc\x1b[2A.txt":   {Data: []byte("x")},
		"plain/ok.txt":     {Data: []byte("x")},
		"unicodé-name.txt": {Data: []byte("x")},
	}
	paths, _ := walkWorkspace(context.Background(), fsys, "", 1000)
	if got, want := strings.Join(paths, "|"), "plain/|plain/ok.txt|unicodé-name.txt"; got != want {
		t.Errorf("offered %q; want %q", got, want)
	}
}
