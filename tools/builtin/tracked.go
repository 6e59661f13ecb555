package builtin

import (
	"path/filepath"
	"sync"

	"myclaw/tools/walk"
)

// trackedSet knows which workspace files git tracks, so a read can tell
// the repository's own files (a quiet mention when untrusted) from the
// rest (untracked or ignored files, which may have come from anywhere).
//
// It never runs git: git honours the repository's own configuration
// (core.fsmonitor, hooks, filters, includes…), so running it on a folder
// that arrived from elsewhere would run what that folder names. The
// repository is found by walking up to a `.git` directory or `gitdir:`
// file, and its index is decoded in process; it is read again once the
// index file changed.
type trackedSet struct {
	mu     sync.Mutex
	index  string    // the index file the set was read from
	prefix string    // the workspace relative to the work tree's top, slash form
	stamp  fileStamp // of that index
	files  map[string]bool
	bad    bool // the index could not be decoded
}

// tracked reports whether git tracks rel (slash path relative to the
// workspace), and whether that can be told at all (false outside a git
// work tree). A repository whose index cannot be read or decoded (an
// unknown format or extension such as a split or sparse index) counts
// as known with nothing tracked: its files get the strong frame.
func (w *Workspace) tracked(rel string) (tracked, known bool) {
	gitDir, top, found := walk.FindGitDir(w.dir)
	if !found {
		return false, false
	}
	if gitDir == "" {
		return false, true // a .git that leads nowhere readable
	}
	prefix := "."
	if r, ok := wsWithin(top, w.dir); ok {
		prefix = filepath.ToSlash(r)
	}
	indexFile := filepath.Join(gitDir, "index")
	st := stampOf(indexFile)
	t := &w.trackedFiles
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.files == nil || t.index != indexFile || t.prefix != prefix || t.stamp != st {
		t.files, t.bad = walk.ReadIndexFile(indexFile, prefix)
		t.index, t.prefix, t.stamp = indexFile, prefix, st
	}
	if t.bad {
		return false, true
	}
	return t.files[rel], true
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
