//go:build !linux && !darwin

package sandbox

import (
	"os/exec"
	"runtime"
)

// Launch is a no-op where there is no sandbox.
func Launch() {}

func (s *Sandbox) confine(*exec.Cmd, bool) (*call, error) { return nil, errUnsupported }

func (s *Sandbox) detect() string {
	return "myclaw has no sandbox for " + runtime.GOOS + "; shell commands ask as before"
}

func mechanism() string { return "none" }

func gaps() []string { return nil }
