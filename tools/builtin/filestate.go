package builtin

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"myclaw/tools"
	"myclaw/tools/termtext"
	"os"
	"path"
	"strings"
	"syscall"
	"time"
)

// Limits shared by the file tools.
const (
	fsToolTimeout = 30 * time.Second
	// fsMaxWriteBytes caps what fs_write and fs_edit may leave in a file.
	fsMaxWriteBytes = 10 << 20
	// fsMaxPriorBytes caps a file that a write replaces: its bytes are kept
	// for undo, so they must fit in memory and in the blob store.
	fsMaxPriorBytes = 64 << 20
	// fsSniffBytes is how much of a file decides whether it is text.
	fsSniffBytes  = tools.SniffBytes
	fsNewFileMode = 0o644
	fsNewDirMode  = 0o755
)

// fsPlan is a change of one file's content, worked out before it is made.
type fsPlan struct {
	rel     string
	exists  bool
	old     []byte
	oldMode fs.FileMode
	data    []byte
	mode    fs.FileMode
	missing []string // folders to create, parents first
	diff    tools.DiffResult
}

func (p *fsPlan) unchanged() bool {
	return p.exists && p.oldMode == p.mode && bytes.Equal(p.old, p.data)
}

// fsPlanChange inspects rel and plans to replace its content with data.
func fsPlanChange(ctx context.Context, ws *Workspace, rel string, data []byte) (*fsPlan, error) {
	old, info, missing, err := fsInspectTarget(ctx, ws, rel, fsMaxPriorBytes)
	if err != nil {
		return nil, err
	}
	return fsNewPlan(rel, old, info, missing, data), nil
}

// fsNewPlan plans to replace old (read from rel, described by info; nil
// when there is no file yet) with data, creating the missing folders.
func fsNewPlan(rel string, old []byte, info fs.FileInfo, missing []string, data []byte) *fsPlan {
	p := &fsPlan{rel: rel, data: data, mode: fsNewFileMode, missing: missing}
	oldName := "/dev/null"
	if info != nil {
		p.exists, p.old, p.oldMode, p.mode = true, old, info.Mode().Perm(), info.Mode().Perm()
		oldName = "a/" + rel
	}
	p.diff = tools.Diff(oldName, "b/"+rel, p.old, p.data)
	return p
}

// fsInspectTarget checks that rel can be written as a regular file: its
// folders are folders (or will be created), and it is absent or a regular
// file, which is then read. info is nil when the file does not exist.
func fsInspectTarget(ctx context.Context, ws *Workspace, rel string, maxPrior int64) (old []byte, info fs.FileInfo, missing []string, err error) {
	if rel == "." {
		return nil, nil, nil, tools.Errorf(tools.KindInvalidArgs, "Name a file inside the workspace, for example \"notes/todo.md\".", "the path names the workspace folder itself, not a file")
	}
	missing, e := fsMissingParents(ws, rel)
	if e != nil {
		return nil, nil, nil, e
	}
	if len(missing) > 0 {
		return nil, nil, missing, nil
	}
	lfi, err := ws.root.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, ws.osError(rel, err)
	}
	if e := fsCheckRegular(ws, rel, lfi); e != nil {
		return nil, nil, nil, e
	}
	old, info, err = fsReadRegular(ctx, ws, rel, lfi, maxPrior)
	return old, info, nil, err
}

// fsMissingParents lists the folders of rel that do not exist yet, parents
// first, and refuses when one of them is a file or leads outside.
func fsMissingParents(ws *Workspace, rel string) ([]string, *tools.Error) {
	dir := path.Dir(rel)
	if dir == "." {
		return nil, nil
	}
	parts := strings.Split(dir, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		fi, err := ws.root.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			if _, lerr := ws.root.Lstat(p); lerr == nil {
				return nil, tools.Errorf(tools.KindInvalidArgs, "Choose another path, or ask the user to remove the broken link.", "%s is a broken symbolic link, so %s cannot be created", p, rel).With("path", rel)
			}
			var missing []string
			for j := i; j < len(parts); j++ {
				missing = append(missing, strings.Join(parts[:j+1], "/"))
			}
			return missing, nil
		}
		if err != nil {
			return nil, ws.osError(p, err)
		}
		if !fi.IsDir() {
			return nil, tools.Errorf(tools.KindInvalidArgs, "Choose another path: a file already has that folder's name.", "%s is a file, not a folder, so %s cannot be created", p, rel).With("path", rel)
		}
	}
	return nil, nil
}

