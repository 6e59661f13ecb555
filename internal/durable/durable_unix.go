//go:build unix

package durable

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// SyncDir fsyncs a directory, making the creation, rename or removal of
// entries in it durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// Lock takes an advisory lock (flock) on f, exclusive or shared,
// waiting for other processes to release theirs; a wait interrupted by a
// signal is resumed. Locks belong to the open file, so two opens of one
// path in the same process exclude each other too.
func Lock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		return nil
	}
}

// Unlock releases the lock Lock took.
func Unlock(f *os.File) error {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN); err != nil {
		return fmt.Errorf("unlock %s: %w", f.Name(), err)
	}
	return nil
}

// TryLock takes an exclusive advisory lock on f without waiting: false
// when another open file holds a lock on it.
func TryLock(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case err != nil:
			return false, fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		return true, nil
	}
}
