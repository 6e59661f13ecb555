package tools

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
)

// hooksWorkspaces are the workspaces TrustedFile's relative paths may be
// in: every one this process opened (an editor may open several), each
// looked at, so that no session misses another's hooks folder.
var hooksWorkspaces atomic.Pointer[[]string]

// SetWorkspace adds dir to the workspaces TrustedFile looks in for the
// hooks folders their repositories' core.hooksPath names; "" forgets them
// all.
func SetWorkspace(dir string) {
	if dir == "" {
		hooksWorkspaces.Store(nil)
		return
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return
	}
	for {
		old := hooksWorkspaces.Load()
		var list []string
		if old != nil {
			if slices.Contains(*old, abs) {
				return
			}
			list = slices.Clone(*old)
		}
		list = append(list, abs)
		if hooksWorkspaces.CompareAndSwap(old, &list) {
			return
		}
	}
}

// inHooksFolder says, for a clean workspace-relative path, that it lies in
// a folder core.hooksPath names, or "". The repositories looked at are
// the ones holding the path (each folder from its own up to the file
// system's root that has a .git): git run in any of them runs those
// hooks. A nested repository naming a folder outside its own tree is not
// seen here (the sandbox's scan of the whole workspace sees it).
func inHooksFolder(clean string) string {
	list := hooksWorkspaces.Load()
	if list == nil || clean == "" {
		return ""
	}
	for _, ws := range *list {
		if what := inHooksFolderOf(ws, clean); what != "" {
			return what
		}
	}
	return ""
}

// inHooksFolderOf is inHooksFolder for one workspace.
func inHooksFolderOf(ws, clean string) string {
	abs := clean
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(ws, filepath.FromSlash(clean))
	}
	targets := []string{filepath.Clean(abs), ResolveExisting(abs)}
	for dir := filepath.Dir(targets[0]); ; dir = filepath.Dir(dir) {
		if gd := dotGitDir(filepath.Join(dir, ".git")); gd != "" {
			for _, h := range HooksDirs(gd, dir) {
				for _, hh := range []string{h, ResolveExisting(h)} {
					for _, t := range targets {
						// A folder holding the workspace (hooksPath = "."):
						// only its files named as hooks.
						holds := within(hh, ws) || within(h, ws)
						if within(hh, t) && (!holds || filepath.Dir(t) == hh && slices.Contains(HookNames, filepath.Base(t))) {
							shown := h
							if r, err := filepath.Rel(ws, h); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
								shown = filepath.ToSlash(r)
							}
							return clean + ", inside " + shown + ", the hooks folder git's core.hooksPath names, whose programs git runs"
						}
					}
				}
			}
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// within reports whether p is dir or inside it.
func within(dir, p string) bool {
	r, err := filepath.Rel(dir, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, "../") && !filepath.IsAbs(r)
}

// dotGitDir is the git directory a .git entry leads to (itself, or its
// gitdir: line's target), or "".
func dotGitDir(dotGit string) string {
	fi, err := os.Stat(dotGit)
	if err != nil {
		return ""
	}
	if fi.IsDir() {
		return dotGit
	}
	b, err := os.ReadFile(dotGit)
	if err != nil || len(b) > 4096 {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	target, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir: ")
	if !ok || target == "" {
		return ""
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(dotGit), target)
	}
	return filepath.Clean(target)
}

// ResolveExisting resolves the symbolic links of the longest part of p
// that exists, keeping the rest as it is.
func ResolveExisting(p string) string {
	rest := ""
	for q := filepath.Clean(p); ; {
		if r, err := filepath.EvalSymlinks(q); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(q)
		if parent == q {
			return p
		}
		rest = filepath.Join(filepath.Base(q), rest)
		q = parent
	}
}
