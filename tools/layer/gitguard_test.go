package layer

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// shErr runs line in the layer and returns its output and error.
func shErr(t *testing.T, l *Layer, line string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = l.ws.Dir()
	finish, err := l.Sandbox().Confine(cmd, false)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	finish(string(out))
	return string(out), err
}

// TestTheLayerNeverLetsACommandChooseWhatGitRuns: in an edit agent's
// layer, a nested repository of the workspace and a file its config
// includes cannot be changed by the agent's commands (the layer's
// namespace has them read-only, though its commands no longer look for
// repositories themselves), and a repository an earlier command made in
// the layer reaches the workspace, if at all, without its config and
// hooks: git run on it afterwards, outside the sandbox, runs nothing the
// agent planted. Read-only mounts and Landlock bind root too, so the test
// means the same when run as root.
func TestTheLayerNeverLetsACommandChooseWhatGitRuns(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	e := newEnv(t, map[string]string{"a.txt": "a\n", "shared.gitconfig": "[user]\n"})
	marker := filepath.Join(t.TempDir(), "ran")
	evil := filepath.Join(t.TempDir(), "evil.sh")
	os.WriteFile(evil, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
	// git here must run a repository's hooks, or "it ran nothing" proves
	// nothing.
	control := filepath.Join(t.TempDir(), "control")
	if out, err := exec.Command("git", "init", "-q", control).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	os.WriteFile(filepath.Join(control, ".git", "hooks", "post-commit"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
	gitOutside(control)
	if _, err := os.Stat(marker); err != nil {
		t.Skip("git does not run a repository's hooks here, so a planted one would prove nothing")
	}
	os.Remove(marker)
	sub := filepath.Join(e.dir, "sub")
	if out, err := exec.Command("git", "init", "-q", sub).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	if out, err := exec.Command("git", "-C", sub, "config", "include.path", "../../shared.gitconfig").CombinedOutput(); err != nil {
		t.Fatalf("git config: %v: %s", err, out)
	}
	subConfig := e.read(t, "sub/.git/config")
	l := e.open(t)

	for _, attack := range []string{
		"echo x >> sub/.git/config",
		"cp " + evil + " sub/.git/hooks/post-commit",
		"printf '[core]\\n\\tfsmonitor = " + evil + "\\n' >> shared.gitconfig",
	} {
		if out, err := shErr(t, l, attack); err == nil {
			t.Errorf("%q succeeded in the layer (output %q)", attack, out)
		}
	}
	// An earlier command makes a repository and plants what git runs.
	sh(t, l, "git init -q made && git -C made config core.fsmonitor "+evil+
		" && cp "+evil+" made/.git/hooks/post-commit && cp "+evil+" made/.git/hooks/pre-commit && echo b > b.txt")
	// A later one changes it again, and the nested repository's too.
	sh(t, l, "echo '[core] hooksPath = /tmp' >> made/.git/config")

	p := propose(t, l)
	for _, f := range p.Files() {
		if strings.Contains(f, "config") || strings.Contains(f, "hooks/") || strings.HasPrefix(f, "sub/") || f == "shared.gitconfig" {
			t.Errorf("the merge would apply %s", f)
		}
	}
	if !strings.Contains(strings.Join(p.Files(), ","), "b.txt") {
		t.Errorf("the merge lost the ordinary change: %q", p.Files())
	}
	applyMerge(t, p)
	if got := e.read(t, "sub/.git/config"); got != subConfig {
		t.Errorf("the nested repository's config is now %q", got)
	}
	if got := e.read(t, "shared.gitconfig"); got != "[user]\n" {
		t.Errorf("the included config is now %q", got)
	}
	for _, dir := range []string{"sub", "made"} {
		full := filepath.Join(e.dir, dir)
		if _, err := os.Stat(full); err != nil {
			continue
		}
		gitOutside(full)
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("git in the workspace's %s ran what the agent planted in its layer", dir)
		}
	}
}

// gitOutside runs git in dir as myclaw's own calls and the user's shell
// do: outside the sandbox, obeying the repository's config and hooks.
func gitOutside(dir string) {
	env := append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	for _, args := range [][]string{{"status"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		cmd.Run()
	}
}
