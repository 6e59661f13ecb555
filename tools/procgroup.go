package tools

import (
	"context"
	"os/exec"
)

// RunGroup runs cmd like cmd.Run, in a process group of its own
// (StartGroup); when ctx ends first, the whole group is killed. cmd must
// not have been made with exec.CommandContext.
func RunGroup(ctx context.Context, cmd *exec.Cmd) error {
	g, err := StartGroup(cmd)
	if err != nil {
		return err
	}
	defer g.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		g.Kill()
		return <-done
	}
}
