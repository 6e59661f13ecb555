package builtin

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"slices"

	"myclaw/tools"
)

// View returns a workspace at w's path and with w's protections whose
// files are reached through root instead: an edit layer's copy-on-write
// view of w. beforeWrite, when not nil, is called with a file's path just
// before a file tool writes it; its error refuses the write. Closing the
// view closes root, and nothing of w.
func (w *Workspace) View(root *os.Root, beforeWrite func(rel string) error) *Workspace {
	return &Workspace{dir: w.dir, alias: w.alias, root: root, protected: slices.Clone(w.protected), beforeWrite: beforeWrite}
}

// CloseView closes a view's root (Close would forget w's temp records,
// which the workspace shares).
func (w *Workspace) CloseView() error { return w.root.Close() }

// IsProtected reports whether the clean relative slash path rel is
// myclaw's own state or config (Protect), or lies under it.
func (w *Workspace) IsProtected(rel string) bool { return w.isProtected(rel) }

// IsWhiteout reports an overlayfs whiteout in an upper layer: a deleted
// file.
func IsWhiteout(info fs.FileInfo) bool { return isWhiteout(info) }

// IsOpaque reports an overlayfs opaque directory in an upper layer: it
// replaced the one below it.
func IsOpaque(dir string) bool { return isOpaque(dir) }

// AtomicFill replaces rel in root with what fill writes, given mode: a
// temporary file beside it, synced, renamed over it.
func AtomicFill(root *os.Root, rel string, mode fs.FileMode, fill func(io.Writer) error) error {
	return fsAtomicFill(root, rel, mode, fill)
}

// ReplaceWithLink makes base in d the link to target in one rename.
func ReplaceWithLink(d *os.Root, base, target string) error { return replaceWithLink(d, base, target) }

// Revert takes back a change journaled in shell_run's undo format (a
// command's, an applied preview's or an applied edit layer's), every file
// checked first unless force.
func (u *ShellUndo) Revert(ctx context.Context, undo json.RawMessage, force bool) (json.RawMessage, error) {
	return u.revert(ctx, undo, force)
}

// ShellUndoDir is a folder a journaled change created or removed.
type ShellUndoDir = shellDir

// EncodeShellUndo encodes file, folder and link changes in shell_run's
// undo format, for ShellUndo.Revert: notCovered names what it cannot
// restore.
func EncodeShellUndo(changes []tools.FileUndo, created, removed []ShellUndoDir, links []ShellUndoLink, notCovered []string) (json.RawMessage, error) {
	return json.Marshal(shellUndoData{Changes: changes, CreatedDirs: created, RemovedDirs: removed, Links: links, NotCovered: notCovered})
}

// RemoveScratch removes a layer's scratch dir, whatever modes were left
// in it.
func RemoveScratch(dir string) { removeScratch(dir) }
