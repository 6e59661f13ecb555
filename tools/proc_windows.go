package tools

import "time"

// procTree is the Job Object of one shell_run call (see procgroup_windows.go):
// unlike a process group it misses nothing, so no marker scan is needed.
type procTree struct {
	g *ProcGroup
}

// newProcTree puts the just-started, suspended process root (started after
// setProcGroup) in a job and resumes it; on failure root is terminated.
func newProcTree(root int, marker string) (*procTree, error) {
	g, err := attachJob(root)
	if err != nil {
		return nil, err
	}
	return &procTree{g: g}, nil
}

// kill ends every process of the tree and waits (bounded) until they have
// exited.
func (t *procTree) kill() {
	t.g.Kill()
	deadline := time.Now().Add(procReapWait)
	for time.Now().Before(deadline) {
		if n, err := t.g.active(); err != nil || n == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// release closes the job once the call is over, which also ends anything
// still in it.
func (t *procTree) release() { t.g.Close() }

// shellInstallHint completes shell_run's "bash is missing" hint.
const shellInstallHint = " (on Windows, myclaw runs bash.exe from PATH: Git for Windows' Git Bash or MSYS2)"
