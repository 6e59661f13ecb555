package builtin

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"syscall"

	"myclaw/tools"
	"myclaw/tools/termtext"
)

// fsObserved is what is at a path when Revert looks.
type fsObserved struct {
	kind  string // "missing", "file", "folder", "link", "special"
	mode  fs.FileMode
	size  int64
	sum   string // sha256 of data, for files read in full
	data  []byte
	large bool // a file too large to read; sum is empty
}

func fsObserve(ctx context.Context, ws *Workspace, rel string) (fsObserved, error) {
	lfi, err := ws.root.Lstat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return fsObserved{kind: "missing"}, nil
	case err != nil:
		return fsObserved{}, ws.osError(rel, err)
	}
	m := lfi.Mode()
	switch {
	case m&fs.ModeSymlink != 0:
		return fsObserved{kind: "link"}, nil
	case m.IsDir():
		return fsObserved{kind: "folder"}, nil
	case !m.IsRegular():
		return fsObserved{kind: "special", mode: m}, nil
	}
	o := fsObserved{kind: "file", mode: m.Perm(), size: lfi.Size()}
	if lfi.Size() > fsMaxPriorBytes {
		o.large = true
		return o, nil
	}
	data, fi, err := fsReadRegular(ctx, ws, rel, lfi, fsMaxPriorBytes)
	if err != nil {
		return fsObserved{}, err
	}
	o.data, o.mode, o.size = data, fi.Mode().Perm(), fi.Size()
	s := sha256.Sum256(data)
	o.sum = hex.EncodeToString(s[:])
	return o, nil
}

// unforceable says why even a forced undo does not replace what is there
// ("" when it does): a folder, a link or special file (shell undo removes
// those itself first), a file too large to keep for redo.
func (o fsObserved) unforceable() string {
	switch {
	case o.kind == "folder" || o.kind == "link" || o.kind == "special":
		return "even a forced undo does not replace it (move it away, then undo again)"
	case o.kind == "file" && o.large:
		return "it is too large to keep a copy, so even a forced undo does not replace it (move it away, then undo again)"
	}
	return ""
}

func (o fsObserved) is(s tools.FileState) bool {
	if !s.Exists {
		return o.kind == "missing"
	}
	return o.kind == "file" && !o.large && o.sum == s.SHA256 && uint32(o.mode) == s.Mode
}

// differs says how the observed state differs from s, for a Conflict.
func (o fsObserved) differs(s tools.FileState) string {
	switch o.kind {
	case "missing":
		return "the file was deleted"
	case "folder":
		return "it is now a folder"
	case "link":
		return "it is now a symbolic link"
	case "special":
		return "it is now " + tools.FileKind(o.mode)
	}
	switch {
	case !s.Exists:
		return "a file exists there now"
	case o.large:
		return fmt.Sprintf("contents differ from what the call left (the file is now %s)", tools.HumanSize(o.size))
	case o.sum != s.SHA256:
		return "its contents differ from what the call left"
	}
	return fmt.Sprintf("mode is %04o now; the call left %04o", uint32(o.mode), s.Mode)
}

// sums names the contents by their digests, for a change no diff shows.
func (o fsObserved) sums(s tools.FileState) string {
	if o.kind != "file" || o.large || !s.Exists || o.sum == s.SHA256 {
		return ""
	}
	return fmt.Sprintf(" (sha256 %s… now, %s… expected)", fsShort(o.sum), fsShort(s.SHA256))
}

// fsSince is what changed in rel since the call left it (left) as a short
// unified diff, its lines cut and their controls made visible; "" when it
// cannot be told (not text, too large, or the call's version is not kept),
// and the conflict then names the digests instead.
func fsSince(blobs tools.BlobStore, rel string, left tools.FileState, cur fsObserved) string {
	if blobs == nil || cur.large || cur.kind != "file" && cur.kind != "missing" {
		return ""
	}
	var old []byte
	if left.Exists {
		data, err := blobs.Get(left.SHA256)
		if err != nil {
			return ""
		}
		old = data
	}
	oldName, newName := "a/"+rel+" (as the call left it)", "b/"+rel+" (now)"
	if !left.Exists {
		oldName = "/dev/null"
	}
	if cur.kind == "missing" {
		newName = "/dev/null"
	}
	d := tools.Diff(oldName, newName, old, cur.data)
	if d.Binary {
		return ""
	}
	lines := strings.Split(strings.TrimRight(d.Text(), "\n"), "\n")
	more := 0
	// One line over is shown: its count would take the line.
	if len(lines) > fsSinceLines+1 {
		lines, more = lines[:fsSinceLines], len(lines)-fsSinceLines
	}
	for i, l := range lines {
		// Indentation is what a diff shows: cut, not folded to one space.
		if r := []rune(termtext.Visible(l)); len(r) > fsSinceLineRune {
			l = string(r[:fsSinceLineRune-1]) + "…"
		} else {
			l = string(r)
		}
		lines[i] = l
	}
	if more > 0 {
		lines = append(lines, "… "+tools.Count(more, "more line"))
	}
	return strings.Join(lines, "\n")
}

