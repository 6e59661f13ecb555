//go:build unix

package builtin

import (
	"syscall"
	"testing"
)

// mkfifo makes a named pipe, the special file the file tools must refuse.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// shellKillPID kills one process, as another program of the user could.
func shellKillPID(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }
