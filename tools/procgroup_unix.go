//go:build unix

package tools

import (
	"os/exec"
	"syscall"
)

// ProcGroup is the process group a child started with StartGroup runs in:
// signalling it reaches the child and whatever it started that stayed in
// the group.
type ProcGroup struct {
	pgid int
}

// StartGroup starts cmd in a process group of its own.
func StartGroup(cmd *exec.Cmd) (*ProcGroup, error) {
	setProcGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &ProcGroup{pgid: cmd.Process.Pid}, nil
}

// Terminate asks every process of the group to exit (SIGTERM); a group
// that is already empty is not an error.
func (g *ProcGroup) Terminate() { _ = syscall.Kill(-g.pgid, syscall.SIGTERM) }

// Kill kills every process of the group (SIGKILL).
func (g *ProcGroup) Kill() { _ = syscall.Kill(-g.pgid, syscall.SIGKILL) }

// Close releases the group once its processes are gone; on Unix it holds
// nothing.
func (g *ProcGroup) Close() {}
