package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfinedCannotPlantHooksThroughHooksPath: the folder core.hooksPath
// names (relative to the working tree, set in the repository's config, a
// file it includes, a nested repository's config, the user's global
// config, or an unparsable config) is protected like .git/hooks.
func TestConfinedCannotPlantHooksThroughHooksPath(t *testing.T) {
	ws := t.TempDir()
	global := filepath.Join(t.TempDir(), "gitconfig")
	os.WriteFile(global, []byte("[core]\n\thooksPath = "+filepath.Join(ws, "global-hooks")+"\n"), 0o644)
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	repo := func(gd, config string) map[string]string {
		return map[string]string{gd + "/HEAD": "ref: refs/heads/main\n", gd + "/config": config, gd + "/hooks/": "",
			gd + "/objects/": "", gd + "/refs/": ""}
	}
	files := map[string]string{
		".husky/pre-commit":        "#!/bin/sh\n",
		"tools/hooks/pre-push":     "#!/bin/sh\n",
		"global-hooks/post-merge":  "#!/bin/sh\n",
		"sub/.githooks/pre-commit": "#!/bin/sh\n",
		"broken/.husky/pre-commit": "#!/bin/sh\n",
		"inc.gitconfig":            "[core]\n\thooksPath = tools/hooks\n",
	}
	for _, m := range []map[string]string{
		repo(".git", "[core]\n\thooksPath = .husky\n[includeIf \"onbranch:x\"]\n\tpath = ../inc.gitconfig\n"),
		repo("sub/.git", "[core]\n\thooksPath = .githooks\n"),
		repo("broken/.git", "[core\n\thooksPath = .husky\n"),
	} {
		for k, v := range m {
			files[k] = v
		}
	}
	writeFiles(t, ws, files)
	s := active(t, ws)
	before := snapshot(t, ws)
	for _, line := range []string{
		"printf '#!/bin/sh\\ntouch /tmp/marker\\n' > .husky/pre-commit",
		"echo x > .husky/post-checkout",
		"chmod -x .husky/pre-commit",
		"rm -rf .husky",
		"mv .husky .husky-away && mkdir .husky && echo x > .husky/pre-commit",
		"echo x > tools/hooks/pre-push",
		"echo x > global-hooks/post-merge",
		"echo x > sub/.githooks/pre-commit",
		"echo x > broken/.husky/pre-commit",
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
		for p := range after {
			if _, ok := before[p]; !ok {
				os.RemoveAll(p) // what got through is reported above; start clean
			}
		}
	}
}

// TestConfinedCannotMakeTheMissingHooksFolder: a hooks folder the config
// names but that does not exist yet is removed if a command makes it.
func TestConfinedCannotMakeTheMissingHooksFolder(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "none"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	writeFiles(t, ws, map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/config": "[core]\n\thooksPath = .husky\n", ".git/refs/": ""})
	s := active(t, ws)
	_, _, note, _ := run(t, s, ws, "mkdir .husky && echo x > .husky/pre-commit", false)
	if exists(filepath.Join(ws, ".husky")) {
		t.Fatal("the command made the hooks folder core.hooksPath names, and it stayed")
	}
	if !strings.Contains(note, ".husky, which is protected") {
		t.Errorf("note = %q; want it to name .husky", note)
	}
}

// TestConfinedCannotReplaceTheHooksFolder: a command that renames a folder
// holding the hooks folder away (or replaces a link leading to it, the
// hooks folder core.hooksPath names or .git/hooks) and makes another in
// its place leaves no hooks folder there.
func TestConfinedCannotReplaceTheHooksFolder(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "none"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, tc := range []struct{ hooksPath, line string }{
		{"tools/hooks", "mv tools tools-away && mkdir -p tools/hooks && echo x > tools/hooks/pre-push"},
		{"hk", "rm hk && mkdir hk && echo x > hk/pre-push"},
		{".git/hooks", "rm .git/hooks && mkdir .git/hooks && echo x > .git/hooks/pre-push"},
	} {
		ws := t.TempDir()
		writeFiles(t, ws, map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/config": "[core]\n\thooksPath = " + tc.hooksPath + "\n",
			".git/refs/": "", "tools/hooks/pre-push": "#!/bin/sh\n", "tools/keep.txt": "k"})
		switch tc.hooksPath {
		case "hk":
			os.Symlink("tools/hooks", filepath.Join(ws, "hk"))
		case ".git/hooks": // no core.hooksPath: .git/hooks itself is a link
			os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n"), 0o644)
			os.Symlink("../tools/hooks", filepath.Join(ws, ".git", "hooks"))
		}
		s := active(t, ws)
		out, _, note, _ := run(t, s, ws, tc.line, false)
		if b, err := os.ReadFile(filepath.Join(ws, tc.hooksPath, "pre-push")); err == nil {
			t.Errorf("%q: %s/pre-push holds %q afterwards (output %q)", tc.line, tc.hooksPath, b, out)
		}
		if !strings.Contains(note, "the command replaced") {
			t.Errorf("%q: note = %q; want it to say the protected folder was replaced", tc.line, note)
		}
	}
}

