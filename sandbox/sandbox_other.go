//go:build !linux && !darwin

package sandbox

import (
	"errors"
	"os/exec"
	"runtime"
)

// errUnsupported is Confine's error where there is no sandbox.
var errUnsupported = errors.New("no sandbox on this platform")

// Launch is a no-op where there is no sandbox.
func Launch() {}

func (s *Sandbox) confine(*exec.Cmd, bool) (*call, error) { return nil, errUnsupported }

func (s *Sandbox) confineReadOnly(*exec.Cmd) (*call, error) { return nil, errUnsupported }

func (s *Sandbox) detect() string {
	return "myclaw has no sandbox for " + runtime.GOOS + "; shell commands ask as before"
}

func mechanism() string { return "none" }

func gaps() []string { return nil }

func (s *Sandbox) confineOverlay(*exec.Cmd, string, string) (*call, error) {
	return nil, errors.New("a preview needs an overlay mount, which only Linux has here")
}

func (s *Sandbox) confineJoin(*exec.Cmd, int) (*call, error) { return nil, canJoin() }

func canJoin() error { return errors.New("a held layer needs Linux") }
