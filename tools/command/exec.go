package command

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"myclaw/tools"
	"myclaw/tools/proc"
)

const (
	// maxStdout caps the output kept for the model.
	maxStdout = 30 << 10
	// maxStderrTail is how much of stderr's end explains a failure.
	maxStderrTail = 2 << 10
	// drainWait bounds how long the output is still read once the process
	// group is gone, in case a process that left the group holds the pipes.
	drainWait = 2 * time.Second
)

// Execute implements tools.Tool: it runs the command with the arguments as
// JSON on stdin and returns its stdout. It runs until ctx ends: tools.Call
// bounds it with the tool's timeout.
func (t *commandTool) Execute(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	run, err := start(t.spec, stdinJSON(args))
	if err != nil {
		return tools.Result{}, &tools.Error{
			Kind:    tools.KindExternalError,
			Message: fmt.Sprintf("%s could not start: %v", t.meta.Name, err),
			Hint:    fmt.Sprintf("The tool is misconfigured (command of %s). Tell the user; do not retry.", t.origin()),
		}
	}
	killed := run.wait(ctx)

	if killed {
		if tools.TimedOut(ctx) {
			return tools.Result{}, (&tools.Error{
				Kind:    tools.KindQuotaExceeded,
				Message: fmt.Sprintf("%s timed out after %s; its processes were killed", t.meta.Name, t.meta.EffectiveTimeout()),
				Hint:    "Narrow the request so it finishes in time, or tell the user the tool needs a longer timeout in its [[tools]] entry.",
			}).With("stderr_tail", run.stderr.Text())
		}
		return tools.Result{}, ctx.Err()
	}
	if err := run.exitErr; err != nil {
		return tools.Result{}, t.exitError(err, run.stderr.Text())
	}
	return t.result(run.stdout.Bytes(), run.stdoutTotal), nil
}

func (t *commandTool) origin() string {
	if t.spec.Origin != "" {
		return t.spec.Origin
	}
	return "its [[tools]] entry"
}

// exitError reports a command that failed, with the end of its stderr.
func (t *commandTool) exitError(err error, tail string) error {
	msg := fmt.Sprintf("%s failed: %v", t.meta.Name, err)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		msg = fmt.Sprintf("%s failed: %s", t.meta.Name, proc.ExitDescription(ee.ProcessState))
	}
	e := &tools.Error{
		Kind:    tools.KindExternalError,
		Message: msg,
		Hint:    "Read the error output; fix the arguments and call again, or tell the user if the tool itself is broken.",
	}
	if tail != "" {
		e.Message += "; stderr ends with:\n" + tail
	}
	if ee != nil {
		e.With("exit_code", ee.ExitCode())
	}
	return e
}

// result turns stdout into the tool's result: a JSON object becomes Output
// (unless the tool returns untrusted content, which must stay in the fenced
// body), anything else the body.
func (t *commandTool) result(out []byte, total int) tools.Result {
	res := tools.Result{Source: "command:" + t.meta.Name, Capability: t.meta.Capability}
	trimmed := bytes.TrimSpace(out)
	truncated := total > len(out)
	if !truncated && !t.meta.ReturnsUntrusted && len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed) {
		res.Output = json.RawMessage(trimmed)
		return res
	}
	body := string(out)
	if truncated {
		body += fmt.Sprintf("\n[output truncated: shown %d of %d bytes; ask for less output]", len(out), total)
		res.Output = map[string]any{"truncated": true, "shown_bytes": len(out), "total_bytes": total}
	}
	res.Body = body
	return res
}

// process is one run of a command.
type process struct {
	cmd  *exec.Cmd
	tree *proc.Tree

	stdinW, stdoutR, stderrR *os.File

	// Written by the reader goroutines, read after readers.Wait.
	stdout      bytes.Buffer // the first maxStdout bytes
	stdoutTotal int
	stderr      proc.TailBuffer // the last maxStderrTail bytes
	exitErr     error

	readers sync.WaitGroup // the stdin writer and the two readers
}

// start runs argv contained (proc.StartPiped) with stdin fed from input.
func start(s Spec, input []byte) (*process, error) {
	cmd := exec.Command(s.Command[0], s.Command[1:]...)
	cmd.Dir = s.Dir
	cmd.Env = proc.ScrubEnv(os.Environ())
	pipes, err := proc.StartPiped(cmd)
	if err != nil {
		return nil, err
	}
	inW, outR, errR := pipes.Stdin, pipes.Stdout, pipes.Stderr

	p := &process{cmd: cmd, tree: pipes.Tree, stdinW: inW, stdoutR: outR, stderrR: errR}
	p.stderr.Max = maxStderrTail
	p.readers.Add(3)
	go func() {
		defer p.readers.Done()
		// A command that does not read its stdin makes this fail with
		// EPIPE, which is its business, not an error.
		_, _ = inW.Write(input)
		inW.Close()
	}()
	go func() {
		defer p.readers.Done()
		buf := make([]byte, 32<<10)
		for {
			n, err := outR.Read(buf)
			if n > 0 {
				if room := maxStdout - p.stdout.Len(); room > 0 {
					p.stdout.Write(buf[:min(n, room)])
				}
				p.stdoutTotal += n
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		defer p.readers.Done()
		_, _ = io.Copy(&p.stderr, errR)
	}()
	return p, nil
}

// wait waits for the command, killing its process tree if ctx ends first,
// and reports whether it was killed. Leftovers in the tree are killed once
// the command exits, and the output is read until its pipes close.
func (p *process) wait(ctx context.Context) (killed bool) {
	exited := make(chan error, 1)
	go func() { exited <- p.cmd.Wait() }()
	select {
	case p.exitErr = <-exited:
	case <-ctx.Done():
		killed = true
		p.tree.Kill()
		p.exitErr = <-exited
	}
	p.tree.Kill()

	drained := make(chan struct{})
	go func() {
		p.readers.Wait()
		close(drained)
	}()
	timer := time.NewTimer(drainWait)
	defer timer.Stop()
	select {
	case <-drained:
	case <-timer.C:
		// Someone outside the group holds the pipes; stop listening.
	}
	p.stdinW.Close()
	p.stdoutR.Close()
	p.stderrR.Close()
	<-drained
	return killed
}
