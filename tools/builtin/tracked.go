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
	stamp fileStamp // of the index the set was read from
	known bool      // the workspace is in a git work tree
	read  time.Time
}

// trackedRefresh bounds how often the set is read again when the index
// cannot be found to be stat'ed (a worktree, say).
const trackedRefresh = 2 * time.Second

// tracked reports whether git tracks rel (slash path relative to the
// workspace), and whether that can be told at all (false outside a git
// work tree or without git).
func (w *Workspace) tracked(rel string) (tracked, known bool) {
	t := &w.trackedFiles
	t.mu.Lock()
	defer t.mu.Unlock()
	st := stampOf(filepath.Join(w.dir, ".git", "index"))
	stale := t.read.IsZero() || st != t.stamp || (!st.exists && time.Since(t.read) > trackedRefresh)
	if stale {
		t.files, t.known = lsFiles(w.dir)
		t.stamp, t.read = st, time.Now()
	}
	return t.files[rel], t.known
}

// lsFiles lists the files git tracks under dir, relative to it.
func lsFiles(dir string) (map[string]bool, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-c", "core.quotepath=off", "ls-files", "-z")
	cmd.Dir = dir
	cmd.Env = append(proc.ScrubEnv(os.Environ()), "GIT_OPTIONAL_LOCKS=0")
	out, err := cmd.Output()
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
