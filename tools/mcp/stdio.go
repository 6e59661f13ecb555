package mcp

import (
	"context"
	"io"
	"myclaw/tools/proc"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stderrTailBytes is how much of a server's stderr is kept to explain a failure.
const stderrTailBytes = 4096

// stdioTransport is an sdk.Transport that runs a server as a child process in
// its own session and process group and speaks newline-delimited JSON over
// its stdin and stdout. Unlike sdk.CommandTransport it kills the whole tree
// (proc.StartPiped), so a server started through a launcher (npx, uvx, a
// shell script) leaves no orphans, nor do the processes it starts.
type stdioTransport struct {
	cfg   ServerConfig
	grace time.Duration
	logf  func(format string, args ...any)
	// proc is set by Connect, which the SDK calls once, on the goroutine that
	// called Client.Connect.
	proc *process
}

// Connect implements sdk.Transport.
func (t *stdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	p, err := startProcess(t.cfg, t.grace)
	if err != nil {
		return nil, err
	}
	t.proc = p
	return (&sdk.IOTransport{Reader: stdoutReader{newFrameFilter(p.stdout, t.cfg.Name, t.logf)}, Writer: p}).Connect(ctx)
}

// process is a running server and the pipes to it.
type process struct {
	cmd   *exec.Cmd
	tree  *proc.Tree
	grace time.Duration

	stdin  *os.File // write end
	stdout *os.File // read end
	stderr *os.File // read end
	tail   proc.TailBuffer

	exited     chan struct{} // closed once cmd.Wait has returned
	exitErr    error         // written before exited is closed
	stderrDone chan struct{} // closed once stderr reached EOF or was closed

	stopOnce  sync.Once
	stopped   chan struct{}
	closeOnce sync.Once
}

func startProcess(cfg ServerConfig, grace time.Duration) (*process, error) {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Dir = cfg.Dir
	cmd.Env = childEnv(cfg.Env)
	pipes, err := proc.StartPiped(cmd)
	if err != nil {
		return nil, err
	}
	inW, outR, errR := pipes.Stdin, pipes.Stdout, pipes.Stderr

	p := &process{
		cmd:        cmd,
		tree:       pipes.Tree,
		grace:      grace,
		stdin:      inW,
		stdout:     outR,
		stderr:     errR,
		exited:     make(chan struct{}),
		stderrDone: make(chan struct{}),
		stopped:    make(chan struct{}),
	}
	p.tail.Max = stderrTailBytes
	go func() {
		defer close(p.stderrDone)
		_, _ = io.Copy(&p.tail, p.stderr)
	}()
	go func() {
		p.exitErr = cmd.Wait()
		close(p.exited)
		// Whatever the server started is an orphan now; killing it also
		// closes every copy of stdout, so the session sees EOF. A child out
		// of reach could still hold stdout: after a grace period the read
		// end is closed regardless.
		p.tree.Kill()
		select {
		case <-p.stopped:
		case <-time.After(p.grace):
			p.closeFiles()
		}
	}()
	return p, nil
}

// childEnv is the scrubbed environment of myclaw plus the server's own
// variables, which the user configured on purpose (an API token, say).
func childEnv(extra map[string]string) []string {
	env := proc.ScrubEnv(os.Environ())
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+extra[k])
	}
	return env
}

// Write implements io.Writer for the transport: it writes to the server's stdin.
func (p *process) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close implements io.Closer for the transport. The SDK calls it from inside
// its connection's bookkeeping, so it only begins the shutdown; stop waits.
func (p *process) Close() error {
	p.beginStop()
	return nil
}

func (p *process) beginStop() {
	p.stopOnce.Do(func() { go p.shutdown() })
}

// stop shuts the server down as the MCP specification asks (close its
// stdin, wait, SIGTERM, wait, SIGKILL), whole group included, and returns
// once it is gone.
func (p *process) stop() {
	p.beginStop()
	<-p.stopped
}

func (p *process) shutdown() {
	defer close(p.stopped)
	p.stdin.Close()
	if !p.waitExit(p.grace) {
		p.tree.Terminate()
		if !p.waitExit(p.grace) {
			p.tree.Kill()
			<-p.exited
		}
	}
	p.tree.Kill()
	select {
	case <-p.stderrDone:
	case <-time.After(p.grace):
	}
	p.closeFiles()
	<-p.stderrDone
}

func (p *process) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

func (p *process) closeFiles() {
	p.closeOnce.Do(func() {
		p.stdin.Close()
		p.stdout.Close()
		p.stderr.Close()
	})
}

// exitStatus describes how the process ended, once it has.
func (p *process) exitStatus() string {
	select {
	case <-p.exited:
	default:
		return ""
	}
	if d := proc.ExitDescription(p.cmd.ProcessState); d != "" {
		return d
	}
	if p.exitErr != nil {
		return p.exitErr.Error() // Wait failed before the process was reaped
	}
	return ""
}

// stdoutReader reads the server's stdout, through a frameFilter. Its Close
// does nothing: the pipe is closed by the process shutdown, after the
// server had the chance to finish.
type stdoutReader struct{ f *frameFilter }

func (r stdoutReader) Read(b []byte) (int, error) { return r.f.Read(b) }
func (r stdoutReader) Close() error               { return nil }

// lastStderrLines returns up to n of the last non-empty lines of the
// server's stderr, cleaned of control sequences, joined with " | ".
func (p *process) lastStderrLines(n int) string {
	var lines []string
	for l := range strings.Lines(p.tail.Text()) {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
