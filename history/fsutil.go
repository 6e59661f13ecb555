package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"myclaw/tools"
)

// Permissions of everything under the state dir: it may hold file contents
// and conversations, so only the owner can read it.
const (
	dirPerm  fs.FileMode = 0o700
	filePerm fs.FileMode = 0o600
)

// writeFileAtomic replaces path with data (see tools.WriteFileAtomic),
// readable by the owner only.
func writeFileAtomic(path string, data []byte) error {
	if err := tools.WriteFileAtomic(path, data, filePerm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// syncDir fsyncs a directory (see tools.SyncDir).
func syncDir(dir string) error {
	if err := tools.SyncDir(dir); err != nil {
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

// lockFile takes an advisory lock on f (exclusive or shared), waiting for
// other processes to release theirs. Locks belong to the open file, so two
// opens of one path in the same process exclude each other too.
func lockFile(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			if err != nil {
				return fmt.Errorf("lock %s: %w", f.Name(), err)
			}
			return nil
		}
	}
}

// unlockFile releases the lock lockFile took.
func unlockFile(f *os.File) error {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN); err != nil {
		return fmt.Errorf("unlock %s: %w", f.Name(), err)
	}
	return nil
}
