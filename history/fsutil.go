package history

import (
	"errors"
	"fmt"
	"io/fs"
	"myclaw/internal/durable"
	"os"
	"path/filepath"
)

// Permissions of everything under the state dir: it may hold file contents
// and conversations, so only the owner can read it.
const (
	dirPerm  fs.FileMode = 0o700
	filePerm fs.FileMode = 0o600
)

// writeFileAtomic replaces path with data (see durable.WriteFile),
// readable by the owner only.
func writeFileAtomic(path string, data []byte) error {
	if err := durable.WriteFile(path, data, filePerm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// syncDir fsyncs a directory (see durable.SyncDir).
func syncDir(dir string) error {
	if err := durable.SyncDir(dir); err != nil {
		return fmt.Errorf("sync dir %s: %w", dir, err)
	}
	return nil
}

// ensureDir creates dir and any missing parents with dirPerm, fsyncing each
// parent after creating a child in it, so the new directories survive a
// crash along with what is written into them.
func ensureDir(dir string) error {
	dir = filepath.Clean(dir)
	fi, err := os.Stat(dir)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil:
		return fmt.Errorf("create dir %s: a file is in the way", dir)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("create dir %s: %w", dir, err)
	}
	parent := filepath.Dir(dir)
	if parent != dir {
		if err := ensureDir(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, dirPerm); err != nil {
		if errors.Is(err, fs.ErrExist) {
			// Created meanwhile by another goroutine or process.
			return nil
		}
		return fmt.Errorf("create dir %s: %w", dir, err)
	}
	return syncDir(parent)
}

// lockFile takes an advisory lock on f (see durable.Lock).
func lockFile(f *os.File, exclusive bool) error { return durable.Lock(f, exclusive) }

// unlockFile releases the lock lockFile took.
func unlockFile(f *os.File) error { return durable.Unlock(f) }
