package builtin

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"myclaw/tools"
	"myclaw/tools/termtext"
)

func TestGrepSearch(t *testing.T) {
	ws, dir := fsTestWorkspace(t)
	outside := t.TempDir()
	secret := fsTestFile(t, outside, "secret.go", "func Secret() {}\n", 0o644)
	fsTestFile(t, dir, "main.go", "package main\n\nfunc main() {\n\tRun()\n}\n", 0o644)
	fsTestFile(t, dir, "src/run.go", "package src\r\n\r\nfunc Run() {}\r\nfunc RunAll() {}\r\n", 0o644)
	fsTestFile(t, dir, "src/notes.md", "Run the tests with go test.\n", 0o644)
	fsTestFile(t, dir, "src/deep/more.go", "// func hidden\n", 0o644)
	fsTestFile(t, dir, "logo.png", "\x89PNG\r\n\x1a\n\x00\x00func main", 0o644)
	fsTestFile(t, dir, ".git/HEAD", "func fromGit\n", 0o644)
	fsTestFile(t, dir, "long.txt", "func "+strings.Repeat("x", 1000)+"\n", 0o644)
	fsTestFile(t, dir, "huge.txt", "func huge\n"+strings.Repeat("y", grepMaxFileBytes), 0o644)
	var many strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&many, "item %d\n", i)
	}
	fsTestFile(t, dir, "list.txt", many.String(), 0o644)
	fsTestFile(t, dir, "evil\nmain.go:1: fake.txt", "needle-evil\n", 0o644)
	if err := os.Symlink(secret, filepath.Join(dir, "secret-link.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out-dir")); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		args     map[string]any
		want     string // body
		wantOut  grepSearchOutput
		wantNote string
		wantKind tools.Kind
	}{
		{
			name:     "across the tree",
			args:     map[string]any{"pattern": `func \w+\(`},
			want:     "main.go:3: func main() {\nsrc/run.go:3: func Run() {}\nsrc/run.go:4: func RunAll() {}\n(binary, not searched: logo.png)\n",
			wantOut:  grepSearchOutput{Total: 3, Returned: 3, FilesMatched: 2, SkippedBinary: 1, SkippedLarge: 1},
			wantNote: "skipped 1 binary file and 1 file over 4.0 MB",
		},
		{
			name:    "ignore case",
			args:    map[string]any{"pattern": "^run", "ignore_case": true, "path": "src"},
			want:    "src/notes.md:1: Run the tests with go test.\n",
			wantOut: grepSearchOutput{Total: 1, Returned: 1, FilesMatched: 1},
		},
		{
			name:    "anchored per line, CR stripped",
			args:    map[string]any{"pattern": `\{\}$`, "glob": "*.go"},
			want:    "src/run.go:3: func Run() {}\nsrc/run.go:4: func RunAll() {}\n",
			wantOut: grepSearchOutput{Total: 2, Returned: 2, FilesMatched: 1},
		},
		{
			name:    "glob on names",
			args:    map[string]any{"pattern": "func", "glob": "*.go"},
			want:    "main.go:3: func main() {\nsrc/deep/more.go:1: // func hidden\nsrc/run.go:3: func Run() {}\nsrc/run.go:4: func RunAll() {}\n",
			wantOut: grepSearchOutput{Total: 4, Returned: 4, FilesMatched: 3},
		},
		{
			name:    "glob on paths",
			args:    map[string]any{"pattern": "func", "path": "src", "glob": "deep/*.go"},
			want:    "src/deep/more.go:1: // func hidden\n",
			wantOut: grepSearchOutput{Total: 1, Returned: 1, FilesMatched: 1},
		},
		{
			name:    "one file",
			args:    map[string]any{"pattern": "Run", "path": "main.go"},
			want:    "main.go:4: \tRun()\n",
			wantOut: grepSearchOutput{Total: 1, Returned: 1, FilesMatched: 1},
		},
		{
			name:    "long line cut",
			args:    map[string]any{"pattern": "xxx", "path": "long.txt"},
			want:    "long.txt:1: func " + strings.Repeat("x", 295) + " … [705 more bytes]\n",
			wantOut: grepSearchOutput{Total: 1, Returned: 1, FilesMatched: 1},
		},
		{
			name:     "first page",
			args:     map[string]any{"pattern": `^item`, "path": "list.txt", "max_results": 2},
			want:     "list.txt:1: item 1\nlist.txt:2: item 2\n",
			wantOut:  grepSearchOutput{Total: 30, Returned: 2, FilesMatched: 1},
			wantNote: "shown 1-2 of 30; call again with offset=2, or narrow with path or glob",
		},
		{
			name:     "next page",
			args:     map[string]any{"pattern": `^item`, "path": "list.txt", "max_results": 2, "offset": 2},
			want:     "list.txt:3: item 3\nlist.txt:4: item 4\n",
			wantOut:  grepSearchOutput{Total: 30, Offset: 2, Returned: 2, FilesMatched: 1},
			wantNote: "shown 3-4 of 30; call again with offset=4",
		},
		{
			name:    "control characters in a name are quoted",
			args:    map[string]any{"pattern": "needle-evil"},
			want:    "\"evil\\nmain.go:1: fake.txt\":1: needle-evil\n(binary, not searched: logo.png)\n",
			wantOut: grepSearchOutput{Total: 1, Returned: 1, FilesMatched: 1, SkippedBinary: 1, SkippedLarge: 1},
		},
		{
			name:     "no match",
			args:     map[string]any{"pattern": "nothing like this"},
			want:     "(binary, not searched: logo.png)\n",
			wantOut:  grepSearchOutput{SkippedBinary: 1, SkippedLarge: 1},
			wantNote: "no matches",
		},
		{name: "invalid regexp", args: map[string]any{"pattern": "func("}, wantKind: tools.KindInvalidArgs},
		{name: "empty pattern", args: map[string]any{"pattern": ""}, wantKind: tools.KindInvalidArgs},
		{name: "bad glob", args: map[string]any{"pattern": "x", "glob": "[x"}, wantKind: tools.KindInvalidArgs},
		{name: "path outside", args: map[string]any{"pattern": "x", "path": "/etc"}, wantKind: tools.KindPermissionDenied},
		{name: "path through a symlink out", args: map[string]any{"pattern": "x", "path": "out-dir"}, wantKind: tools.KindPermissionDenied},
		{name: "file symlink out", args: map[string]any{"pattern": "x", "path": "secret-link.go"}, wantKind: tools.KindPermissionDenied},
		{name: "missing path", args: map[string]any{"pattern": "x", "path": "nope"}, wantKind: tools.KindNotFound},
		{name: "too many results asked", args: map[string]any{"pattern": "x", "max_results": 1001}, wantKind: tools.KindInvalidArgs},
	}
	tool := grepTestTool(ws)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tool.Execute(context.Background(), fsTestArgs(t, tt.args))
			if tt.wantKind != "" {
				if got := fsTestKind(err); got != tt.wantKind {
					t.Fatalf("got kind %q (%v); want %s", got, err, tt.wantKind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Body != tt.want {
				t.Errorf("got body\n%s\nwant\n%s", res.Body, tt.want)
			}
			out := res.Output.(grepSearchOutput)
			if out.Total != tt.wantOut.Total || out.Offset != tt.wantOut.Offset || out.Returned != tt.wantOut.Returned || out.FilesMatched != tt.wantOut.FilesMatched ||
				out.SkippedBinary != tt.wantOut.SkippedBinary || out.SkippedLarge != tt.wantOut.SkippedLarge {
				t.Errorf("got %+v; want counts %+v", out, tt.wantOut)
			}
			if !strings.Contains(out.Note, tt.wantNote) {
				t.Errorf("got note %q; want it to contain %q", out.Note, tt.wantNote)
			}
			if strings.Contains(res.Body, "Secret") || strings.Contains(res.Body, "fromGit") {
				t.Errorf("got %q; want nothing from outside or from .git", res.Body)
			}
			if pattern := tt.args["pattern"].(string); res.Source != "grep:"+pattern {
				t.Errorf("got Source %q; want grep:%s", res.Source, pattern)
			}
		})
	}

	t.Run("dry run searches", func(t *testing.T) {
		args := fsTestArgs(t, map[string]any{"pattern": "Run", "path": "main.go"})
		dry, err := tools.Call(context.Background(), tool, args, true)
		if err != nil || dry.Body != "main.go:4: \tRun()\n" {
			t.Errorf("got %q, %v; want the search result", dry.Body, err)
		}
	})

	t.Run("invalid regexp quotes the error", func(t *testing.T) {
		_, err := tool.Execute(context.Background(), fsTestArgs(t, map[string]any{"pattern": "a(b"}))
		if err == nil || !strings.Contains(err.Error(), "missing closing )") {
			t.Errorf("got %v; want the regexp error quoted", err)
		}
	})
}

