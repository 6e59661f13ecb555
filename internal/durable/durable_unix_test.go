//go:build unix

package durable

import (
	"errors"
	"os"
	"syscall"
	"testing"
)

// tryLockFile asks for a lock without waiting and gives it back at once.
func tryLockFile(t *testing.T, f *os.File, exclusive bool) bool {
	t.Helper()
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
	if err != nil && !errors.Is(err, syscall.EWOULDBLOCK) {
		t.Fatal(err)
	}
	if err == nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	}
	return err == nil
}
