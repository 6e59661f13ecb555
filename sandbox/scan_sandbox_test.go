package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gitRunsHooks skips the test unless git, run here as myclaw or the user
// would run it, does run a repository's hook: otherwise "the planted hook
// did not run" would prove nothing.
func gitRunsHooks(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	repo := filepath.Join(dir, "r")
	if err := exec.Command("git", "init", "-q", repo).Run(); err != nil {
		t.Skipf("git init failed here: %v", err)
	}
	os.WriteFile(filepath.Join(repo, ".git", "hooks", "post-commit"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
	unconfinedGit(t, repo)
	if _, err := os.Stat(marker); err != nil {
		t.Skip("git does not run a repository's hooks here, so a planted one would prove nothing")
	}
}

// unconfinedGit runs git in dir as myclaw's own calls and the user's
// shell do: outside the sandbox, obeying the repository's config.
func unconfinedGit(t *testing.T, dir string) {
	t.Helper()
	env := append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	for _, args := range [][]string{{"status"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		cmd.Run()
	}
}

// runScanned runs line confined with the sandbox's scan cache trusting
// every stamp (as it does for folders older than racySlack), letting the
// file system's clock pass each scan before anything changes, as the
// slack guarantees in real use.
func runScanned(t *testing.T, s *Sandbox, ws, line string) (string, string, error) {
	t.Helper()
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = ws
	finish, err := s.Confine(cmd, false)
	if err != nil {
		t.Fatal(err)
	}
	pastTheScan(t, time.Now())
	out, err := cmd.CombinedOutput()
	_, note := finish(string(out))
	pastTheScan(t, time.Now())
	return string(out), note, err
}

// TestNestedRepositoriesStayProtectedWithTheCache: with the scan's cache
// warm, a nested repository that was there before, and ones an earlier
// confined command made (in a folder the cache already held, and deep
// below new ones), cannot be changed by a later confined command, and git
// run outside the sandbox runs nothing that command planted. Protection
// is by read-only mounts and Landlock, which bind root as well, so the
// test means the same when run as root.
func TestNestedRepositoriesStayProtectedWithTheCache(t *testing.T) {
	gitRunsHooks(t)
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	marker := filepath.Join(root, "ran")
	evil := filepath.Join(root, "evil.sh")
	os.WriteFile(evil, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
	files := map[string]string{}
	for i := 0; i < 40; i++ {
		files[fmt.Sprintf("d%02d/e/f.txt", i)] = "x\n"
	}
	writeFiles(t, ws, files)
	if out, err := exec.Command("git", "init", "-q", filepath.Join(ws, "sub")).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	s := active(t, ws)
	s.tree.now = func() time.Time { return time.Now().Add(time.Hour) }
	pastTheScan(t, time.Now())
	if out, _, err := runScanned(t, s, ws, "true"); err != nil {
		t.Fatalf("a confined true failed: %v: %s", err, out)
	}

	// An earlier command makes repositories and plants what git would run.
	plant := func(repo string) string {
		return "git init -q " + repo + " && git -C " + repo + " config core.fsmonitor " + evil +
			" && cp " + evil + " " + repo + "/.git/hooks/post-commit && cp " + evil + " " + repo + "/.git/hooks/pre-commit"
	}
	line := plant("d07/e/new") + " && " + plant("d11/a/b/c")
	out, note, err := runScanned(t, s, ws, line)
	if err != nil {
		t.Fatalf("the set-up failed confined: %v: %s", err, out)
	}
	if !strings.Contains(note, "made it inert") {
		t.Errorf("note = %q; want the new repositories made inert", note)
	}

	s.tree.reads = 0
	for _, repo := range []string{"sub", "d07/e/new", "d11/a/b/c"} {
		cfg := filepath.Join(ws, repo, ".git", "config")
		before, _ := os.ReadFile(cfg)
		for _, attack := range []string{
			"echo x >> " + repo + "/.git/config",
			"printf '[core]\\n\\tfsmonitor = " + evil + "\\n' >> " + repo + "/.git/config",
			"cp " + evil + " " + repo + "/.git/hooks/post-commit",
		} {
			out, note, err := runScanned(t, s, ws, attack)
			if err == nil || !strings.Contains(note, "permission_denied") {
				t.Errorf("%q: err %v, note %q, output %q; want it blocked", attack, err, note, out)
			}
		}
		if after, _ := os.ReadFile(cfg); string(after) != string(before) {
			t.Errorf("%s changed to %q", cfg, after)
		}
		unconfinedGit(t, filepath.Join(ws, repo))
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("git in %s ran what a confined command planted", repo)
		}
	}
	// Nine scans of a tree of about 90 folders: the cache did the work,
	// so what passed above passed through it.
	if s.tree.reads >= 90 {
		t.Errorf("the scans read %d folders; the cache was not used", s.tree.reads)
	}
}
