package builtin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"myclaw/tools"
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
	return tools.Errorf(tools.KindUnsupported, "Only regular files can be written; choose another path.", "%s is %s, not a regular file", rel, tools.FileKind(mode)).With("path", rel)
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
		return nil, nil, tools.Errorf(tools.KindUnsupported, "Only regular files can be read; choose another path.", "%s is %s, not a regular file", rel, tools.FileKind(fi.Mode())).With("path", rel)
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

// Bounds of the diff a refused undo shows of what changed since the call.
const (
	fsSinceLines    = 12
	fsSinceLineRune = 160
)

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
