package builtin

import (
	"errors"
	"fmt"
	"io/fs"
	"path"

	"myclaw/tools"
	"myclaw/tools/snapshot"
)

// ShellUndoNode is a special file (named pipe, socket, device) a command
// left or removed at Path: as it was before and after, nil where there was
// none.
type ShellUndoNode struct {
	Path   string         `json:"path"`
	Before *ShellNodeInfo `json:"before,omitempty"`
	After  *ShellNodeInfo `json:"after,omitempty"`
}

// ShellNodeInfo identifies a special file: undo removes one only while it
// is still the very one the command left (same type, device and inode).
type ShellNodeInfo struct {
	Mode uint32 `json:"mode"` // fs.FileMode: type and permission bits
	Dev  uint64 `json:"dev"`
	Ino  uint64 `json:"ino"`
}

func (n *ShellNodeInfo) mode() fs.FileMode { return fs.FileMode(n.Mode) }

// isSpecial reports a named pipe, socket or device: neither a regular
// file, a folder nor a link.
func isSpecial(m fs.FileMode) bool {
	return !m.IsRegular() && !m.IsDir() && m&fs.ModeSymlink == 0
}

// nodeOf describes what fi is, if it is a special file.
func nodeOf(fi fs.FileInfo) *ShellNodeInfo {
	if !isSpecial(fi.Mode()) {
		return nil
	}
	dev, ino := fileID(fi)
	return &ShellNodeInfo{Mode: uint32(fi.Mode().Type() | fi.Mode().Perm()), Dev: dev, Ino: ino}
}

// checkNodes refuses nodes that are not clean paths inside ws or not
// special files, and (unless force) a node that is no longer the one the
// change left (nor already gone, as an interrupted undo leaves it).
func checkNodes(ws *Workspace, nodes []ShellUndoNode, force bool) error {
	for _, n := range nodes {
		rel, e := ws.Rel(n.Path)
		bad := e != nil || rel != n.Path || rel == "." || path.IsAbs(rel) || n.Before == nil && n.After == nil
		for _, s := range []*ShellNodeInfo{n.Before, n.After} {
			if s != nil && (!isSpecial(s.mode()) || s.mode()&^(fs.ModeType|fs.ModePerm) != 0) {
				bad = true
			}
		}
		if bad {
			return fmt.Errorf("%w: special file %q is not a clean path inside the workspace", tools.ErrCorruptUndo, n.Path)
		}
	}
	if force {
		return nil
	}
	for _, n := range nodes {
		if n.After == nil {
			continue
		}
		fi, err := ws.root.Lstat(n.Path)
		switch {
		case err == nil && sameNode(fi, n.After):
		case err == nil && n.Before != nil && fi.Mode().Type() == n.Before.mode().Type():
			// Already made again by an interrupted undo.
		case errors.Is(err, fs.ErrNotExist) && n.Before == nil:
			// Already removed by an interrupted undo.
		default:
			now := "it is gone"
			if err == nil {
				now = "it is now " + tools.FileKind(fi.Mode())
				if fi.Mode().Type() == n.After.mode().Type() {
					now = "it was made again since"
				}
			}
			return &tools.Conflict{What: n.Path, Detail: fmt.Sprintf("it is no longer %s the call left (%s); nothing was restored", tools.FileKind(n.After.mode()), now)}
		}
	}
	return nil
}

// sameNode reports whether fi is the special file s.
func sameNode(fi fs.FileInfo, s *ShellNodeInfo) bool {
	n := nodeOf(fi)
	return n != nil && n.mode().Type() == s.mode().Type() && n.Dev == s.Dev && n.Ino == s.Ino
}

// removeNodes removes the special files the change left, by name in their
// folder (never opened, never followed): unless force, only the very ones
// it left. It returns those it removed, by path, for redo.
func removeNodes(ws *Workspace, nodes []ShellUndoNode, force bool) (map[string]*ShellNodeInfo, error) {
	removed := map[string]*ShellNodeInfo{}
	for _, n := range nodes {
		if n.After == nil {
			continue
		}
		fi, err := ws.root.Lstat(n.Path)
		if err != nil || !isSpecial(fi.Mode()) || !force && !sameNode(fi, n.After) {
			continue // checked before; whatever is there now stays
		}
		if err := ws.root.Remove(n.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, ws.osError(n.Path, err)
		}
		removed[n.Path] = nodeOf(fi)
	}
	return removed, nil
}

// restoreNodes makes again the named pipes the change removed; a socket
// or device cannot be (the record said so).
func restoreNodes(ws *Workspace, nodes []ShellUndoNode) ([]ShellUndoNode, error) {
	var made []ShellUndoNode
	for _, n := range nodes {
		if n.Before == nil || n.Before.mode()&fs.ModeNamedPipe == 0 || !canMakeFifo {
			continue
		}
		if fi, err := ws.root.Lstat(n.Path); err == nil && fi.Mode()&fs.ModeNamedPipe != 0 {
			made = append(made, ShellUndoNode{Path: n.Path, After: nodeOf(fi)})
			continue
		}
		fi, err := makeFifo(ws.root, n.Path, n.Before.mode().Perm())
		if err != nil {
			return nil, ws.osError(n.Path, err)
		}
		made = append(made, ShellUndoNode{Path: n.Path, After: nodeOf(fi)})
	}
	return made, nil
}

