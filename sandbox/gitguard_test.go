package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// snapshot maps every path under root to its content (folders to "dir",
// links to their target).
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			out[p] = "link:" + l
		case d.IsDir():
			out[p] = "dir"
		default:
			b, _ := os.ReadFile(p)
			out[p] = string(b)
		}
		return nil
	})
	return out
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if strings.HasSuffix(rel, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConfinedCannotChangeWhatGitRuns: no file that decides what git
// runs, in any repository of the workspace, can be written, created,
// renamed or replaced by a confined command.
func TestConfinedCannotChangeWhatGitRuns(t *testing.T) {
	ws := t.TempDir()
	repo := func(gd string) map[string]string {
		return map[string]string{gd + "/HEAD": "ref: refs/heads/main\n", gd + "/config": "[core]\n", gd + "/hooks/": "",
			gd + "/objects/": "", gd + "/refs/": "", gd + "/info/exclude": "\n"}
	}
	files := map[string]string{}
	for _, m := range []map[string]string{repo(".git"), repo(".git/modules/sm"), repo("nested/deep/.git"), repo("elsewhere/gd")} {
		for k, v := range m {
			files[k] = v
		}
	}
	files[".git/worktrees/wt/HEAD"] = "ref: refs/heads/wt\n"
	files[".git/worktrees/wt/commondir"] = "../..\n"
	files[".git/worktrees/wt/gitdir"] = ws + "/wt/.git\n"
	files["wt/.git"] = "gitdir: " + ws + "/.git/worktrees/wt\n"
	files["sm/.git"] = "gitdir: ../.git/modules/sm\n"
	files["linked/.git"] = "gitdir: ../elsewhere/gd\n"
	files[".git/config"] = "[core]\n[include]\n\tpath = ../shared.gitconfig\n"
	files["shared.gitconfig"] = "[user]\n"
	writeFiles(t, ws, files)
	s := active(t, ws)
	before := snapshot(t, ws)
	for _, line := range []string{
		"echo x > .git/commondir",
		"echo '[core] fsmonitor = evil' > .git/config.worktree",
		"echo '* filter=evil' > .git/info/attributes",
		"echo '[core] fsmonitor = evil' >> .git/modules/sm/config",
		"echo x > .git/modules/sm/hooks/post-checkout",
		"echo '[core] fsmonitor = evil' > .git/worktrees/wt/config.worktree",
		"echo /tmp > .git/worktrees/wt/commondir",
		"echo /tmp > .git/worktrees/wt/gitdir",
		"echo '[core] fsmonitor = evil' >> nested/deep/.git/config",
		"echo x > nested/deep/.git/hooks/pre-commit",
		"mv nested/deep/.git nested/deep/.git-away && mkdir -p nested/deep/.git/hooks && echo x > nested/deep/.git/hooks/pre-commit",
		"echo 'gitdir: /tmp/evil' > wt/.git",
		"rm -f sm/.git; echo 'gitdir: /tmp/evil' > sm/.git",
		"mv linked/.git linked/away",
		"echo '[core] fsmonitor = evil' >> elsewhere/gd/config",
		"echo x > elsewhere/gd/hooks/post-merge",
		"echo '[core] fsmonitor = evil' >> shared.gitconfig",
	} {
		out, _, note, _ := run(t, s, ws, line, false)
		after := snapshot(t, ws)
		for p, v := range after {
			if before[p] != v {
				t.Errorf("%q changed %s to %q (output %q)", line, p, v, out)
			}
		}
		for p := range before {
			if _, ok := after[p]; !ok {
				t.Errorf("%q removed %s", line, p)
			}
		}
		if !strings.Contains(note, "permission_denied") {
			t.Errorf("%q: note = %q; want permission_denied (output %q)", line, note, out)
		}
	}
}

// TestConfinedNewRepositoryIsMadeInert: a repository, worktree or git
// directory a confined command makes names no program once it finished:
// git run on it afterwards, unconfined, runs nothing the command set up.
func TestConfinedNewRepositoryIsMadeInert(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	os.MkdirAll(ws, 0o755)
	marker := filepath.Join(root, "ran")
	evil := filepath.Join(ws, "evil.sh")
	os.WriteFile(evil, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
	s := active(t, ws)
	line := strings.Join([]string{
		"git init -q new",
		"git -C new config core.fsmonitor " + evil,
		"git -C new config core.hooksPath " + ws,
		"git -C new config diff.external " + evil,
		"git -C new config user.name kept",
		"printf '[core]\\n\\tfsmonitor = " + evil + "\\n' > inc.cfg",
		"git -C new config include.path " + ws + "/inc.cfg",
		"cp " + evil + " new/.git/hooks/post-commit",
		// a git directory reached through a gitdir file, with a commondir
		"mkdir -p other/gd/objects other/gd/refs other/cd/objects other/cd/refs other/cd/hooks",
		"echo 'ref: refs/heads/main' > other/gd/HEAD; echo 'ref: refs/heads/main' > other/cd/HEAD",
		"echo 'gitdir: gd' > other/.git; echo ../cd > other/gd/commondir",
		"printf '[core]\\n\\tfsmonitor = " + evil + "\\n' > other/cd/config",
		"cp " + evil + " other/cd/hooks/post-checkout",
	}, " && ")
	out, _, note, err := run(t, s, ws, line, false)
	if err != nil {
		t.Fatalf("the set-up failed confined: %v: %s", err, out)
	}
	if !strings.Contains(note, "made it inert") || !strings.Contains(note, "core.fsmonitor") {
		t.Errorf("note = %q; want it to say what was made inert", note)
	}
	cfg, _ := os.ReadFile(filepath.Join(ws, "new", ".git", "config"))
	if !strings.Contains(string(cfg), "kept") {
		t.Errorf("an inert key was dropped: %s", cfg)
	}
	for _, dir := range []string{"new", "other"} {
		cmd := exec.Command("git", "status")
		cmd.Dir = filepath.Join(ws, dir)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		cmd.Run()
		cmd = exec.Command("git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x")
		cmd.Dir = filepath.Join(ws, dir)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		cmd.Run()
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("git in %s ran what the confined command set up (config now %q)", dir, cfg)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "other", "cd", "hooks", "post-checkout")); err == nil {
		t.Error("a hook in the common dir survived")
	}
}

// TestConfinedReplacedGitDirIsMadeInert: a git directory renamed away
// (with its protected files) and replaced by a new one at the same path
// is checked as a new repository.
func TestConfinedReplacedGitDirIsMadeInert(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		"elsewhere/gd/HEAD": "ref: refs/heads/main\n", "elsewhere/gd/config": "[core]\n", "elsewhere/gd/objects/": "", "elsewhere/gd/refs/": "",
		"linked/.git": "gitdir: ../elsewhere/gd\n",
	})
	s := active(t, ws)
	line := "mv elsewhere/gd elsewhere/old && mkdir -p elsewhere/gd/objects elsewhere/gd/refs elsewhere/gd/hooks && " +
		"echo 'ref: refs/heads/main' > elsewhere/gd/HEAD && printf '[core]\\n\\tfsmonitor = evil\\n' > elsewhere/gd/config && echo x > elsewhere/gd/hooks/pre-commit"
	out, _, note, err := run(t, s, ws, line, false)
	if err != nil {
		t.Skipf("the folder could not be renamed here (%v: %s): nothing to check", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "elsewhere", "gd", "config")); strings.Contains(string(b), "fsmonitor") {
		t.Errorf("the replacement's config kept fsmonitor: %q (note %q)", b, note)
	}
	if _, err := os.Lstat(filepath.Join(ws, "elsewhere", "gd", "hooks", "pre-commit")); err == nil {
		t.Errorf("the replacement's hook survived (note %q)", note)
	}
}

