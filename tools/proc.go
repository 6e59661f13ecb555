package tools

import (
	"os"
	"os/exec"
	"sync"
)

// ProcTree is a started command with every process it starts, whatever
// they do to leave it (a new session, a double fork). Kill ends them all.
// How the members are found is per OS (proc_linux.go).
type ProcTree struct {
	t *procTree
}

// liveTrees holds the trees not yet killed, so that KillProcesses can end
// them when myclaw exits.
var liveTrees struct {
	mu sync.Mutex
	m  map[*ProcTree]struct{}
}

// prepareCmd readies cmd to be contained: it runs in a session of its own
// (no controlling terminal, so it cannot read or inject keystrokes or stop
// myclaw with job control) and carries a fresh marker in its environment.
// It returns the marker. cmd.Env nil means os.Environ().
func prepareCmd(cmd *exec.Cmd) string {
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	marker := newProcMarker()
	cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], marker)
	procSetSession(cmd)
	return marker
}

// startTree starts a cmd prepared with prepareCmd and registers its tree.
func startTree(cmd *exec.Cmd, marker string) (*ProcTree, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	pt := &ProcTree{t: newProcTree(cmd.Process.Pid, marker)}
	liveTrees.mu.Lock()
	if liveTrees.m == nil {
		liveTrees.m = map[*ProcTree]struct{}{}
	}
	liveTrees.m[pt] = struct{}{}
	liveTrees.mu.Unlock()
	return pt, nil
}

// Kill ends every process of the tree and returns once they are gone (or
// a bounded wait passed). It may be called more than once and concurrently.
func (pt *ProcTree) Kill() {
	if pt == nil {
		return
	}
	pt.t.kill()
	liveTrees.mu.Lock()
	delete(liveTrees.m, pt)
	liveTrees.mu.Unlock()
}

// KillProcesses ends every process tree this program started and has not
// killed yet: shell commands, background jobs, MCP servers, command tools.
// main calls it on the way out, whatever the reason.
func KillProcesses() {
	liveTrees.mu.Lock()
	trees := make([]*ProcTree, 0, len(liveTrees.m))
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