// TestConfinedCannotReadStoresTheEnvironmentMoved: with XDG_CONFIG_HOME,
// XDG_DATA_HOME and the tools' own variables pointing elsewhere, the
// stores there are hidden too.
func TestConfinedCannotReadStoresTheEnvironmentMoved(t *testing.T) {
	home, x := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(x, "cfg"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(x, "data"))
	t.Setenv("GNUPGHOME", filepath.Join(x, "gpg"))
	t.Setenv("KUBECONFIG", filepath.Join(x, "kube1")+string(filepath.ListSeparator)+filepath.Join(x, "kube2"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(x, "awscreds"))
	t.Setenv("DOCKER_CONFIG", filepath.Join(x, "docker"))
	const secret = "ghp-not-for-the-model"
	files := []string{"cfg/gh/hosts.yml", "cfg/git/credentials", "data/keyrings/login.keyring", "gpg/secring.gpg",
		"kube1", "kube2", "awscreds", "docker/config.json"}
	for _, f := range files {
		p := filepath.Join(x, f)
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte(secret), 0o600)
	}
	ws := filepath.Join(home, "project")
	os.MkdirAll(ws, 0o755)
	s := New(Options{Workspace: ws, Hidden: DefaultHidden()})
	if why := s.detect(); why != "" {
		t.Skip("no sandbox here: " + why)
	}
	if st := s.Check(t.Context()); !st.Active {
		t.Fatalf("the sandbox is supported here but its check failed: %s", st.Why)
	}
	for _, f := range files {
		if out, _, _, _ := run(t, s, ws, "cat "+filepath.Join(x, f), false); strings.Contains(out, secret) {
			t.Errorf("a confined command read %s: %q", f, out)
		}
	}
}

// TestHooksPathHoldingTheWorkspace: hooksPath = "." cannot make the whole
// workspace read-only; its files named as hooks are protected instead,
// and an empty value protects nothing.
func TestHooksPathHoldingTheWorkspace(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "none"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, value := range []string{".", `""`} {
		ws := t.TempDir()
		writeFiles(t, ws, map[string]string{".git/HEAD": "ref: refs/heads/main\n", ".git/config": "[core]\n\thooksPath = " + value + "\n",
			".git/refs/": "", "post-merge": "orig"})
		s := active(t, ws)
		if out, _, _, err := run(t, s, ws, "echo x > notes.txt", false); err != nil {
			t.Errorf("hooksPath = %s: an ordinary write failed: %v %q", value, err, out)
		}
		if value != "." {
			continue
		}
		run(t, s, ws, "echo x > pre-commit; echo x > post-merge", false)
		if exists(filepath.Join(ws, "pre-commit")) {
			t.Error(`hooksPath = ".": the command made pre-commit in the workspace, and it stayed`)
		}
		if b, _ := os.ReadFile(filepath.Join(ws, "post-merge")); string(b) != "orig" {
			t.Errorf(`hooksPath = ".": post-merge is %q`, b)
		}
	}
}
