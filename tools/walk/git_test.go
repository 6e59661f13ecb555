package walk

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// gitCase is a tree and the git state around it; the walk must list what
// `git ls-files --cached --others --exclude-standard` lists.
type gitCase struct {
	name  string
	files map[string]string // path → content; .gitignore files among them
	// exclude is .git/info/exclude; global is ~/.config/git/ignore;
	// repoExcludes, when set, is what the repository's config names as
	// core.excludesFile: a path in the work tree (one outside is not read,
	// TestRepositoryExcludesFileStaysInside).
	exclude, global, repoExcludes string
	tracked                       []string // added with git add -f
	nested                        []string // folders made repositories of their own
}

var gitCases = []gitCase{
	{name: "negation under a/**", files: map[string]string{
		".gitignore": "abc/**\n!abc/keep.txt\n", "abc/keep.txt": "", "abc/drop.txt": "", "abc/sub/keep.txt": "",
	}},
	{name: "directory-only ** does not hide the folder's files", files: map[string]string{
		".gitignore": "abc/**/\n", "abc/f.txt": "", "abc/sub/g.txt": "", "abc/sub/deeper/h.txt": "",
	}},
	{name: "anchoring", files: map[string]string{
		".gitignore": "/a.txt\ndoc/x\nb.txt\n", "a.txt": "", "sub/a.txt": "", "doc/x": "", "sub/doc/x": "", "b.txt": "", "sub/b.txt": "",
	}},
	{name: "** in every position", files: map[string]string{
		".gitignore": "**/foo\nbar/**\na/**/b\nsrc/**.js\nx**y\n**/deep/**/m.js\n",
		"foo":        "", "q/foo": "", "q/r/foo/z": "", "bar/1": "", "bar/2/3": "", "q/bar/4": "",
		"a/b": "", "a/x/b": "", "a/x/y/b": "", "a/x/c": "",
		"src/a.js": "", "src/sub/b.js": "", "src/c.go": "",
		"xy": "", "xzzy": "", "x/y": "", "deep/m.js": "", "k/deep/l/m.js": "",
	}},
	{name: "bare ** and trailing /**", files: map[string]string{
		".gitignore": "**\n!*/\n!*.keep\n", "a.keep": "", "b.drop": "", "d/c.keep": "", "d/e.drop": "",
	}},
	{name: "escapes", files: map[string]string{
		".gitignore": "\\#hash\n\\!bang\nsp\\ \ntwo\\ \\ \nstar\\*\nq\\?\n",
		"#hash":      "", "!bang": "", "sp ": "", "sp": "", "two  ": "", "star*": "", "starx": "", "q?": "", "qx": "",
	}},
	{name: "character classes", files: map[string]string{
		".gitignore": "[!a].txt\n[]a].md\n[a-].c\n[[:digit:]].go\n[^b].h\n[a-c-e].rs\n[[:alpha:]x].py\n[[:bogus:]].sh\n[z\n",
		"a.txt":      "", "b.txt": "", "].md": "", "a.md": "", "b.md": "", "a.c": "", "-.c": "", "b.c": "",
		"1.go": "", "x.go": "", "a.h": "", "b.h": "", "a.rs": "", "-.rs": "", "e.rs": "", "d.rs": "",
		"q.py": "", "x.py": "", "1.py": "", "a.sh": "", "[z": "",
	}},
	{name: "trailing spaces, CRLF and a byte order mark", files: map[string]string{
		".gitignore": "\xef\xbb\xbffirst.txt\r\nlog.txt   \r\n# comment\r\n  \r\nlast.txt",
		"first.txt":  "", "log.txt": "", "last.txt": "", "kept.txt": "", "# comment": "",
	}},
	{name: "nested .gitignore and precedence", files: map[string]string{
		".gitignore": "*.gen\n!keep.gen\n", "a.gen": "", "keep.gen": "",
		"sub/.gitignore": "!a.gen\nkeep.gen\n", "sub/a.gen": "", "sub/keep.gen": "", "sub/b.gen": "",
		"other/a.gen": "",
	}},
	{name: "info/exclude and the global excludes file", exclude: "secret.txt\n*.tmp\n", global: "*.swp\n!keep.swp\n",
		files: map[string]string{".gitignore": "!wanted.tmp\n", "secret.txt": "", "x.tmp": "", "wanted.tmp": "", "a.swp": "", "keep.swp": "", "ok.txt": ""}},
	{name: "the repository's core.excludesFile replaces the global one", global: "*.global\n", repoExcludes: "repo.excludes",
		files: map[string]string{"a.global": "", "b.repo": "", "c.txt": "", "repo.excludes": "*.repo\n"}},
	{name: "tracked files are listed whatever the rules", tracked: []string{"build/keep.o", "app.log"},
		files: map[string]string{".gitignore": "build/\n*.log\n", "build/keep.o": "", "build/drop.o": "", "build/sub/x.o": "", "app.log": "", "other.log": ""}},
	{name: "a nested repository has its own rules", nested: []string{"vendor", "deep/inner"}, exclude: "*.x\n",
		files: map[string]string{".gitignore": "*.log\n", "a.log": "", "a.x": "", "vendor/b.log": "", "vendor/b.x": "", "vendor/.gitignore": "*.y\n", "vendor/c.y": "",
			"deep/inner/d.log": "", "deep/e.log": ""}},
	{name: "**/tmp with !/tmp/", files: map[string]string{
		".gitignore": "**/tmp\n!/tmp/\n", "tmp/a": "", "sub/tmp/b": "", "sub/tmpx": "",
	}},
	{name: "a negated folder's content, and an excluded parent", files: map[string]string{
		".gitignore": "/*\n!/keep/\nlogs/\n!logs/important.log\n", "a": "", "keep/b": "", "keep/logs/important.log": "", "keep/logs/x.log": "",
	}},
	{name: "names that are not UTF-8", files: map[string]string{
		".gitignore": "*.bin\n\xff*\n!\xffkeep\n", "\xfe.bin": "", "\xffx": "", "\xffkeep": "", "caf\xe9.txt": "",
	}},
	{name: "wildcards do not cross a slash", files: map[string]string{
		".gitignore": "docs/*.html\na?c\nd*/e\n", "docs/a.html": "", "docs/sub/b.html": "", "a/c": "", "abc": "", "dx/e": "", "dx/y/e": "",
	}},
}

func TestDifferentialAgainstGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the walk cannot be compared with it")
	}
	for _, c := range gitCases {
		t.Run(c.name, func(t *testing.T) {
			if _, ignored := checkAgainstGit(t, c); !ignored {
				t.Error("git left nothing out: the case tests nothing")
			}
		})
	}
}

// TestRandomAgainstGit compares the walk with git on trees and patterns
// drawn from a fixed seed, so a failure repeats.
func TestRandomAgainstGit(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (runs git on dozens of generated trees): left out of the quick -short run")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the walk cannot be compared with it")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	cut := 0 // cases where the rules left something out
	for i := range 24 {
		c := randomCase(rng)
		c.name = fmt.Sprint("seed case ", i)
		t.Run(c.name, func(t *testing.T) {
			agree, ignored := checkAgainstGit(t, c)
			if ignored {
				cut++
			}
			if !agree {
				var b strings.Builder
				for p, s := range c.files {
					if strings.HasSuffix(p, ".gitignore") {
						fmt.Fprintf(&b, "%s: %q\n", p, s)
					}
				}
				t.Logf("ignore files:\n%s", b.String())
			}
		})
	}
	if cut < 12 {
		t.Errorf("the rules left something out in %d cases of 24; the generator should make them bite more often", cut)
	}
}

var (
	randNames = []string{"a", "b", "ab", "abc", "x.js", "y.go", "z.txt", "tmp", "build", "A", "1", "[x]", "#h", "!n", "sp ", "a.b.c"}
	randSegs  = []string{"a", "b", "abc", "*", "**", "?", "[ab]", "[!a]", "*.js", "b*", "*.go", "tmp", "build", "a?c", "[[:digit:]]", "x**", "**.js", "\\#h", "\\!n", "[x]", "\\[x]"}
)

