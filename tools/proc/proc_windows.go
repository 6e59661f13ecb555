package proc

import "time"

// procTree is the Job Object of one command (see job_windows.go): unlike a
// process group it misses nothing, so no marker scan is needed.
type procTree struct {
	job *winJob
}

// newTree puts the just-started, suspended process root (started after
// procSetSession) in a job and resumes it; on failure root is terminated.
func newTree(root int, marker string) (*procTree, error) {
	job, err := attachJob(root)
	if err != nil {
		return nil, err
	}
	return &procTree{job: job}, nil
}

// kill ends every process of the tree and waits (bounded) until they have
// exited.
func (t *procTree) kill() {
	t.job.kill()
	deadline := time.Now().Add(procReapWait)
	for time.Now().Before(deadline) {
		if n, err := t.job.active(); err != nil || n == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// terminate would ask the command to exit; Windows has no such request
// that console programs share, so it kills the tree.
func (t *procTree) terminate() { t.kill() }

// release closes the job, which also ends anything still in it.
func (t *procTree) release() { t.job.close() }

// BashInstallHint completes shell_run's "bash is missing" hint.
const BashInstallHint = " (on Windows, myclaw runs bash.exe from PATH: Git for Windows' Git Bash or MSYS2)"
