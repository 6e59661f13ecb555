package builtin

import (
	"path/filepath"

	"myclaw/tools/walk"
)

// tracked and readSource tell the repository's own files (a quiet
// mention when untrusted) from the rest (untracked or ignored files, which
// may have come from anywhere).
//
// They never run git: git honours the repository's own configuration
// (core.fsmonitor, hooks, filters, includes…), so running it on a folder
// that arrived from elsewhere would run what that folder names. The
// repository is found by walking up to a `.git` directory or `gitdir:`
// file, and its index is decoded in process (walk.ReadIndexFile, which
// keeps it until the index changes).

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
	files, bad := walk.ReadIndexFile(filepath.Join(gitDir, "index"), prefix)
	if bad {
		return false, true
	}
	return files[rel], true
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