// fsCheckRegular refuses anything at rel but a regular file, judging by
// its Lstat info: writes replace the path itself, so they never go through
// a link, onto a folder or into a device.
func fsCheckRegular(ws *Workspace, rel string, lfi fs.FileInfo) *tools.Error {
	mode := lfi.Mode()
	switch {
	case mode.IsRegular():
		return nil
	case mode&fs.ModeSymlink != 0:
		if _, err := ws.root.Stat(rel); wsIsEscape(err) {
			return tools.Errorf(tools.KindPermissionDenied, ws.insideHint(), "%s is a symbolic link that leads outside the workspace (or is absolute)", rel).With("path", rel)
		}
		target, _ := ws.root.Readlink(rel)
		if target != "" && !path.IsAbs(target) {
			target = path.Join(path.Dir(rel), target)
		}
		return tools.Errorf(tools.KindInvalidArgs, fmt.Sprintf("Change the file the link points to (%s) instead.", target), "%s is a symbolic link; the file tools do not write through links", rel).With("path", rel).With("link_target", target)
	case mode.IsDir():
		return tools.Errorf(tools.KindInvalidArgs, "Name a file, not a folder; glob_list shows what the folder contains.", "%s is a folder, not a file", rel).With("path", rel)
	}
	return tools.Errorf(tools.KindUnsupported, "Only regular files can be written; choose another path.", "%s is %s, not a regular file", rel, fsKindName(mode)).With("path", rel)
}

// fsKindName names the kind of a non-regular file for error messages.
func fsKindName(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a folder"
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// fsOpenRegular opens rel for reading without ever blocking: O_NONBLOCK
// keeps a FIFO or device that replaced the file since want was taken from
// hanging the open, and fstat then checks that what was opened is a
// regular file (the same one as want, when given).
func fsOpenRegular(ws *Workspace, rel string, want fs.FileInfo) (*os.File, fs.FileInfo, *tools.Error) {
	f, err := ws.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, ws.osError(rel, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, ws.osError(rel, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, tools.Errorf(tools.KindUnsupported, "Only regular files can be read; choose another path.", "%s is %s, not a regular file", rel, fsKindName(fi.Mode())).With("path", rel)
	}
	if want != nil && !os.SameFile(want, fi) {
		f.Close()
		return nil, nil, tools.Errorf(tools.KindExternalError, "Something else is changing the file; try again.", "%s changed while it was being opened", rel).With("path", rel)
	}
	return f, fi, nil
}

// fsReadRegular reads the whole regular file rel, at most limit bytes: a
// larger one is refused with kind quota_exceeded (fsTooLarge). A cancelled
// ctx stops the read and is returned as it is.
func fsReadRegular(ctx context.Context, ws *Workspace, rel string, want fs.FileInfo, limit int64) ([]byte, fs.FileInfo, error) {
	f, fi, e := fsOpenRegular(ws, rel, want)
	if e != nil {
		return nil, nil, e
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, nil, fsTooLarge(rel, fi.Size(), limit)
	}
	data, err := fsReadAll(fsCtxReader{ctx, f}, fi.Size(), limit)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, ws.osError(rel, err)
	}
	if int64(len(data)) > limit {
		return nil, nil, fsTooLarge(rel, int64(len(data)), limit)
	}
	return data, fi, nil
}

// fsReadAll reads r, a file of the given size, in one buffer, and a little
// more if the file grew meanwhile, up to limit+1 bytes (so that growth past
// limit shows).
func fsReadAll(r io.Reader, size, limit int64) ([]byte, error) {
	buf := make([]byte, size+1) // the extra byte notices a file that grew
	n, err := io.ReadFull(r, buf)
	switch err {
	case io.EOF, io.ErrUnexpectedEOF:
		return buf[:n], nil
	case nil:
		rest, err := io.ReadAll(io.LimitReader(r, limit+1-int64(n)))
		return append(buf[:n], rest...), err
	}
	return nil, err
}

func fsTooLarge(rel string, size, limit int64) *tools.Error {
	return tools.Errorf(tools.KindQuotaExceeded, "The file is too large for this tool; ask the user, or work on it with shell_run.", "%s is %s, over the %s limit", rel, tools.HumanSize(size), tools.HumanSize(limit)).
		With("path", rel).With("size_bytes", size).With("limit_bytes", limit)
}

// fsCtxReader stops a long read when the call is cancelled.
type fsCtxReader struct {
	ctx context.Context
	r   io.Reader
}

// fsReadChunk bounds one read of fsCtxReader: a file reads in one go
// otherwise, and ctx would be looked at only before it.
const fsReadChunk = 1 << 20

// Read implements io.Reader.
func (c fsCtxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p[:min(len(p), fsReadChunk)])
}

