package durable

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// SyncDir would make entries of dir durable; Windows cannot flush a
// directory handle (FlushFileBuffers needs write access, which a directory
// open does not give), and NTFS journals renames itself, so it does nothing.
func SyncDir(dir string) error { return nil }

// lockOffsetHigh places the one locked byte far beyond any real end of
// file: LockFileEx locks are mandatory for the bytes they cover, and a lock
// on the data itself would make reads through other handles fail.
const lockOffsetHigh = 0x7fffffff

// Lock takes a lock on f, exclusive or shared, waiting for other
// processes to release theirs (LockFileEx, used as an advisory lock on one
// byte beyond the data). Locks belong to the open file, so two opens of one
// path in the same process exclude each other too.
func Lock(f *os.File, exclusive bool) error {
	var flags uint32
	if exclusive {
		flags = windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	ol := windows.Overlapped{OffsetHigh: lockOffsetHigh}
	if err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, &ol); err != nil {
		return fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	return nil
}

// Unlock releases the lock Lock took.
func Unlock(f *os.File) error {
	ol := windows.Overlapped{OffsetHigh: lockOffsetHigh}
	if err := windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol); err != nil {
		return fmt.Errorf("unlock %s: %w", f.Name(), err)
	}
	return nil
}

// TryLock takes an exclusive lock on f without waiting: false when
// another open file holds a lock on it.
func TryLock(f *os.File) (bool, error) {
	ol := windows.Overlapped{OffsetHigh: lockOffsetHigh}
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	return true, nil
}
