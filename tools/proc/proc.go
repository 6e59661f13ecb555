// Package proc contains the processes myclaw starts: each one runs in its
// own session with a marker in its environment, and everything carrying the
// marker or descending from it is frozen and killed when its call ends, so
// that nothing outlives a call. It also scrubs the environments they get.
package proc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"sync"
	"time"
)

// RunMarkerPrefix starts the name of the variable that tags the
// processes of one shell_run call. Each call has its own name, so a myclaw
// running inside another's command keeps the outer marker too.
const RunMarkerPrefix = "MYCLAW_RUN_"

// procReapWait bounds how long a kill waits for the killed processes to exit.
const procReapWait = 3 * time.Second

// newProcMarker returns a fresh marker environment entry.
func newProcMarker() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return RunMarkerPrefix + hex.EncodeToString(b) + "=1"
}

// Tree is a started command with every process it starts, whatever
// they do to leave it (a new session, a double fork). Kill ends them all.
// How the members are found is per OS: proc_linux.go and proc_darwin.go
// (sharing proc_unix.go), proc_windows.go (a Job Object).
type Tree struct {
	t *procTree
}

// liveTrees holds the trees not yet killed, so that KillProcesses can end
// them when myclaw exits.
var liveTrees struct {
	mu sync.Mutex
	m  map[*Tree]struct{}
}

// PrepareCmd readies cmd to be contained: it runs in a session of its own
// (no controlling terminal, so it cannot read or inject keystrokes or stop
// myclaw with job control; on Windows, a console of its own, started
// suspended until it is in its job) and carries a fresh marker in its
// environment.
// It returns the marker. cmd.Env nil means os.Environ().
func PrepareCmd(cmd *exec.Cmd) string {
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	marker := newProcMarker()
	cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], marker)
	procSetSession(cmd)
	return marker
}

// StartTree starts a cmd prepared with PrepareCmd and registers its tree.
func StartTree(cmd *exec.Cmd, marker string) (*Tree, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	t, err := newTree(cmd.Process.Pid, marker)
	if err != nil {
		// The child was ended before it ran (Windows: no job for it).
		_ = cmd.Wait()
		return nil, err
	}
	pt := &Tree{t: t}
	liveTrees.mu.Lock()
	if liveTrees.m == nil {
		liveTrees.m = map[*Tree]struct{}{}
	}
	liveTrees.m[pt] = struct{}{}
	liveTrees.mu.Unlock()
	return pt, nil
}

// Kill ends every process of the tree and returns once they are gone (or
// a bounded wait passed). It may be called more than once and concurrently.
func (pt *Tree) Kill() {
	if pt == nil {
		return
	}
	pt.t.kill()
	liveTrees.mu.Lock()
	delete(liveTrees.m, pt)
	liveTrees.mu.Unlock()
	pt.t.release()
}

// Terminate asks the command to exit (SIGTERM to its group on Unix); on
// Windows, which has no such request for console programs, it kills the
// tree. Kill must still follow.
func (pt *Tree) Terminate() {
	if pt != nil {
		pt.t.terminate()
	}
}

// RunContained runs cmd like cmd.Run, contained as StartPiped's children
// are; when ctx ends first the whole tree is killed, and whatever the
// command left running is killed when it exits. cmd must not have been
// made with exec.CommandContext.
func RunContained(ctx context.Context, cmd *exec.Cmd) error {
	tree, err := StartTree(cmd, PrepareCmd(cmd))
	if err != nil {
		return err
	}
	defer tree.Kill()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		tree.Kill()
		return <-done
	}
}

// KillProcesses ends every process tree this program started and has not
// killed yet: shell commands, background jobs, MCP servers, command tools.
// main calls it on the way out, whatever the reason.
func KillProcesses() {
	liveTrees.mu.Lock()
	trees := make([]*Tree, 0, len(liveTrees.m))
	for pt := range liveTrees.m {
		trees = append(trees, pt)
	}
	liveTrees.mu.Unlock()
	var wg sync.WaitGroup
	for _, pt := range trees {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pt.Kill()
		}()
	}
	wg.Wait()
}