func randomCase(rng *rand.Rand) gitCase {
	c := gitCase{files: map[string]string{}}
	var dirs []string
	for range 12 + rng.IntN(30) {
		depth := 1 + rng.IntN(4)
		parts := make([]string, depth)
		for i := range parts {
			parts[i] = randNames[rng.IntN(len(randNames))]
		}
		c.files[strings.Join(parts, "/")] = ""
		if depth > 1 {
			dirs = append(dirs, strings.Join(parts[:depth-1], "/"))
		}
	}
	pattern := func() string {
		var b strings.Builder
		if rng.IntN(4) == 0 {
			b.WriteString("!")
		}
		if rng.IntN(4) == 0 {
			b.WriteString("/")
		}
		n := 1 + rng.IntN(3)
		for i := range n {
			if i > 0 {
				b.WriteString("/")
			}
			b.WriteString(randSegs[rng.IntN(len(randSegs))])
		}
		if rng.IntN(4) == 0 {
			b.WriteString("/")
		}
		if rng.IntN(8) == 0 {
			b.WriteString("  ")
		}
		return b.String()
	}
	ignoreFile := func() string {
		lines := make([]string, 3+rng.IntN(6))
		for i := range lines {
			lines[i] = pattern()
		}
		return strings.Join(lines, "\n") + "\n"
	}
	c.files[".gitignore"] = ignoreFile()
	for range rng.IntN(3) {
		if len(dirs) > 0 {
			d := dirs[rng.IntN(len(dirs))]
			// Not over a file of the same name.
			if _, isFile := c.files[d]; !isFile {
				c.files[d+"/.gitignore"] = ignoreFile()
			}
		}
	}
	if rng.IntN(3) == 0 {
		c.exclude = ignoreFile()
	}
	// Drop files whose path runs through another file.
	for p := range c.files {
		for d := filepath.Dir(p); d != "."; d = filepath.Dir(d) {
			if _, ok := c.files[d]; ok {
				delete(c.files, p)
				break
			}
		}
	}
	if rng.IntN(3) == 0 {
		for p := range c.files {
			if rng.IntN(4) == 0 {
				c.tracked = append(c.tracked, p)
			}
		}
		sort.Strings(c.tracked)
	}
	return c
}

// checkAgainstGit builds the case, asks git and the walk, and reports
// whether they agree, and whether git left any file out.
func checkAgainstGit(t *testing.T, c gitCase) (agree, ignored bool) {
	t.Helper()
	home := t.TempDir()
	xdg := filepath.Join(home, ".config")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", xdg)
	env := append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(home, ".gitconfig"))
	if c.global != "" {
		writeFile(t, filepath.Join(xdg, "git", "ignore"), c.global)
	}
	dir := t.TempDir()
	git := func(in string, args ...string) []byte {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = in
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %q in %s: %v", args, in, err)
		}
		return out
	}
	git(dir, "init", "-q")
	for _, n := range c.nested {
		if err := os.MkdirAll(filepath.Join(dir, n), 0o755); err != nil {
			t.Fatal(err)
		}
		git(filepath.Join(dir, n), "init", "-q")
	}
	for p, s := range c.files {
		writeFile(t, filepath.Join(dir, filepath.FromSlash(p)), s)
	}
	if c.exclude != "" {
		for _, r := range append([]string{""}, c.nested...) {
			writeFile(t, filepath.Join(dir, r, ".git", "info", "exclude"), c.exclude)
		}
	}
	if c.repoExcludes != "" {
		git(dir, "config", "core.excludesFile", c.repoExcludes)
	}
	if len(c.tracked) > 0 {
		git(dir, append([]string{"add", "-f", "--"}, c.tracked...)...)
	}

	want := gitListing(t, git, dir, "")
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	var got []string
	if _, err := Files(context.Background(), root.FS(), Options{Excludes: UserExcludes()}, func(p string, _ fs.DirEntry) error {
		got = append(got, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sort.Strings(got) // the walk's order is by name within a folder
	if !slices.Equal(got, want) {
		t.Errorf("walk lists\n%q\ngit lists\n%q", got, want)
		return false, true
	}
	return true, len(want) < len(c.files)
}

// gitListing is what git lists in dir, with the files of the nested
// repositories it names ("inner/") listed by their own git, sorted.
func gitListing(t *testing.T, git func(string, ...string) []byte, dir, prefix string) []string {
	out := git(dir, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	var list []string
	for p := range bytes.SplitSeq(bytes.TrimSuffix(out, []byte{0}), []byte{0}) {
		if len(p) == 0 {
			continue
		}
		s := string(p)
		if strings.HasSuffix(s, "/") {
			list = append(list, gitListing(t, git, filepath.Join(dir, s), prefix+s)...)
			continue
		}
		list = append(list, prefix+s)
	}
	sort.Strings(list)
	return slices.Compact(list)
}

func writeFile(t testing.TB, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
