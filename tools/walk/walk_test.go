package walk

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// testTree writes files (path → content) under a new folder and returns
// its file system, confined by os.Root as the tools' workspace is.
func testTree(t testing.TB, files map[string]string) (fs.FS, string) {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root.FS(), dir
}

func testFiles(t *testing.T, fsys fs.FS, opts Options) ([]string, Stats) {
	t.Helper()
	var got []string
	st, err := Files(context.Background(), fsys, opts, func(p string, d fs.DirEntry) error {
		got = append(got, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, st
}

// ignoreTree exercises each ignore rule git has, plus .ignore and
// .myclawignore.
var ignoreTree = map[string]string{
	".gitignore": "# dependencies\nnode_modules/\n*.log\n!keep.log\n/build\ndocs/*.html\nout/\n\\#hash\n" +
		"trailing.txt   \n[unclosed\n", // trailing spaces are not part of a pattern
	".ignore":                    "fixtures/\n!debug.log\n",
	".myclawignore":              "generated.go\n",
	".git/HEAD":                  "ref: refs/heads/main\n",
	".git/objects/keep":          "",
	".git/refs/keep":             "",
	".git/info/exclude":          "secret.txt\n",
	"node_modules/a/index.js":    "x",
	"node_modules/keep.js":       "x",
	"app.log":                    "x",
	"keep.log":                   "x",
	"debug.log":                  "x",
	"#hash":                      "x",
	"trailing.txt":               "x",
	"build/out.txt":              "x",
	"src/build/x.go":             "x",
	"docs/a.html":                "x",
	"docs/sub/b.html":            "x",
	"src/docs/c.html":            "x",
	"out":                        "a file, not the out/ folder",
	"src/out/y.go":               "x",
	"src/.gitignore":             "*.gen.go\n!important.gen.go\n",
	"src/a.gen.go":               "x",
	"src/important.gen.go":       "x",
	"other/b.gen.go":             "x",
	"lib/.gitignore":             "*.js\n!keep.js\n",
	"lib/x.js":                   "x",
	"lib/keep.js":                "x",
	"secret.txt":                 "x",
	"fixtures/f.txt":             "x",
	"generated.go":               "x",
	"edit.swp":                   "x",
	"main.go":                    "x",
	"vendor/.git/info/exclude":   "local.txt\n",
	"vendor/.git/HEAD":           "ref: refs/heads/main\n",
	"vendor/.git/objects/keep":   "",
	"vendor/.git/refs/keep":      "",
	"vendor/local.txt":           "x",
	"vendor/lib.go":              "x",
	"deep/a/b/node_modules/m.js": "x",
}

func TestIgnoreSemantics(t *testing.T) {
	fsys, _ := testTree(t, ignoreTree)
	excludes := []string{"*.swp", "!app.log"} // lowest priority: cannot re-include app.log
	tests := []struct {
		name string
		opts Options
		want []string
	}{
		{
			name: "every rule",
			opts: Options{Excludes: excludes},
			want: []string{
				".gitignore", ".ignore", ".myclawignore",
				"debug.log",            // *.log, re-included by .ignore
				"docs/sub/b.html",      // docs/*.html: * does not cross a slash
				"keep.log",             // negation !keep.log
				"lib/.gitignore",       //
				"lib/keep.js",          // nested negation
				"main.go",              //
				"other/b.gen.go",       // nested .gitignore applies only below its folder
				"out",                  // out/ is for folders only
				"src/.gitignore",       //
				"src/build/x.go",       // /build is anchored to the root
				"src/docs/c.html",      // docs/*.html has a slash: anchored
				"src/important.gen.go", // nested negation
				"vendor/lib.go",        // a nested repository's own info/exclude
			},
		},
		{
			name: "include ignored",
			opts: Options{IncludeIgnored: true, Excludes: excludes},
			want: func() []string {
				var all []string
				for p := range ignoreTree {
					if !strings.HasPrefix(p, ".git/") && !strings.Contains(p, "/.git/") {
						all = append(all, p)
					}
				}
				sort.Strings(all)
				return all
			}(),
		},
		{
			name: "explicit ignored folder",
			opts: Options{Base: "node_modules"},
			want: []string{"node_modules/a/index.js", "node_modules/keep.js"},
		},
		{
			name: "explicit folder ignored by an anchored pattern",
			opts: Options{Base: "build"},
			want: []string{"build/out.txt"},
		},
		{
			name: "base below the root keeps the parents' rules",
			opts: Options{Base: "src/"},
			want: []string{"src/.gitignore", "src/build/x.go", "src/docs/c.html", "src/important.gen.go"},
		},
		{
			name: "descend",
			opts: Options{Descend: func(p string) bool { return p == "lib" }},
			want: []string{".gitignore", ".ignore", ".myclawignore", "debug.log", "edit.swp", "keep.log", "lib/.gitignore", "lib/keep.js", "main.go", "out"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := testFiles(t, fsys, tt.opts)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestStatsCountIgnored(t *testing.T) {
	fsys, _ := testTree(t, map[string]string{
		".gitignore":        "node_modules/\n*.log\n",
		"node_modules/a.js": "x", "node_modules/b/c.js": "x",
		"a.log": "x", "src/b.log": "x", "src/main.go": "x",
	})
	got, st := testFiles(t, fsys, Options{})
	if want := []string{".gitignore", "src/main.go"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q; want %q", got, want)
	}
	want := Stats{Entries: 3, IgnoredFiles: 2, IgnoredDirs: 1, IgnoredSample: []string{"a.log", "node_modules/", "src/b.log"}}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("got %+v; want %+v", st, want)
	}
	if st.Ignored() != 3 {
		t.Errorf("got Ignored %d; want 3", st.Ignored())
	}
}

// TestMatchesGit compares the walk with git's own answer, where git is
// installed: untracked files git does not ignore.
func TestMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	files := map[string]string{}
	for p, c := range ignoreTree {
		if !strings.HasPrefix(p, ".git/") && !strings.HasPrefix(p, "vendor/") && p != ".ignore" && p != ".myclawignore" {
			files[p] = c
		}
	}
	files[".gitignore"] += "**/deep/**/m.js\nsub*/\n!/src/out/\n"
	files["sub1/z.txt"] = "x"
	files["a/sub2/z.txt"] = "x"
	files["deep/x/m.js"] = "x"
	fsys, dir := testTree(t, files)
	home := t.TempDir()
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(dir, ".git/info/exclude"), []byte("secret.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(git("-c", "core.quotePath=false", "ls-files", "--others", "--exclude-standard"))
	sort.Strings(want)
	got, _ := testFiles(t, fsys, Options{})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("walk lists\n%q\ngit lists\n%q", got, want)
	}
}

func TestWalkOrderAndControl(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("d%02d/f%02d.txt", i%7, i)] = "x"
		files[fmt.Sprintf("d%02d/sub/g%02d.txt", i%3, i)] = "x"
	}
	fsys, _ := testTree(t, files)
	var want []string
	if err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if p != "." {
			want = append(want, p)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for range 5 { // the order must not depend on the goroutines
		var got []string
		st, err := Walk(context.Background(), fsys, Options{}, func(p string, d fs.DirEntry) error {
			got = append(got, p)
			return nil
		})
		if err != nil || !slices.Equal(got, want) || st.Entries != len(want) {
			t.Fatalf("got %q, %v, %d entries; want fs.WalkDir's order %q", got, err, st.Entries, want)
		}
	}

	t.Run("skip dir, skip all, max entries", func(t *testing.T) {
		var got []string
		_, err := Walk(context.Background(), fsys, Options{}, func(p string, d fs.DirEntry) error {
			got = append(got, p)
			switch p {
			case "d00":
				return fs.SkipDir
			case "d01/f01.txt":
				return fs.SkipDir // the rest of d01
			case "d03":
				return fs.SkipAll
			}
			return nil
		})
		want := []string{"d00", "d01", "d01/f01.txt", "d02", "d02/f02.txt", "d02/f09.txt", "d02/f16.txt", "d02/f23.txt", "d02/sub", "d02/sub/g02.txt", "d02/sub/g05.txt", "d02/sub/g08.txt", "d02/sub/g11.txt", "d02/sub/g14.txt", "d02/sub/g17.txt", "d02/sub/g20.txt", "d02/sub/g23.txt", "d02/sub/g26.txt", "d02/sub/g29.txt", "d03"}
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("got %q, %v; want %q", got, err, want)
		}
		st, err := Walk(context.Background(), fsys, Options{MaxEntries: 4}, func(string, fs.DirEntry) error { return nil })
		if err != nil || !st.Stopped || st.Entries != 4 {
			t.Errorf("got %+v, %v; want a walk stopped after 4 entries", st, err)
		}
		boom := errors.New("boom")
		if _, err := Walk(context.Background(), fsys, Options{}, func(string, fs.DirEntry) error { return boom }); !errors.Is(err, boom) {
			t.Errorf("got %v; want fn's error", err)
		}
	})

	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		n := 0
		_, err := Walk(ctx, fsys, Options{}, func(string, fs.DirEntry) error {
			if n++; n == 10 {
				cancel()
			}
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v after %d entries; want context.Canceled", err, n)
		}
	})

	t.Run("missing base", func(t *testing.T) {
		_, err := Walk(context.Background(), fsys, Options{Base: "nope"}, func(string, fs.DirEntry) error { return nil })
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("got %v; want not exist", err)
		}
	})
}

func TestWalkDoesNotFollowLinks(t *testing.T) {
	fsys, dir := testTree(t, map[string]string{"a/x.txt": "x"})
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "leak.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"in-link": "a", "out-link": outside} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	if _, err := Walk(context.Background(), fsys, Options{}, func(p string, d fs.DirEntry) error {
		got = append(got, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a", "a/x.txt", "in-link", "out-link"}; !slices.Equal(got, want) {
		t.Errorf("got %q; want links listed, not followed: %q", got, want)
	}
}

func TestUserExcludes(t *testing.T) {
	home := t.TempDir()
	xdg := filepath.Join(home, "xdg")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", xdg)
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := UserExcludes(); got != nil {
		t.Errorf("got %q; want none without any file", got)
	}
	write(filepath.Join(xdg, "git", "ignore"), "*.default\n")
	if got := UserExcludes(); !slices.Contains(got, "*.default") {
		t.Errorf("got %q; want the default $XDG_CONFIG_HOME/git/ignore", got)
	}
	write(filepath.Join(xdg, "git", "config"), "[core]\n\texcludesFile = "+filepath.Join(home, "xdg.ignore")+"\n")
	write(filepath.Join(home, "xdg.ignore"), "*.xdg\n")
	if got := UserExcludes(); !slices.Contains(got, "*.xdg") {
		t.Errorf("got %q; want the file $XDG_CONFIG_HOME/git/config names", got)
	}
	write(filepath.Join(home, ".gitconfig"), "[user]\n\tname = x\n[core]\n\texcludesfile = ~/global.ignore\n")
	write(filepath.Join(home, "global.ignore"), "*.swp\n.DS_Store\n")
	if got := UserExcludes(); !slices.Contains(got, "*.swp") || slices.Contains(got, "*.xdg") {
		t.Errorf("got %q; want ~/.gitconfig's core.excludesfile to win, ~ expanded", got)
	}
}

// TestLongIgnoreFileSaysSo reads an ignore file up to the bound, to its
// last whole line, and names it when it goes on past.
func TestLongIgnoreFileSaysSo(t *testing.T) {
	defer func(n int) { maxIgnoreBytes = n }(maxIgnoreBytes)
	maxIgnoreBytes = 20
	fsys, _ := testTree(t, map[string]string{
		".gitignore":     "a.txt\nb.txt\nc.txt\nd.txt\n", // d.txt ends past byte 20
		"sub/.gitignore": "e.txt\n",
		"a.txt":          "", "c.txt": "", "d.txt": "", "sub/e.txt": "",
	})
	got, st := testFiles(t, fsys, Options{})
	if want := []string{".gitignore", "d.txt", "sub/.gitignore"}; !slices.Equal(got, want) {
		t.Errorf("got %q; want %q", got, want)
	}
	if want := []string{".gitignore"}; !slices.Equal(st.CutIgnoreFiles, want) {
		t.Errorf("got cut files %q; want %q", st.CutIgnoreFiles, want)
	}
}
