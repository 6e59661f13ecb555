package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTrustedFileKnowsTheHooksFolder: once the workspace is known, a file
// in the folder core.hooksPath names is trusted like one in .git/hooks,
// whichever config names it.
func TestTrustedFileKnowsTheHooksFolder(t *testing.T) {
	ws := t.TempDir()
	global := filepath.Join(t.TempDir(), "gitconfig")
	os.WriteFile(global, []byte("[core]\n\thooksPath = "+filepath.Join(ws, "mine")+"\n"), 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	writeTree(t, ws, map[string]string{
		".git/config":             "[core]\n\thooksPath = .husky\n[include]\n\tpath = ../inc.gitconfig\n",
		"inc.gitconfig":           "[core]\n\thooksPath = \"scripts/git hooks\"\n",
		"sub/.git":                "gitdir: ../.git/modules/sub\n",
		".git/modules/sub/config": "[core]\n\thooksPath = .githooks\n",
		"bad/.git/config":         "[core\n\thooksPath = hk\n",
		"src/main.go":             "package main\n",
	})
	SetWorkspace(ws)
	t.Cleanup(func() { SetWorkspace("") })
	for _, p := range []string{".husky/pre-commit", ".husky", "./.husky/x", "scripts/git hooks/pre-push", "sub/.githooks/pre-commit",
		"mine/post-merge", "bad/hk/pre-commit", "bad/.husky/pre-commit", "bad/.githooks/pre-commit"} {
		if what := TrustedFile(p); !strings.Contains(what, "core.hooksPath") {
			t.Errorf("TrustedFile(%q) = %q; want it to name core.hooksPath", p, what)
		}
	}
	for _, p := range []string{"src/main.go", ".huskyx/pre-commit", "sub/.husky/pre-commit", ".githooks/pre-commit", "inc.gitconfig"} {
		if what := TrustedFile(p); strings.Contains(what, "core.hooksPath") {
			t.Errorf("TrustedFile(%q) = %q; want no hooks folder", p, what)
		}
	}
	SetWorkspace("")
	if what := TrustedFile(".husky/pre-commit"); what != "" {
		t.Errorf("without a workspace: %q; want \"\"", what)
	}
}

// TestHooksDirsResolvesAsGitDoes: relative to the working tree (or the
// git directory when bare, or core.worktree), "~/" from the home folder,
// values from GIT_CONFIG_KEY_n too.
func TestHooksDirsResolvesAsGitDoes(t *testing.T) {
	home, gd, root := t.TempDir(), t.TempDir(), t.TempDir()
	env := map[string]string{"HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_COUNT": "1",
		"GIT_CONFIG_KEY_0": "core.hooksPath", "GIT_CONFIG_VALUE_0": "/abs/hooks"}
	os.WriteFile(filepath.Join(gd, "config"), []byte("[core]\n\thooksPath = h\n\tworktree = ../wt\n"), 0o644)
	os.MkdirAll(filepath.Join(home, ".config", "git"), 0o755)
	os.WriteFile(filepath.Join(home, ".config", "git", "config"), []byte("[core]\nhookspath = ~/gh\n"), 0o644)
	got := hooksDirs(gd, root, func(k string) string { return env[k] })
	want := []string{filepath.Join(root, "h"), filepath.Join(filepath.Dir(gd), "wt", "h")}
	for _, w := range append(want, "/abs/hooks") {
		found := false
		for _, g := range got {
			found = found || g == w
		}
		if !found {
			t.Errorf("hooksDirs = %q; want it to hold %s", got, w)
		}
	}
	if len(got) < 4 {
		t.Errorf("hooksDirs = %q; want ~/gh from the XDG config too", got)
	}
}

// TestTrustedFileHooksPathDot: hooksPath = "." makes the workspace's files
// named as hooks trusted, not every file.
func TestTrustedFileHooksPathDot(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(ws, "none"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	writeTree(t, ws, map[string]string{".git/config": "[core]\n\thooksPath = .\n"})
	SetWorkspace(ws)
	t.Cleanup(func() { SetWorkspace("") })
	if what := TrustedFile("pre-commit"); !strings.Contains(what, "core.hooksPath") {
		t.Errorf("TrustedFile(pre-commit) = %q; want the hooks folder", what)
	}
	for _, p := range []string{"main.go", "src/pre-commit"} {
		if what := TrustedFile(p); what != "" {
			t.Errorf("TrustedFile(%q) = %q; want \"\"", p, what)
		}
	}
}

// An editor may open sessions in several workspaces in one process: a
// second workspace does not hide the first one's hooks folder.
func TestTrustedFileKnowsEveryOpenedWorkspace(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "none"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	first, second := t.TempDir(), t.TempDir()
	writeTree(t, first, map[string]string{".git/config": "[core]\n\thooksPath = .husky\n"})
	writeTree(t, second, map[string]string{".git/config": "[core]\n\thooksPath = .githooks\n"})
	SetWorkspace(first)
	SetWorkspace(second)
	SetWorkspace(first) // again: kept once
	t.Cleanup(func() { SetWorkspace("") })
	for _, p := range []string{".husky/pre-commit", ".githooks/pre-push"} {
		if what := TrustedFile(p); !strings.Contains(what, "core.hooksPath") {
			t.Errorf("TrustedFile(%q) = %q; want it to name core.hooksPath", p, what)
		}
	}
	if n := len(*hooksWorkspaces.Load()); n != 2 {
		t.Errorf("%d workspaces kept; want 2", n)
	}
	if what := TrustedFileByName(".husky/pre-commit"); what != "" {
		t.Errorf("by name alone: %q; want \"\" (it reads nothing)", what)
	}
}
