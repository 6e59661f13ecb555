package builtin

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"myclaw/tools/proc"
)

// trackedSet knows which workspace files git tracks, so a read can tell
// the repository's own files (a quiet mention when untrusted) from the
// rest (untracked or ignored files, which may have come from anywhere).
// It asks `git ls-files` and asks again once the index changed.
type trackedSet struct {
	mu    sync.Mutex
	files map[string]bool
	index string    // the git index file; "" outside a work tree
	stamp fileStamp // of the index the set was read from
	known bool      // the workspace is in a git work tree
	read  time.Time
	// dotGit says whether the workspace had a .git when last asked: one
	// appearing (git init) is worth asking again at once.
	dotGit bool
}

// untrackedRecheck bounds how often a workspace found outside git is
// asked again (a `git init` during the session).
const untrackedRecheck = 30 * time.Second

// tracked reports whether git tracks rel (slash path relative to the
// workspace), and whether that can be told at all (false outside a git
// work tree or without git). git is asked again only when the index
// changed.
func (w *Workspace) tracked(rel string) (tracked, known bool) {
	t := &w.trackedFiles
	t.mu.Lock()
	defer t.mu.Unlock()
	dotGit := stampOf(filepath.Join(w.dir, ".git")).exists
	if !t.known && (t.read.IsZero() || dotGit != t.dotGit || time.Since(t.read) > untrackedRecheck) {
		t.index, t.read, t.dotGit = gitIndex(w.dir), time.Now(), dotGit
		t.known = t.index != ""
		t.stamp = fileStamp{}
	}
	if !t.known {
		return false, false
	}
	if st := stampOf(t.index); st != t.stamp || t.files == nil {
		files, ok := lsFiles(w.dir)
		if !ok {
			t.known, t.files = false, nil
			return false, false
		}
		t.files, t.stamp = files, st
	}
	return t.files[rel], true
}

// gitIndex is the index file of the work tree dir is in, or "".
func gitIndex(dir string) string {
	out, err := gitOutput(dir, "rev-parse", "--git-path", "index")
	if err != nil {
		return ""
	}
	p := strings.TrimSpace(string(out))
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return p
}

// gitOutput runs git in dir with a scrubbed environment and a timeout.
func gitOutput(dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(proc.ScrubEnv(os.Environ()), "GIT_OPTIONAL_LOCKS=0")
	return cmd.Output()
}

// lsFiles lists the files git tracks under dir, relative to it.
func lsFiles(dir string) (map[string]bool, bool) {
	out, err := gitOutput(dir, "-c", "core.quotepath=off", "ls-files", "-z")
	if err != nil {
		return nil, false
	}
	files := map[string]bool{}
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) > 0 {
			files[strings.TrimPrefix(string(p), "./")] = true
		}
	}
	return files, true
}

// readSource names where a read's content came from: the workspace's own
// file, or one git does not track (untracked or ignored), which deserves
// the strong frame.
func (w *Workspace) readSource(rel string) string {
	if tracked, known := w.tracked(rel); known && !tracked {
		return "untracked file:" + rel
	}
	return "file:" + rel
}
