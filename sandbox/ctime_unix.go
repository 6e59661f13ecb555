//go:build linux || darwin

package sandbox

import (
	"os"
	"syscall"
	"time"
)

// changedSince reports whether dir's status changed at or after t.
func changedSince(dir string, t time.Time) bool {
	fi, err := os.Lstat(dir)
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	return !ctime(st).Before(t)
}
