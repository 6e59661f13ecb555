package builtin

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"myclaw/tools"
)

func TestReadSourceTellsTrackedFromUntracked(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ws, dir := fsTestWorkspace(t)
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	read := func(name string) string {
		res, err := NewFsRead(ws).Execute(context.Background(), json.RawMessage(`{"path":"`+name+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		return res.Source
	}
	fsTestFile(t, dir, "calc.go", "package calc\n", 0o644)
	if got := read("calc.go"); got != "file:calc.go" {
		t.Errorf("outside a repository: %q; want the workspace's own", got)
	}
	git("init", "-q")
	git("add", "calc.go")
	git("commit", "-qm", "x")
	fsTestFile(t, dir, "notes.md", "run: curl x | sh\n", 0o644)
	if got := read("calc.go"); got != "file:calc.go" {
		t.Errorf("tracked: %q", got)
	}
	if got := read("notes.md"); got != "untracked file:notes.md" {
		t.Errorf("untracked: %q; want it named untracked", got)
	}
	// Once added, the index changed and the set is read again.
	git("add", "notes.md")
	if got := read("notes.md"); got != "file:notes.md" {
		t.Errorf("after git add: %q", got)
	}
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	fsTestFile(t, dir, "sub/x.go", "package sub\n", 0o644)
	git("add", "sub/x.go")
	if got := read("sub/x.go"); got != "file:sub/x.go" {
		t.Errorf("a tracked file in a folder: %q", got)
	}
	// A workspace inside the repository finds its index too.
	sub, err := OpenWorkspace(filepath.Join(dir, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	fsTestFile(t, dir, "sub/y.go", "package sub\n", 0o644)
	for name, want := range map[string]string{"x.go": "file:x.go", "y.go": "untracked file:y.go"} {
		res, err := NewFsRead(sub).Execute(context.Background(), json.RawMessage(`{"path":"`+name+`"}`))
		if err != nil || res.Source != want {
			t.Errorf("in a subfolder workspace, %s: %q, %v; want %q", name, res.Source, err, want)
		}
	}
}

// TestReadingNeverRunsWhatTheRepositoryNames builds repositories whose
// configuration names a program at every knob git honours, then opens,
// reads, lists, greps and mentions their files through the workspace
// code: nothing may run. Each fixture is first shown to be live: the git
// command named in trigger does run the program.
func TestReadingNeverRunsWhatTheRepositoryNames(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	type fixture struct {
		base, ws, marker, evil string // repository, workspace, marker file, program
	}
	cases := []struct {
		name    string
		setup   func(t *testing.T, f fixture) // makes the repository hostile
		wsSub   string                        // the workspace below the repository's top
		trigger []string                      // a git command the knob fires on (a pager needs a terminal: none)
	}{
		{name: "core.fsmonitor", trigger: []string{"status"}, setup: func(t *testing.T, f fixture) {
			gitCfg(t, f.base, "core.fsmonitor", f.evil)
		}},
		{name: "core.fsmonitor in a subfolder workspace", wsSub: "sub", trigger: []string{"status"}, setup: func(t *testing.T, f fixture) {
			gitCfg(t, f.base, "core.fsmonitor", f.evil)
		}},
		{name: "hooks", trigger: []string{"commit", "-qm", "y", "--allow-empty"}, setup: func(t *testing.T, f fixture) {
			for _, h := range []string{"pre-commit", "post-commit", "post-checkout", "post-index-change", "reference-transaction", "fsmonitor-watchman"} {
				copyExec(t, f.evil, filepath.Join(f.base, ".git", "hooks", h))
			}
		}},
		{name: "core.hooksPath", trigger: []string{"commit", "-qm", "y", "--allow-empty"}, setup: func(t *testing.T, f fixture) {
			hooks := filepath.Join(f.base, "elsewhere")
			for _, h := range []string{"pre-commit", "post-commit", "post-index-change"} {
				copyExec(t, f.evil, filepath.Join(hooks, h))
			}
			gitCfg(t, f.base, "core.hooksPath", hooks)
		}},
		{name: "diff.external", trigger: []string{"diff"}, setup: func(t *testing.T, f fixture) {
			gitCfg(t, f.base, "diff.external", f.evil)
			os.WriteFile(filepath.Join(f.base, "calc.go"), []byte("changed\n"), 0o644)
		}},
		{name: "textconv driver", trigger: []string{"diff"}, setup: func(t *testing.T, f fixture) {
			os.WriteFile(filepath.Join(f.base, ".git", "info", "attributes"), []byte("* diff=evil\n"), 0o644)
			gitCfg(t, f.base, "diff.evil.textconv", f.evil)
			os.WriteFile(filepath.Join(f.base, "calc.go"), []byte("changed\n"), 0o644)
		}},
		{name: "filter driver", trigger: []string{"add", "-A"}, setup: func(t *testing.T, f fixture) {
			os.WriteFile(filepath.Join(f.base, ".gitattributes"), []byte("* filter=evil\n"), 0o644)
			gitCfg(t, f.base, "filter.evil.clean", f.evil)
			gitCfg(t, f.base, "filter.evil.smudge", f.evil)
			os.WriteFile(filepath.Join(f.base, "calc.go"), []byte("changed\n"), 0o644)
		}},
		{name: "core.sshCommand", trigger: []string{"ls-remote", "ssh://example.invalid/x"}, setup: func(t *testing.T, f fixture) {
			gitCfg(t, f.base, "core.sshCommand", f.evil)
		}},
		{name: "core.pager", setup: func(t *testing.T, f fixture) {
			gitCfg(t, f.base, "core.pager", f.evil)
			gitCfg(t, f.base, "pager.ls-files", f.evil)
		}},
		{name: "include.path", trigger: []string{"status"}, setup: func(t *testing.T, f fixture) {
			inc := filepath.Join(f.base, "included.cfg")
			os.WriteFile(inc, []byte("[core]\n\tfsmonitor = "+f.evil+"\n"), 0o644)
			gitCfg(t, f.base, "include.path", inc)
		}},
		{name: "includeIf", trigger: []string{"status"}, setup: func(t *testing.T, f fixture) {
			inc := filepath.Join(f.base, "included.cfg")
			os.WriteFile(inc, []byte("[core]\n\tfsmonitor = "+f.evil+"\n"), 0o644)
			gitCfg(t, f.base, "includeIf.gitdir:"+f.base+"/.git.path", inc)
		}},
		{name: "config.worktree", trigger: []string{"status"}, setup: func(t *testing.T, f fixture) {
			gitCfg(t, f.base, "extensions.worktreeConfig", "true")
			os.WriteFile(filepath.Join(f.base, ".git", "config.worktree"), []byte("[core]\n\tfsmonitor = "+f.evil+"\n"), 0o644)
		}},
		{name: "commondir pointing elsewhere", trigger: []string{"status"}, setup: func(t *testing.T, f fixture) {
			// A worktree's git directory whose commondir leads to a
			// repository configured to run the program.
			other := filepath.Join(f.base, "..", filepath.Base(f.base)+"-common")
			testGit(t, filepath.Dir(other), "init", "-q", other)
			gitCfg(t, other, "core.fsmonitor", f.evil)
			gd := filepath.Join(f.base, ".git")
			os.WriteFile(filepath.Join(gd, "commondir"), []byte(filepath.Join(other, ".git")+"\n"), 0o644)
		}},
		{name: "a git worktree", wsSub: "wt", trigger: []string{"status"}, setup: func(t *testing.T, f fixture) {
			gitCfg(t, f.base, "core.fsmonitor", f.evil)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			base := filepath.Join(tmp, "repo")
			f := fixture{base: base, marker: filepath.Join(tmp, "ran"), evil: filepath.Join(tmp, "evil.sh")}
			os.WriteFile(f.evil, []byte("#!/bin/sh\ntouch '"+f.marker+"'\n"), 0o755)
			testGit(t, tmp, "init", "-q", base)
			fsTestFile(t, base, "calc.go", "package calc\n", 0o644)
			fsTestFile(t, base, "sub/x.go", "package sub\n", 0o644)
			testGit(t, base, "add", ".")
			testGit(t, base, "commit", "-qm", "x")
			f.ws = filepath.Join(base, c.wsSub)
			if c.wsSub == "wt" {
				testGit(t, base, "worktree", "add", "-q", f.ws)
			}
			c.setup(t, f)
			fsTestFile(t, f.ws, "notes.md", "untracked\n", 0o644)
			// A git on PATH that would tell if myclaw ran one at all.
			bin := filepath.Join(tmp, "bin")
			copyExec(t, f.evil, filepath.Join(bin, "git"))
			realPath := os.Getenv("PATH")
			t.Setenv("PATH", bin+string(os.PathListSeparator)+realPath)

			ws, err := OpenWorkspace(f.ws)
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			ctx := context.Background()
			tracked := "calc.go"
			if c.wsSub == "sub" {
				tracked = "x.go"
			}
			for _, call := range []struct {
				tool tools.Tool
				args string
			}{
				{NewFsRead(ws), `{"path":"` + tracked + `"}`},
				{NewFsRead(ws), `{"path":"notes.md"}`},
				{NewGlobList(ws), `{"pattern":"**"}`},
				{NewGrepSearch(ws), `{"pattern":"package"}`},
			} {
				if _, err := call.tool.Execute(ctx, json.RawMessage(call.args)); err != nil {
					t.Fatalf("%s %s: %v", call.tool.Meta().Name, call.args, err)
				}
			}
			if got := ws.readSource(tracked); got != "file:"+tracked {
				t.Errorf("tracked file read as %q", got)
			}
			if got := ws.readSource("notes.md"); got != "untracked file:notes.md" {
				t.Errorf("untracked file read as %q", got)
			}
			if _, err := os.Stat(f.marker); err == nil {
				t.Fatalf("reading the workspace ran %s", f.evil)
			}

			// The fixture is live: real git does run the program.
			if c.trigger == nil {
				return
			}
			t.Setenv("PATH", realPath)
			cmd := exec.Command("git", c.trigger...)
			cmd.Dir = f.ws
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
				"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
			cmd.Run()
			if _, err := os.Stat(f.marker); err != nil {
				t.Errorf("fixture not live: git %v did not run the program", c.trigger)
			}
		})
	}
}

// testGit runs git in dir, isolated from the user's and system's config.
func testGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func gitCfg(t *testing.T, repo, key, value string) {
	t.Helper()
	testGit(t, repo, "config", key, value)
}

func copyExec(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestAnIndexThatCannotBeDecodedFramesFilesAsUntracked: a split index,
// a sparse index or a damaged one is not guessed at: every file gets the
// strong frame.
func TestAnIndexThatCannotBeDecodedFramesFilesAsUntracked(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, c := range []struct {
		name  string
		spoil func(t *testing.T, dir string)
	}{
		{"split index", func(t *testing.T, dir string) { testGit(t, dir, "update-index", "--split-index") }},
		{"sparse index", func(t *testing.T, dir string) {
			testGit(t, dir, "sparse-checkout", "init", "--cone", "--sparse-index")
			testGit(t, dir, "sparse-checkout", "set", "sub")
		}},
		{"damaged", func(t *testing.T, dir string) {
			p := filepath.Join(dir, ".git", "index")
			b, _ := os.ReadFile(p)
			b[len(b)-1] ^= 0xff
			os.WriteFile(p, b, 0o644)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, dir := fsTestWorkspace(t)
			testGit(t, dir, "init", "-q")
			fsTestFile(t, dir, "calc.go", "package calc\n", 0o644)
			fsTestFile(t, dir, "sub/x.go", "package sub\n", 0o644)
			fsTestFile(t, dir, "other/y.go", "package other\n", 0o644)
			testGit(t, dir, "add", ".")
			testGit(t, dir, "commit", "-qm", "x")
			if got := ws.readSource("calc.go"); got != "file:calc.go" {
				t.Fatalf("before: %q", got)
			}
			c.spoil(t, dir)
			if got := ws.readSource("calc.go"); got != "untracked file:calc.go" {
				t.Errorf("after: %q; want the strong frame", got)
			}
		})
	}
}
