//go:build linux

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"myclaw/internal/proctest"
)

// screenLog collects what the TUI writes to the terminal.
type screenLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *screenLog) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *screenLog) has(text string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Contains(s.b.String(), text)
}

// A signal to the TUI exits 130, as it does headless and as the README
// says, after saving the session.
func TestSignalledTUIExitsInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the TUI in a terminal three times: left out of the quick -short run")
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			e := newEnv(t, writeNote)
			master, slave := proctest.OpenPTY(t, false)
			unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 30, Col: 100})
			cmd := exec.Command(os.Args[0], "--model", "test-model")
			cmd.Env = append(e.Vars(), "MYCLAW_TEST_AS_MAIN=1", "TERM=xterm-256color")
			cmd.Dir = e.WS
			cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
			var screen screenLog
			go func() { _, _ = master.WriteTo(&screen) }()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			waitScreen := func(text string) {
				t.Helper()
				for deadline := time.Now().Add(60 * time.Second); !screen.has(text); time.Sleep(50 * time.Millisecond) {
					if time.Now().After(deadline) {
						cmd.Process.Kill()
						t.Fatalf("the TUI never showed %q", text)
					}
				}
			}
			waitScreen("Ask in plain words")
			master.WriteString("say hello")
			master.WriteString("\r")
			waitScreen("Hello there.")
			cmd.Process.Signal(sig)
			var err error
			select {
			case err = <-exited:
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				t.Fatal("myclaw did not exit after the signal")
			}
			code := 0
			if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
				code = ee.ExitCode()
			}
			if code != 130 {
				t.Errorf("after %s myclaw exited %d (%v); want 130", sig, code, err)
			}
			out, _, _ := e.myclaw(nil, "sessions")
			if !strings.Contains(out, "say hello") {
				t.Errorf("the session was not saved: myclaw sessions says\n%s", out)
			}
		})
	}
}
