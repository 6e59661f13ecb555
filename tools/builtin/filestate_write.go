package builtin

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"myclaw/tools"
)

// fsApply makes the planned change: it creates the missing folders, then
// replaces the file atomically. It returns the folders it created. On
// failure it removes them again, so nothing is left half-done.
func fsApply(ctx context.Context, ws *Workspace, p *fsPlan) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if ws.beforeWrite != nil {
		if err := ws.beforeWrite(p.rel); err != nil {
			return nil, ws.osError(p.rel, err)
		}
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