func TestGrepSearchCancelled(t *testing.T) {
	ws, dir := fsTestWorkspace(t)
	fsTestFile(t, dir, "a.go", "func a() {}\n", 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := NewGrepSearch(ws).Execute(ctx, fsTestArgs(t, map[string]any{"pattern": "func"}))
	var te *tools.Error
	if !errors.Is(err, context.Canceled) || errors.As(err, &te) {
		t.Errorf("got %v (%T); want context.Canceled itself, so that the caller can tell", err, err)
	}
}

// fsTestChunks is a reader of endless zeros that counts its reads and
// cancels a context on the first.
type fsTestChunks struct {
	cancel  context.CancelFunc
	reads   int
	longest int
}

func (r *fsTestChunks) Read(p []byte) (int, error) {
	r.reads++
	r.longest = max(r.longest, len(p))
	r.cancel()
	clear(p)
	return len(p), nil
}

func TestFsReadAllStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	src := &fsTestChunks{cancel: cancel}
	_, err := fsReadAll(fsCtxReader{ctx, src}, 8*fsReadChunk, 16*fsReadChunk)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v; want context.Canceled", err)
	}
	if src.reads != 1 || src.longest > fsReadChunk {
		t.Errorf("got %d reads of up to %d bytes; want one read of at most %d before the cancel stops it", src.reads, src.longest, fsReadChunk)
	}
}

