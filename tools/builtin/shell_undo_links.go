package builtin

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"myclaw/tools"
)

// ShellUndoLink is a symbolic link a journaled change made, replaced or
// removed: its target before and after ("" where there was no link).
type ShellUndoLink struct {
	Path   string `json:"path"`
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// checkLinks refuses links that are not clean paths inside ws, and says
// which link is no longer what the change left (nor what it found).
func checkLinks(ws *Workspace, links []ShellUndoLink, force bool) error {
	for _, l := range links {
		if rel, e := ws.Rel(l.Path); e != nil || rel != l.Path || rel == "." || l.Before == "" && l.After == "" {
			return fmt.Errorf("%w: link %q is not a clean path inside the workspace", tools.ErrCorruptUndo, l.Path)
		}
	}
	if force {
		return nil
	}
	for _, l := range links {
		if l.After == "" {
			continue
		}
		if target, err := ws.root.Readlink(l.Path); err != nil || target != l.After && target != l.Before {
			return &tools.Conflict{What: l.Path, Detail: "it is no longer the link to " + l.After + " the change made; nothing was restored"}
		}
	}
	return nil
}

// removeLinks removes the links the change made, before the files it
// replaced come back: the link itself, by name, never what it leads to.
// It returns the targets of those it removed, for redo to make them again
// (under force, one changed since is removed too).
func removeLinks(ws *Workspace, links []ShellUndoLink) (map[string]string, error) {
	removed := map[string]string{}
	for _, l := range links {
		if l.After == "" {
			continue
		}
		if fi, err := ws.root.Lstat(l.Path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, err := ws.root.Readlink(l.Path)
			if err != nil {
				return nil, ws.osError(l.Path, err)
			}
			if err := ws.root.Remove(l.Path); err != nil {
				return nil, ws.osError(l.Path, err)
			}
			removed[l.Path] = target
		}
	}
	return removed, nil
}

// restoreLinks makes again the links the change removed or replaced.
func restoreLinks(ws *Workspace, links []ShellUndoLink) error {
	for _, l := range links {
		if l.Before == "" {
			continue
		}
		dir, base := filepath.Split(l.Path)
		d := ws.root
		if dir != "" {
			sub, err := ws.root.OpenRoot(filepath.Clean(dir))
			if err != nil {
				return ws.osError(l.Path, err)
			}
			defer sub.Close()
			d = sub
		}
		if err := replaceWithLink(d, base, l.Before); err != nil && !errors.Is(err, fs.ErrExist) {
			return ws.osError(l.Path, err)
		}
	}
	return nil
}

// swapLinks is the redo of links: before and after change roles, and a
// link the undo removed is made again as it found it (removed, by path).
func swapLinks(links []ShellUndoLink, removed map[string]string) []ShellUndoLink {
	out := make([]ShellUndoLink, len(links))
	for i, l := range links {
		out[i] = ShellUndoLink{Path: l.Path, Before: l.After, After: l.Before}
		if t, ok := removed[l.Path]; ok && l.After != "" && t != l.Before {
			out[i].Before = t
		}
	}
	return out
}

// linksMade are the paths where the change left a link: a file it
// removed there is checked as that link.
func linksMade(links []ShellUndoLink) map[string]bool {
	m := map[string]bool{}
	for _, l := range links {
		if l.After != "" {
			m[l.Path] = true
		}
	}
	return m
}