// fsApply makes the planned change: it creates the missing folders, then
// replaces the file atomically. It returns the folders it created. On
// failure it removes them again, so nothing is left half-done.
func fsApply(ctx context.Context, ws *Workspace, p *fsPlan) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	created, e := fsMakeDirs(ws, p.missing)
	if e != nil {
		return nil, e
	}
	if err := fsAtomicWrite(ws.root, p.rel, p.data, p.mode); err != nil {
		fsRemoveDirs(ws, created)
		return nil, ws.osError(p.rel, err)
	}
	return created, nil
}

// fsMakeDirs creates the folders in order and returns those it created;
// one that appeared meanwhile is used, not claimed.
func fsMakeDirs(ws *Workspace, dirs []string) ([]string, *tools.Error) {
	var created []string
	for _, d := range dirs {
		err := ws.root.Mkdir(d, fsNewDirMode)
		if err == nil {
			created = append(created, d)
			fsSyncDir(ws.root, path.Dir(d))
			continue
		}
		if errors.Is(err, fs.ErrExist) {
			if fi, serr := ws.root.Stat(d); serr == nil && fi.IsDir() {
				continue
			}
			fsRemoveDirs(ws, created)
			return nil, tools.Errorf(tools.KindInvalidArgs, "Choose another path, or ask the user to remove what is in the way.", "cannot create the folder %s: something that is not a folder is in the way (a broken symbolic link?)", d).With("path", d)
		}
		fsRemoveDirs(ws, created)
		return nil, ws.osError(d, err)
	}
	return created, nil
}

// fsRemoveDirs removes the given folders, deepest first, when they are
// empty folders; anything else in the way is left alone.
func fsRemoveDirs(ws *Workspace, dirs []string) {
	for i := len(dirs) - 1; i >= 0; i-- {
		d := dirs[i]
		fi, err := ws.root.Lstat(d)
		if err != nil || !fi.IsDir() {
			continue
		}
		if ws.root.Remove(d) == nil {
			fsSyncDir(ws.root, path.Dir(d))
		}
	}
}

