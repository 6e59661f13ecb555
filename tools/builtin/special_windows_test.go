package builtin

import (
	"os"
	"testing"
)

// mkfifo would make a named pipe; Windows has none in its file system, so
// a test that needs one is skipped there.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	t.Skip("Windows has no FIFOs in the file system")
}

// shellKillPID kills one process, as another program of the user could.
func shellKillPID(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
