package builtin

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/format/index"
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

// maxIndexBytes bounds the index read into memory; a larger one is
// treated as undecodable.
const maxIndexBytes = 512 << 20

// tracked reports whether git tracks rel (slash path relative to the
// workspace), and whether that can be told at all (false outside a git
// work tree). A repository whose index cannot be read or decoded (an
// unknown format or extension such as a split or sparse index) counts
// as known with nothing tracked: its files get the strong frame.
func (w *Workspace) tracked(rel string) (tracked, known bool) {
	gitDir, top, found := findGitDir(w.dir)
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
		t.files, t.bad = readIndex(indexFile, prefix, st.exists)
		t.index, t.prefix, t.stamp = indexFile, prefix, st
	}
	if t.bad {
		return false, true
	}
	return t.files[rel], true
}

// findGitDir walks up from dir to the first `.git`, as git's discovery
// does, and returns the git directory and the work tree's top. A `.git`
// file is followed as a plain `gitdir:` pointer (worktrees, submodules);
// nothing in the repository's configuration is consulted. found with an
// empty gitDir means a `.git` is there but does not lead to a readable
// git directory.
func findGitDir(dir string) (gitDir, top string, found bool) {
	for p := dir; ; {
		dotGit := filepath.Join(p, ".git")
		if fi, err := os.Stat(dotGit); err == nil {
			switch {
			case fi.IsDir():
				if isGitDir(dotGit) {
					return dotGit, p, true
				}
			case fi.Mode().IsRegular():
				return gitFileTarget(dotGit), p, true
			}
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", "", false
		}
		p = parent
	}
}

// isGitDir reports whether d looks like a git directory (git requires
// HEAD, objects and refs, or a commondir standing in for the last two).
func isGitDir(d string) bool {
	if _, err := os.Stat(filepath.Join(d, "HEAD")); err != nil {
		return false
	}
	if _, err := os.Stat(filepath.Join(d, "commondir")); err == nil {
		return true
	}
	for _, sub := range []string{"objects", "refs"} {
		if fi, err := os.Stat(filepath.Join(d, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// gitFileTarget reads a `.git` file's `gitdir: PATH` line (PATH relative
// to the file's folder) and returns the directory, or "" when the file is
// not such a pointer or the directory is missing.
func gitFileTarget(file string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	target, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "gitdir: ")
	if !ok || target == "" {
		return ""
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(file), target)
	}
	if fi, err := os.Stat(target); err != nil || !fi.IsDir() {
		return ""
	}
	return target
}

// readIndex decodes the index file and returns the tracked paths under
// prefix, relative to it. A missing index (a repository with nothing
// added yet) tracks nothing; one that cannot be read or decoded is bad.
func readIndex(file, prefix string, exists bool) (files map[string]bool, bad bool) {
	files = map[string]bool{}
	if !exists {
		return files, false
	}
	f, err := os.Open(file)
	if err != nil {
		return files, true
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxIndexBytes+1))
	if err != nil || len(data) > maxIndexBytes {
		return files, true
	}
	var idx index.Index
	if err := index.NewDecoder(bytes.NewReader(data)).Decode(&idx); err != nil {
		return files, true
	}
	for _, e := range idx.Entries {
		name := e.Name
		if prefix != "." {
			rest, ok := strings.CutPrefix(name, prefix+"/")
			if !ok {
				continue
			}
			name = rest
		}
		files[name] = true
	}
	return files, false
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
