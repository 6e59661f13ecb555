package builtin

import (
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"myclaw/tools/proc"
)

// command builds the process that runs one command line. It is the one
// place where the command becomes an exec.Cmd, so that anything wrapping
// the command (a sandbox launcher) wraps it here.
func (s *shellRun) command(line string) *exec.Cmd {
	base := s.opts.Env
	if base == nil {
		base = os.Environ()
	}
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = s.opts.Dir
	cmd.Env = proc.ScrubEnv(base)
	return cmd
}

// shellProc is a started command line and the goroutines reading its
// output.
type shellProc struct {
	cmd    *exec.Cmd
	tree   *proc.Tree
	exited chan struct{} // closed once bash has exited and been reaped
	copied chan struct{} // closed once both output pipes reached EOF
	outR   *os.File
	errR   *os.File
}

// startShell starts cmd contained (its own session, a marker, registered
// for KillProcesses) with stdin from /dev/null and both output streams
// copied to the writers, which must each be safe for one writer goroutine.
func startShell(cmd *exec.Cmd, stdout, stderr io.Writer) (*shellProc, error) {
	marker := proc.PrepareCmd(cmd)
	null, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer null.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	// *os.File streams go to the child as they are: Wait then returns when
	// bash exits, not when the last holder of the pipes does.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, outW, errW
	tree, err := proc.StartTree(cmd, marker)
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, err
	}
	p := &shellProc{cmd: cmd, tree: tree, exited: make(chan struct{}), copied: make(chan struct{}), outR: outR, errR: errR}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); _, _ = io.Copy(stdout, outR) }()
	go func() { defer wg.Done(); _, _ = io.Copy(stderr, errR) }()
	go func() { wg.Wait(); close(p.copied) }()
	go func() { _ = cmd.Wait(); close(p.exited) }()
	return p, nil
}

// stop kills the whole tree, waits for bash to be reaped and for the
// output to drain, and reports whether something it could not reach still
// held the output after shellWaitDelay (then the pipes are closed on it).
func (p *shellProc) stop() (escaped bool) {
	p.tree.Kill()
	<-p.exited
	t := time.NewTimer(shellWaitDelay)
	defer t.Stop()
	select {
	case <-p.copied:
	case <-t.C:
		escaped = true
	}
	p.outR.Close()
	p.errR.Close()
	<-p.copied
	return escaped
}

// shellExitCode follows the shell's convention: 128+n for a death by signal n.
func shellExitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if sig, ok := proc.ExitSignal(ps); ok {
		return 128 + int(sig)
	}
	return ps.ExitCode()
}
