package proctest

import (
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// OpenPTY opens a pseudo-terminal and returns its two ends: master is the
// terminal's side, slave the program's (non-blocking when asked). A
// machine without pseudo-terminals skips the test.
func OpenPTY(t testing.TB, nonBlocking bool) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	flags := os.O_RDWR | unix.O_NOCTTY
	if nonBlocking {
		flags |= unix.O_NONBLOCK
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), flags, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}