func TestFsReadRegularCancelled(t *testing.T) {
	ws, dir := fsTestWorkspace(t)
	fsTestFile(t, dir, "a.txt", "some text\n", 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := fsReadRegular(ctx, ws, "a.txt", nil, 1<<20)
	var te *tools.Error
	if !errors.Is(err, context.Canceled) || errors.As(err, &te) {
		t.Errorf("got %v (%T); want context.Canceled itself", err, err)
	}
	data, _, err := fsReadRegular(context.Background(), ws, "a.txt", nil, 1<<20)
	if err != nil || string(data) != "some text\n" {
		t.Errorf("got %q, %v; want the file", data, err)
	}
	_, _, err = fsReadRegular(context.Background(), ws, "a.txt", nil, 4)
	if !errors.As(err, &te) || te.Kind != tools.KindQuotaExceeded {
		t.Errorf("got %v; want quota_exceeded for a file over the limit", err)
	}
}

// grepTestTool is grep_search without the user's global excludes, so
// that what the machine's git configuration says cannot change results.
func grepTestTool(ws *Workspace) tools.Tool {
	return &grepSearchTool{ws: ws, excludes: func() []string { return nil }}
}

// fsTestIgnoreTree writes a workspace with ignore files of every kind.
func fsTestIgnoreTree(t *testing.T) (*Workspace, string) {
	ws, dir := fsTestWorkspace(t)
	for p, content := range map[string]string{
		".gitignore":                "node_modules/\ndist/\n*.min.js\n",
		".myclawignore":             "fixtures/\n",
		".git/info/exclude":         "local.txt\n",
		".git/HEAD":                 "needle in git\n",
		".git/objects/pack/x":       "", // a git directory has objects and refs
		".git/refs/heads/x":         "",
		"node_modules/lib/index.js": "needle in node_modules\n",
		"dist/app.js":               "needle in dist\n",
		"fixtures/f.js":             "needle in fixtures\n",
		"local.txt":                 "needle in local\n",
		"src/.gitignore":            "!keep.min.js\n",
		"src/app.js":                "needle in source\n",
		"src/app.min.js":            "needle minified\n",
		"src/keep.min.js":           "needle kept\n",
		"src/old.bak":               "needle backup\n",
	} {
		fsTestFile(t, dir, p, content, 0o644)
	}
	return ws, dir
}

func TestGrepSearchIgnored(t *testing.T) {
	ws, _ := fsTestIgnoreTree(t)
	tool := &grepSearchTool{ws: ws, excludes: func() []string { return []string{"*.bak"} }}
	tests := []struct {
		name        string
		args        map[string]any
		want        string
		wantIgnored int
		wantNote    string
	}{
		{
			name:        "ignored files left out and counted",
			args:        map[string]any{"pattern": "needle"},
			want:        "src/app.js:1: needle in source\nsrc/keep.min.js:1: needle kept\n(left out by ignore rules: dist/, fixtures/, local.txt, node_modules/, src/app.min.js, …)\n",
			wantIgnored: 6,
			wantNote:    "left out 3 folders and 3 files that .gitignore or .ignore files exclude (a folder counts once; the last line of the result names the first few); pass include_ignored=true, or a path inside them, to look there",
		},
		{
			name: "explicit ignored folder",
			args: map[string]any{"pattern": "needle", "path": "node_modules/lib"},
			want: "node_modules/lib/index.js:1: needle in node_modules\n",
		},
		{
			name: "explicit ignored file",
			args: map[string]any{"pattern": "needle", "path": "dist/app.js"},
			want: "dist/app.js:1: needle in dist\n",
		},
		{
			name: "include ignored",
			args: map[string]any{"pattern": "needle", "include_ignored": true},
			want: "dist/app.js:1: needle in dist\nfixtures/f.js:1: needle in fixtures\nlocal.txt:1: needle in local\n" +
				"node_modules/lib/index.js:1: needle in node_modules\nsrc/app.js:1: needle in source\nsrc/app.min.js:1: needle minified\n" +
				"src/keep.min.js:1: needle kept\nsrc/old.bak:1: needle backup\n",
		},
		{
			name:        "glob over what is not ignored",
			args:        map[string]any{"pattern": "needle", "glob": "**/*.js"},
			want:        "src/app.js:1: needle in source\nsrc/keep.min.js:1: needle kept\n(left out by ignore rules: dist/, fixtures/, local.txt, node_modules/, src/app.min.js, …)\n",
			wantIgnored: 6,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tool.Execute(context.Background(), fsTestArgs(t, tt.args))
			if err != nil {
				t.Fatal(err)
			}
			out := res.Output.(grepSearchOutput)
			if res.Body != tt.want || out.SkippedIgnored != tt.wantIgnored {
				t.Errorf("got body\n%s\nand %d ignored; want\n%s\nand %d", res.Body, out.SkippedIgnored, tt.want, tt.wantIgnored)
			}
			if !strings.Contains(out.Note, tt.wantNote) || (tt.wantIgnored == 0 && strings.Contains(out.Note, "left out")) {
				t.Errorf("got note %q; want %q", out.Note, tt.wantNote)
			}
		})
	}
}