// nodesRedo is the redo of nodes: what the undo removed (removed, or
// what the change left where an interrupted undo had removed it already)
// is made again, and the pipes it made (made, with their new inodes) are
// what the redo removes.
func nodesRedo(nodes []ShellUndoNode, removed map[string]*ShellNodeInfo, made []ShellUndoNode) []ShellUndoNode {
	again := map[string]*ShellNodeInfo{}
	for _, m := range made {
		again[m.Path] = m.After
	}
	out := make([]ShellUndoNode, 0, len(nodes))
	for _, n := range nodes {
		r := ShellUndoNode{Path: n.Path, Before: n.After, After: again[n.Path]}
		if g, ok := removed[n.Path]; ok {
			r.Before = g
		}
		if r.Before != nil && !nodeRecreatable(r.Before) {
			r.Before = nil
		}
		if r.Before != nil || r.After != nil {
			out = append(out, r)
		}
	}
	return out
}

// nodeRecreatable reports whether undo can make s again where a command
// removed it.
func nodeRecreatable(s *ShellNodeInfo) bool {
	return s.mode()&fs.ModeNamedPipe != 0 && canMakeFifo
}

// recordOther turns the links and special files a command changed into
// undo data, and adds to notCovered what undo cannot make again.
func recordOther(others []snapshot.OtherChange, notCovered []string) ([]ShellUndoLink, []ShellUndoNode, []string) {
	var links []ShellUndoLink
	var nodes []ShellUndoNode
	for _, o := range others {
		var l ShellUndoLink
		var n ShellUndoNode
		if o.Before != nil {
			if o.Before.Mode&fs.ModeSymlink != 0 {
				l.Before = o.Before.Target
			} else {
				n.Before = &ShellNodeInfo{Mode: uint32(o.Before.Mode.Type() | o.Before.Mode.Perm()), Dev: o.Before.Dev, Ino: o.Before.Ino}
			}
		}
		if o.After != nil {
			if o.After.Mode&fs.ModeSymlink != 0 {
				l.After = o.After.Target
			} else {
				n.After = &ShellNodeInfo{Mode: uint32(o.After.Mode.Type() | o.After.Mode.Perm()), Dev: o.After.Dev, Ino: o.After.Ino}
			}
		}
		if n.Before != nil && !nodeRecreatable(n.Before) {
			notCovered = append(notCovered, o.Path+" ("+tools.FileKind(n.Before.mode())+" it removed cannot be made again)")
			n.Before = nil
		}
		if l.Before != "" || l.After != "" {
			l.Path = o.Path
			links = append(links, l)
		}
		if n.Before != nil || n.After != nil {
			n.Path = o.Path
			nodes = append(nodes, n)
		}
	}
	return links, nodes, notCovered
}

func shellOtherCount(n int) string {
	if n == 0 {
		return ""
	}
	return " and " + shellOthers(n)
}

func shellOthers(n int) string {
	if n == 1 {
		return "1 link or special file"
	}
	return fmt.Sprintf("%d links or special files", n)
}

// removeForeign removes the link or special file at rel, which the change
// being undone did not leave there, for a forced undo to put the call's
// file back: the entry itself, by name, never what a link leads to. It
// returns what redo makes again.
func removeForeign(ws *Workspace, rel string) ([]ShellUndoLink, []ShellUndoNode, error) {
	fi, err := ws.root.Lstat(rel)
	if err != nil {
		return nil, nil, nil // gone, or a parent is: the revert says so
	}
	var links []ShellUndoLink
	var nodes []ShellUndoNode
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := ws.root.Readlink(rel)
		if err != nil {
			return nil, nil, ws.osError(rel, err)
		}
		links = append(links, ShellUndoLink{Path: rel, Before: target})
	case isSpecial(fi.Mode()):
		if n := nodeOf(fi); nodeRecreatable(n) {
			nodes = append(nodes, ShellUndoNode{Path: rel, Before: n})
		}
	default:
		return nil, nil, nil
	}
	if err := ws.root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, ws.osError(rel, err)
	}
	return links, nodes, nil
}

// checkNoFolders refuses, before anything else is checked or changed, an
// undo that would have to put a file where a folder is now: even a forced
// undo does not replace one, so this is not a Conflict (which offers
// --force), whatever the call left there (a file, a link, a pipe).
func checkNoFolders(ws *Workspace, changes []tools.FileUndo) error {
	var hard []string
	for _, c := range changes {
		if fi, err := ws.root.Lstat(c.Path); err == nil && fi.IsDir() {
			hard = append(hard, c.Path)
		}
	}
	switch len(hard) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%s changed since the call: it is now a folder; even a forced undo does not replace it (move it away, then undo again); nothing was restored", hard[0])
	}
	return fmt.Errorf("%s changed since the call: %s are folders now; even a forced undo does not replace them (move them away, then undo again); nothing was restored", fsCount(len(hard), "file"), listSome(hard))
}
