//go:build linux

package ui

import (
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal and returns its two ends.
func openPTY(t *testing.T) (master, slave *os.File) {
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
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// The editor reads the terminal itself. Left to Bubble Tea, it would get
// the TUI's input reader through a pipe: editors refuse a pipe or
// misbehave, and the copy into it keeps the TUI from coming back after
// the editor quit until the person presses Enter.
func TestEditorReadsTheTerminal(t *testing.T) {
	_, slave := openPTY(t)
	stdin := os.Stdin
	os.Stdin = slave
	t.Cleanup(func() { os.Stdin = stdin })
	for _, what := range []string{"prompt", "plan"} {
		cmd, read, err := editText("text", what, func(k string) string {
			if k == "EDITOR" {
				return "true"
			}
			return ""
		})
		if err != nil {
			t.Fatal(err)
		}
		if cmd.Stdin != slave {
			t.Errorf("the %s editor's stdin is %T, not the terminal: Bubble Tea would feed it through a pipe", what, cmd.Stdin)
		}
		if _, err := read(nil); err != nil {
			t.Fatal(err)
		}
	}
}