// fsAtomicWrite replaces rel with data: a temporary file in the same
// folder is written, synced and given mode, then renamed over rel, and the
// folder is synced. Renaming replaces the directory entry, so a hard link
// or a symbolic link at rel is never written through, and readers see
// either the old or the new content, never a mix.
func fsAtomicWrite(root *os.Root, rel string, data []byte, mode fs.FileMode) error {
	return fsAtomicFill(root, rel, mode, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// fsAtomicFill is fsAtomicWrite with the content written by fill. The
// mode is set after the write, which would clear setuid and setgid.
func fsAtomicFill(root *os.Root, rel string, mode fs.FileMode, fill func(io.Writer) error) error {
	dir, base := path.Split(rel)
	tmp := dir + tempBeside(base)
	noteTempDir(root, dir)
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			_ = root.Remove(tmp)
		}
	}()
	if err := fill(f); err != nil {
		return err
	}
	if err := f.Chmod(mode); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := root.Rename(tmp, rel); err != nil {
		return err
	}
	ok = true
	fsSyncDir(root, path.Clean(dir))
	return nil
}

// tempBeside is a temporary name for a file beside base, of the form
// RemoveStaleTemps finds.
func tempBeside(base string) string {
	if len(base) > 100 {
		base = base[:100]
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	return "." + base + ".myclaw-" + hex.EncodeToString(rnd[:]) + ".tmp"
}

// fsSyncDir makes a folder's entries durable. Failure is not reported:
// some file systems cannot sync folders, and the data itself is synced.
func fsSyncDir(root *os.Root, dir string) {
	if dir == "" {
		dir = "."
	}
	d, err := root.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	d.Close()
}

// fsKeep stores the before and after contents of a plan in blobs and
// returns the two states the undo data records.
func fsKeep(blobs tools.BlobStore, p *fsPlan) (before, after tools.FileState, err error) {
	if p.exists {
		sum, err := blobs.Put(p.old)
		if err != nil {
			return before, after, fmt.Errorf("keep the previous content of %s: %w", p.rel, err)
		}
		before = tools.FileState{Exists: true, SHA256: sum, Mode: uint32(p.oldMode)}
	}
	sum, err := blobs.Put(p.data)
	if err != nil {
		return before, after, fmt.Errorf("keep the new content of %s: %w", p.rel, err)
	}
	return before, tools.FileState{Exists: true, SHA256: sum, Mode: uint32(p.mode)}, nil
}

// fsUndoPlan says in words what undoing the plan would do.
func fsUndoPlan(p *fsPlan, created []string) string {
	switch {
	case p.unchanged():
		return "Nothing to undo: the content stays the same"
	case p.exists:
		return "Undo restores the previous content of " + p.rel
	case len(created) == 1:
		return fmt.Sprintf("Undo deletes %s and the folder %s/ it created", p.rel, created[0])
	case len(created) > 1:
		return fmt.Sprintf("Undo deletes %s and the folders %s/ it created", p.rel, strings.Join(created, "/, "))
	}
	return "Undo deletes " + p.rel
}

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
		return "it is now " + fsKindName(o.mode)
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

// Bounds of the diff a refused undo shows of what changed since the call.
const (
	fsSinceLines    = 12
	fsSinceLineRune = 160
)

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
	if len(lines) > fsSinceLines {
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
		lines = append(lines, fmt.Sprintf("… %d more lines", more))
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
		if !force {
			since := fsSince(blobs, c.Path, c.After, cur)
			if since == "" {
				detail += cur.sums(c.After)
			}
			return nil, &tools.Conflict{What: c.Path, Detail: detail, Diff: since}
		}
		switch {
		case cur.kind == "missing":
			from = tools.FileState{}
		case cur.kind != "file":
			return nil, &tools.Conflict{What: c.Path, Detail: detail + "; even a forced undo only replaces regular files"}
		case cur.large:
			return nil, &tools.Conflict{What: c.Path, Detail: detail + "; it is too large to keep a copy, so it cannot be replaced"}
		default:
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

// fsCount renders a count with its noun: "1 file", "3 files".
func fsCount(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "ch") || strings.HasSuffix(noun, "s") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// fsLineDelta renders "+3 −1 lines" for summaries.
func fsLineDelta(d tools.DiffResult) string {
	if d.Binary {
		return "binary content"
	}
	return fmt.Sprintf("+%d \u2212%d lines", d.Added, d.Removed)
}