func fsShort(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}

// fsRevert implements Reverter for fs_write and fs_edit.
func fsRevert(ctx context.Context, ws *Workspace, blobs tools.BlobStore, undo json.RawMessage, force bool) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if blobs == nil {
		return nil, errors.New("revert: no blob store to restore contents from")
	}
	c, err := fsParseChange(ws, undo)
	if err != nil {
		return nil, err
	}
	cur, err := fsObserve(ctx, ws, c.Path)
	if err != nil {
		return nil, err
	}
	var from tools.FileState
	switch {
	case cur.is(c.Before):
		// Already undone, perhaps by an undo that was interrupted: finish
		// removing the folders and report success.
		if !c.Before.Exists {
			fsRemoveDirs(ws, c.CreatedDirs)
		}
		return json.Marshal(tools.FileUndo{Path: c.Path, Before: c.After, After: c.Before})
	case cur.is(c.After):
		from = c.After
	default:
		detail := cur.differs(c.After)
		if why := cur.unforceable(); why != "" {
			// Not a Conflict: a Conflict is what --force overrides, and
			// would offer it again.
			return nil, fmt.Errorf("%s changed since the call: %s; %s", c.Path, detail, why)
		}
		if !force {
			since := fsSince(blobs, c.Path, c.After, cur)
			if since == "" {
				detail += cur.sums(c.After)
			}
			return nil, &tools.Conflict{What: c.Path, Detail: detail, Diff: since}
		}
		if cur.kind != "missing" {
			// Keep what the user has, so that the forced undo can be redone.
			sum, err := blobs.Put(cur.data)
			if err != nil {
				return nil, fmt.Errorf("keep the current content of %s: %w", c.Path, err)
			}
			from = tools.FileState{Exists: true, SHA256: sum, Mode: uint32(cur.mode)}
		}
	}
	created, err := fsRestore(ctx, ws, blobs, c, cur)
	if err != nil {
		return nil, err
	}
	return json.Marshal(tools.FileUndo{Path: c.Path, Before: from, After: c.Before, CreatedDirs: created})
}

// fsRestore puts c.Before in place of what is there now (cur, a file or
// nothing) and returns the folders it had to create.
func fsRestore(ctx context.Context, ws *Workspace, blobs tools.BlobStore, c tools.FileUndo, cur fsObserved) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !c.Before.Exists {
		if cur.kind == "file" {
			if err := ws.root.Remove(c.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, ws.osError(c.Path, err)
			}
			fsSyncDir(ws.root, path.Dir(c.Path))
		}
		fsRemoveDirs(ws, c.CreatedDirs)
		return nil, nil
	}
	data, err := blobs.Get(c.Before.SHA256)
	if err != nil {
		return nil, fmt.Errorf("restore %s: read the previous content: %w", c.Path, err)
	}
	if s := sha256.Sum256(data); hex.EncodeToString(s[:]) != c.Before.SHA256 {
		return nil, fmt.Errorf("restore %s: the blob store returned content that does not match sha256 %s", c.Path, c.Before.SHA256)
	}
	missing, e := fsMissingParents(ws, c.Path)
	if e != nil {
		return nil, e
	}
	p := &fsPlan{rel: c.Path, data: data, mode: fs.FileMode(c.Before.Mode), missing: missing}
	return fsApply(ctx, ws, p)
}

// fsParseChange decodes and checks undo data: a path inside the workspace,
// well-formed states, and created folders that are parents of the path.
func fsParseChange(ws *Workspace, undo json.RawMessage) (tools.FileUndo, error) {
	var c tools.FileUndo
	dec := json.NewDecoder(bytes.NewReader(undo))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("%w: %w", tools.ErrCorruptUndo, err)
	}
	rel, e := ws.Rel(c.Path)
	if e != nil || rel != c.Path || rel == "." || path.IsAbs(rel) {
		return c, fmt.Errorf("%w: path %q is not a clean path inside the workspace", tools.ErrCorruptUndo, c.Path)
	}
	for _, s := range []tools.FileState{c.Before, c.After} {
		if s.Exists && (!tools.IsSHA256Hex(s.SHA256) || s.Mode > 0o777) {
			return c, fmt.Errorf("%w: bad state of %s (sha256 %q, mode %o)", tools.ErrCorruptUndo, c.Path, s.SHA256, s.Mode)
		}
		if !s.Exists && (s.SHA256 != "" || s.Mode != 0) {
			return c, fmt.Errorf("%w: a missing file of %s has content", tools.ErrCorruptUndo, c.Path)
		}
	}
	for _, d := range c.CreatedDirs {
		if !strings.HasPrefix(c.Path, d+"/") || path.Clean(d) != d || strings.HasPrefix(d, "../") || d == ".." || path.IsAbs(d) {
			return c, fmt.Errorf("%w: created folder %q is not a parent of %s", tools.ErrCorruptUndo, d, c.Path)
		}
	}
	return c, nil
}
