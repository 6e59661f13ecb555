//go:build !windows

package ui

import (
	"os"
	"time"

	"github.com/charmbracelet/x/term"
	"golang.org/x/sys/unix"
)

// syncWait bounds the wait for the answers: a terminal that answers
// nothing costs this once, at start.
const syncWait = 300 * time.Millisecond

// terminalHasSync asks the controlling terminal whether it has
// synchronized output. Any failure means no.
func terminalHasSync() bool {
	if os.Getenv("TERM") == "dumb" || !term.IsTerminal(os.Stdout.Fd()) || !term.IsTerminal(os.Stdin.Fd()) {
		return false
	}
	// Non-blocking, so the read can have a deadline.
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		return false
	}
	defer tty.Close()
	return querySync(tty, syncWait)
}

// querySync asks the terminal tty (opened non-blocking) and waits at most
// wait for its answers.
func querySync(tty *os.File, wait time.Duration) bool {
	state, err := term.MakeRaw(tty.Fd())
	if err != nil {
		return false
	}
	defer func() { _ = term.Restore(tty.Fd(), state) }()
	if _, err := tty.WriteString(syncQuery); err != nil {
		return false
	}
	if tty.SetReadDeadline(time.Now().Add(wait)) != nil {
		return false
	}
	var got []byte
	buf := make([]byte, 256)
	for len(got) < 4096 {
		n, err := tty.Read(buf)
		got = append(got, buf[:n]...)
		if ok, done := syncAnswer(got); done {
			return ok
		}
		if err != nil {
			return false
		}
	}
	return false
}