// TestGrepSearchUserExcludes checks that the tool reads the user's
// global excludes by default.
func TestGrepSearchUserExcludes(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	fsTestFile(t, home, ".config/git/ignore", "*.secret\n", 0o644)
	ws, dir := fsTestWorkspace(t)
	fsTestFile(t, dir, "a.secret", "needle\n", 0o644)
	fsTestFile(t, dir, "a.txt", "needle\n", 0o644)
	res, err := NewGrepSearch(ws).Execute(context.Background(), fsTestArgs(t, map[string]any{"pattern": "needle"}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Body != "a.txt:1: needle\n(left out by ignore rules: a.secret)\n" || res.Output.(grepSearchOutput).SkippedIgnored != 1 {
		t.Errorf("got %q, %+v; want a.secret left out by the global excludes", res.Body, res.Output)
	}
}

// TestGrepSearchPagesInOrder searches many files in parallel: each page
// must continue the one before, and a page that fills early gives the
// total as a lower bound.
func TestGrepSearchPagesInOrder(t *testing.T) {
	ws, dir := fsTestWorkspace(t)
	for i := range 300 {
		fsTestFile(t, dir, fmt.Sprintf("d%d/f%03d.txt", i%7, i), fmt.Sprintf("hit %d a\nmiss\nhit %d b\n", i, i), 0o644)
	}
	tool := grepTestTool(ws)
	all, err := tool.Execute(context.Background(), fsTestArgs(t, map[string]any{"pattern": "^hit", "max_results": 1000}))
	if err != nil {
		t.Fatal(err)
	}
	if out := all.Output.(grepSearchOutput); out.Total != 600 || out.TotalAtLeast || out.FilesSearched != 300 {
		t.Fatalf("got %+v; want all 600 matches counted exactly", out)
	}
	var paged strings.Builder
	for offset := 0; offset < 600; offset += 40 {
		res, err := tool.Execute(context.Background(), fsTestArgs(t, map[string]any{"pattern": "^hit", "max_results": 40, "offset": offset}))
		if err != nil {
			t.Fatal(err)
		}
		out := res.Output.(grepSearchOutput)
		paged.WriteString(res.Body)
		switch {
		case out.Returned != 40:
			t.Fatalf("offset %d: got %d lines; want 40", offset, out.Returned)
		case out.TotalAtLeast && (out.Total < offset+40 || out.Total > 600 || !strings.Contains(out.Note, fmt.Sprintf("of at least %d;", out.Total))):
			t.Errorf("offset %d: got total %d, note %q; want a lower bound said so", offset, out.Total, out.Note)
		case !out.TotalAtLeast && out.Total != 600:
			t.Errorf("offset %d: got exact total %d; want 600", offset, out.Total)
		}
	}
	if paged.String() != all.Body {
		t.Errorf("pages put together differ from the whole listing")
	}
}

// grepTestFenced returns the lines inside the fence of what the model reads
// for res.
func grepTestFenced(t *testing.T, meta tools.Meta, res tools.Result) []string {
	t.Helper()
	env := tools.Envelope(meta, res, nil, time.Now())
	_, rest, ok := strings.Cut(env, "\">\n")
	body, _, ok2 := strings.Cut(rest, "</untrusted>\n")
	if !ok || !ok2 {
		t.Fatalf("no fence in %q", env)
	}
	return strings.Split(strings.TrimSuffix(body, "\n"), "\n")
}

// A file cannot forge result lines: a bare CR, VT, FF, NEL or a line or
// paragraph separator in a matching line or in a file name is shown as an
// escape, so the model reads one line per match, each naming a real file.
func TestGrepSearchCannotForgeResultLines(t *testing.T) {
	ws, dir := fsTestWorkspace(t)
	fsTestFile(t, dir, "a.txt", "needle 1\rb.go:7: needle 2\v\fc.go:8: needle 3\u0085d.go:9: needle 4\u2028e.go:1: needle 5\u2029f.go:2: needle 6\n", 0o644)
	fsTestFile(t, dir, "x\u2028y.go:3: needle 7", "needle 8\n", 0o644)
	tool := NewGrepSearch(ws)
	res, err := tool.Execute(context.Background(), fsTestArgs(t, map[string]any{"pattern": "needle"}))
	if err != nil {
		t.Fatal(err)
	}
	lines := grepTestFenced(t, tool.Meta(), res)
	want := []string{
		`a.txt:1: needle 1\rb.go:7: needle 2\v\fc.go:8: needle 3⟨U+0085⟩d.go:9: needle 4⟨U+2028⟩e.go:1: needle 5⟨U+2029⟩f.go:2: needle 6`,
		`"x\u2028y.go:3: needle 7":1: needle 8`,
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("the model reads the lines\n%q\nwant\n%q", lines, want)
	}
}

// A match past the first grepMaxLineBytes of a long line is shown, in a
// window around it that says what was left out on either side.
func TestGrepSearchShowsAMatchPastTheCut(t *testing.T) {
	ws, dir := fsTestWorkspace(t)
	fsTestFile(t, dir, "min.js", strings.Repeat("a", 700)+"NEEDLE"+strings.Repeat("b", 994)+"\n", 0o644)
	res, err := NewGrepSearch(ws).Execute(context.Background(), fsTestArgs(t, map[string]any{"pattern": "NEEDLE"}))
	if err != nil {
		t.Fatal(err)
	}
	want := "min.js:1: [625 bytes before] … " + strings.Repeat("a", 75) + "NEEDLE" + strings.Repeat("b", 219) + " … [775 more bytes]\n"
	if res.Body != want {
		t.Errorf("got %q; want %q", res.Body, want)
	}
}

// A pattern with a line break would match nothing, since lines are matched
// one at a time: the error says multiline patterns are not supported.
func TestGrepSearchSaysMultilineIsNotSupported(t *testing.T) {
	ws, dir := fsTestWorkspace(t)
	fsTestFile(t, dir, "a.go", "func a() {\n}\n", 0o644)
	for _, pattern := range []string{"func a\\(\\) \\{\\n\\}", "func a() {\n}", "(?i)end\\nbegin"} {
		_, err := NewGrepSearch(ws).Execute(context.Background(), fsTestArgs(t, map[string]any{"pattern": pattern}))
		if fsTestKind(err) != tools.KindInvalidArgs || !strings.Contains(err.Error(), "multiline patterns are not supported") {
			t.Errorf("pattern %q: got %v; want invalid_args saying multiline is not supported", pattern, err)
		}
	}
	if _, err := NewGrepSearch(ws).Execute(context.Background(), fsTestArgs(t, map[string]any{"pattern": `\\n`})); err != nil {
		t.Errorf("a backslash then n is not a line break: %v", err)
	}
}

// grepTestUTF16 encodes s as UTF-16 in order, after a byte order mark.
func grepTestUTF16(s string, order binary.AppendByteOrder) string {
	b := order.AppendUint16(nil, 0xfeff)
	for _, u := range utf16.Encode([]rune(s)) {
		b = order.AppendUint16(b, u)
	}
	return string(b)
}

// Text that is not UTF-8 is searched, as ripgrep searches it: UTF-16 with a
// byte order mark is transcoded, a UTF-8 byte order mark is left out, and
// other bytes (Latin-1) are matched as they are and shown as \xHH escapes,
// so that the result stays valid UTF-8 and inert on a terminal.
func TestGrepSearchEncodings(t *testing.T) {
	ws, dir := fsTestWorkspace(t)
	fsTestFile(t, dir, "latin1.txt", "first\ncaf\xe9 needle \xabquoted\xbb \x1b[2J\n", 0o644)
	fsTestFile(t, dir, "utf16be.txt", grepTestUTF16("first\r\nsecond needle ü\r\n", binary.BigEndian), 0o644)
	fsTestFile(t, dir, "utf16le.txt", grepTestUTF16("needle 😀 one\nno\nneedle two", binary.LittleEndian), 0o644)
	fsTestFile(t, dir, "utf8bom.txt", "\ufeffneedle at the start\n", 0o644)
	fsTestFile(t, dir, "wide.txt", strings.Repeat("\xe9", 1000)+"needle"+strings.Repeat("\xe9", 1000)+"\n", 0o644)
	tool := grepTestTool(ws)
	tests := []struct {
		name, pattern, want string
	}{
		{"every encoding", "needle", "latin1.txt:2: caf\\xe9 needle \\xabquoted\\xbb \\e[2J\n" +
			"utf16be.txt:2: second needle ü\n" +
			"utf16le.txt:1: needle 😀 one\nutf16le.txt:3: needle two\n" +
			"utf8bom.txt:1: needle at the start\n" +
			"wide.txt:1: [925 bytes before] … " + strings.Repeat(`\xe9`, 75) + "needle" + strings.Repeat(`\xe9`, 218) + " … [782 more bytes]\n"},
		{"a byte order mark is not the line's start", "^needle", "utf16le.txt:1: needle 😀 one\nutf16le.txt:3: needle two\nutf8bom.txt:1: needle at the start\n"},
		{"an invalid byte is one character", `^caf. `, "latin1.txt:2: caf\\xe9 needle \\xabquoted\\xbb \\e[2J\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tool.Execute(context.Background(), fsTestArgs(t, map[string]any{"pattern": tt.pattern}))
			if err != nil {
				t.Fatal(err)
			}
			if res.Body != tt.want {
				t.Errorf("got body\n%s\nwant\n%s", res.Body, tt.want)
			}
			if out := res.Output.(grepSearchOutput); out.SkippedBinary != 0 {
				t.Errorf("got %d binary files skipped; want none", out.SkippedBinary)
			}
			if !utf8.ValidString(res.Body) || !termtext.IsInert(res.Body) {
				t.Errorf("got body %q; want valid UTF-8 that a terminal does not act on", res.Body)
			}
		})
	}
}

// A NUL byte past the first 8 KB makes the file binary from there, as in
// ripgrep: the lines before it are searched, those from it on are not shown,
// and a file that matches there is named with the line and byte where its
// binary part starts.
func TestGrepSearchStopsAtALateNUL(t *testing.T) {
	ws, dir := fsTestWorkspace(t)
	text := strings.Repeat("plain text line\n", 1000) // 16,000 bytes
	fsTestFile(t, dir, "app.log", "needle early\n"+text+"more needle \x00\x01\x1b[2J binary\nneedle after\n", 0o644)
	fsTestFile(t, dir, "only.log", text+"\x00needle\n", 0o644)
	fsTestFile(t, dir, "tail.log", "needle early\n"+text+"\x00 binary, no match\n", 0o644)
	fsTestFile(t, dir, "wide.log", grepTestUTF16(text+"needle \x00 needle\n", binary.LittleEndian), 0o644)
	res, err := grepTestTool(ws).Execute(context.Background(), fsTestArgs(t, map[string]any{"pattern": "needle"}))
	if err != nil {
		t.Fatal(err)
	}
	want := "app.log:1: needle early\ntail.log:1: needle early\n" +
		"(binary from a NUL byte on, and matching there, not shown: app.log from line 1002 (\"\\0\" at byte 16025), only.log from line 1001 (\"\\0\" at byte 16000), wide.log from line 1001 (\"\\0\" at byte 32016))\n"
	if res.Body != want {
		t.Errorf("got body\n%s\nwant\n%s", res.Body, want)
	}
	out := res.Output.(grepSearchOutput)
	if out.Total != 2 || out.FilesMatched != 2 || out.FilesSearched != 4 || out.SkippedBinary != 0 || out.BinaryTailMatched != 3 {
		t.Errorf("got %+v; want 2 matches in 2 of 4 files searched, 3 matching past a NUL byte", out)
	}
	if wantNote := "3 files turn binary at a NUL byte past their first 8 KB and match past it"; !strings.Contains(out.Note, wantNote) {
		t.Errorf("got note %q; want it to contain %q", out.Note, wantNote)
	}
}

// Binary files are named, the first few, and so are files that match past
// a NUL byte: a long list is cut, saying how many more there are.
func TestGrepSearchNamesBinaryFiles(t *testing.T) {
	ws, dir := fsTestWorkspace(t)
	fsTestFile(t, dir, "a\nb.bin", "\x00needle", 0o644)
	for i := range 7 {
		fsTestFile(t, dir, fmt.Sprintf("bin%d.dat", i), "needle\x00\x01", 0o644)
		fsTestFile(t, dir, fmt.Sprintf("late%d.log", i), strings.Repeat("x\n", fsSniffBytes)+"\x00needle\n", 0o644)
	}
	fsTestFile(t, dir, "text.txt", "needle\n", 0o644)
	res, err := grepTestTool(ws).Execute(context.Background(), fsTestArgs(t, map[string]any{"pattern": "needle"}))
	if err != nil {
		t.Fatal(err)
	}
	late := fmt.Sprintf(` from line %d ("\0" at byte %d)`, fsSniffBytes+1, 2*fsSniffBytes)
	want := "text.txt:1: needle\n" +
		"(binary, not searched: \"a\\nb.bin\", bin0.dat, bin1.dat, bin2.dat, bin3.dat and 3 more)\n" +
		"(binary from a NUL byte on, and matching there, not shown: late0.log" + late + ", late1.log" + late + ", late2.log" + late +
		", late3.log" + late + ", late4.log" + late + " and 2 more)\n"
	if res.Body != want {
		t.Errorf("got body\n%s\nwant\n%s", res.Body, want)
	}
	out := res.Output.(grepSearchOutput)
	if out.SkippedBinary != 8 || out.BinaryTailMatched != 7 {
		t.Errorf("got %+v; want 8 binary files skipped and 7 matching past a NUL byte", out)
	}
	if wantNote := "skipped 8 binary files and 0 files over 4.0 MB (the end of the result names the first few)"; !strings.Contains(out.Note, wantNote) {
		t.Errorf("got note %q; want it to contain %q", out.Note, wantNote)
	}
}

// The description says that Go's \b, \w, \d and \s know only ASCII, and
// they do.
func TestGrepSearchSaysClassesAreASCII(t *testing.T) {
	ws, _ := fsTestWorkspace(t)
	desc := NewGrepSearch(ws).Meta().Description
	for _, s := range []string{`\b`, `\w`, `\d`, `\s`, "ASCII", `\p{L}`} {
		if !strings.Contains(desc, s) {
			t.Errorf("the description does not mention %s", s)
		}
	}
	if regexp.MustCompile(`^\w+\b`).MatchString("été") || regexp.MustCompile(`\d`).MatchString("٣") {
		t.Errorf("\\w or \\d matched a letter or digit outside ASCII: the description is wrong")
	}
	if !regexp.MustCompile(`^\p{L}+$`).MatchString("été") {
		t.Errorf("\\p{L} does not match été: the description's advice is wrong")
	}
}