// TestConfinedBareRepositoryIsMadeInert: git takes a folder holding HEAD,
// objects and refs for a (bare) repository when run inside it, and follows
// a `.git` link; either, made by a confined command, is a repository it
// made, even when the link leads into a folder the walk skips.
func TestConfinedBareRepositoryIsMadeInert(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ws := t.TempDir()
	evil := filepath.Join(ws, "evil.sh")
	s := active(t, ws)
	line := strings.Join([]string{
		"git init -q --bare docs",
		"git -C docs config core.pager " + evil,
		"git init -q --bare node_modules/x",
		"git -C node_modules/x config core.pager " + evil,
		"mkdir linked && ln -s ../node_modules/x linked/.git",
	}, " && ")
	out, _, note, err := run(t, s, ws, line, false)
	if err != nil {
		t.Fatalf("the set-up failed confined: %v: %s", err, out)
	}
	for _, dir := range []string{"docs", "linked"} {
		// git itself finds the repository from the folder, and says what
		// its config would have it run.
		cmd := exec.Command("git", "config", "--get", "core.pager")
		cmd.Dir = filepath.Join(ws, dir)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if b, _ := cmd.Output(); len(b) > 0 {
			t.Errorf("git in %s still reads core.pager = %s (note %q)", dir, b, note)
		}
	}
	if !strings.Contains(note, "made it inert") || !strings.Contains(note, "core.pager") {
		t.Errorf("note = %q; want it to say what was made inert", note)
	}
}

// TestConfinedRepositoryBehindManyFoldersIsMadeInert: a command cannot
// hide a repository it made from the check by first making more folders
// than the walk looks at; folders it made do not count against the bound.
func TestConfinedRepositoryBehindManyFoldersIsMadeInert(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (makes thousands of folders): left out of the quick -short run")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ws := t.TempDir()
	s := active(t, ws)
	line := fmt.Sprintf("mkdir -p a && cd a && seq 1 %d | xargs mkdir && cd .. && git init -q zz/y && git -C zz/y config core.fsmonitor evil", walkLimit+10)
	out, _, note, err := run(t, s, ws, line, false)
	if err != nil {
		t.Fatalf("the set-up failed confined: %v: %s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "zz", "y", ".git", "config")); strings.Contains(string(b), "fsmonitor") {
		t.Errorf("the repository behind %d new folders kept core.fsmonitor (note %q)", walkLimit, note)
	}
}
