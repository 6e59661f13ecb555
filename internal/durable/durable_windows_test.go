package durable

import (
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/windows"
)

// tryLockFile asks for a lock without waiting and gives it back at once.
func tryLockFile(t *testing.T, f *os.File, exclusive bool) bool {
	t.Helper()
	flags := uint32(windows.LOCKFILE_FAIL_IMMEDIATELY)
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	ol := windows.Overlapped{OffsetHigh: lockOffsetHigh}
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, &ol)
	if err != nil && !errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		t.Fatal(err)
	}
	if err == nil {
		ol := windows.Overlapped{OffsetHigh: lockOffsetHigh}
		windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
	}
	return err == nil
}
