package durable

import (
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile replaces path with data so that a crash leaves either the
// old file or the new one, never a mix: a temp file in the same directory,
// written, given perm and fsynced, renamed over path, then the directory
// fsynced so the rename itself is durable. On macOS (*os.File).Sync is
// F_FULLFSYNC, which also flushes the drive's cache; plain fsync does not. On failure path is untouched.
// It is for myclaw's own files (state, config); workspace files go through
// the Workspace root instead.
func WriteFile(path string, data []byte, perm fs.FileMode) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	// CreateTemp's mode is 0600; Chmod sets perm whatever the umask.
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return SyncDir(dir)
}
