package proc

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"

	"myclaw/tools/termtext"
)

// Piped are the parent's ends of a child's standard streams, and the tree of
// processes the child starts.
type Piped struct {
	Stdin          *os.File
	Stdout, Stderr *os.File
	// Tree kills the child and everything it started; until then
	// KillProcesses does at exit.
	Tree *Tree
}

// StartPiped starts cmd contained (in a session and process group of its
// own, without a controlling terminal, its descendants tracked) with its
// three standard streams on pipes, and returns the parent's ends. Unlike
// exec.Cmd's *Pipe methods, Wait does not close them: the caller reads to
// EOF at its own pace, which arrives once every process holding the
// child's ends has exited.
func StartPiped(cmd *exec.Cmd) (Piped, error) {
	marker := PrepareCmd(cmd)
	var files []*os.File
	fail := func(err error) (Piped, error) {
		for _, f := range files {
			f.Close()
		}
		return Piped{}, err
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return fail(err)
	}
	outR, outW, err := pipe()
	if err != nil {
		return fail(err)
	}
	errR, errW, err := pipe()
	if err != nil {
		return fail(err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	tree, err := StartTree(cmd, marker)
	if err != nil {
		return fail(err)
	}
	// The child holds its own copies now; ours must go so that EOF arrives
	// when the child's do.
	inR.Close()
	outW.Close()
	errW.Close()
	return Piped{Stdin: inW, Stdout: outR, Stderr: errR, Tree: tree}, nil
}

// TailBuffer is an io.Writer that keeps the last Max bytes written to it:
// the end of a child's stderr, which explains a failure. It is safe for
// concurrent use.
type TailBuffer struct {
	// Max is how many bytes are kept; it must be set before the first Write.
	Max int

	mu    sync.Mutex
	buf   []byte // the last 2*Max bytes at most; the last Max are kept
	total int64
}

// Write implements io.Writer; it never fails.
func (t *TailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(len(p))
	if t.Max <= 0 {
		return len(p), nil
	}
	if len(p) >= t.Max {
		t.buf = append(t.buf[:0], p[len(p)-t.Max:]...)
		return len(p), nil
	}
	// Trimming only once twice Max has piled up keeps writes amortised
	// linear.
	if len(t.buf)+len(p) > 2*t.Max {
		n := copy(t.buf, t.buf[len(t.buf)-(t.Max-len(p)):])
		t.buf = t.buf[:n]
	}
	t.buf = append(t.buf, p...)
	return len(p), nil
}

// Bytes returns a copy of the last Max bytes written, or fewer when fewer
// were.
func (t *TailBuffer) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.buf[max(0, len(t.buf)-t.Max):]...)
}

// Total is how many bytes were written in all.
func (t *TailBuffer) Total() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total
}

// Text returns what is kept as clean text (termtext.Strip), trimmed: when
// earlier bytes were dropped, the first line, which the cut probably
// split, is dropped too unless it is the only one.
func (t *TailBuffer) Text() string {
	b := t.Bytes()
	if t.Total() > int64(len(b)) {
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < len(b)-1 {
			b = b[i+1:]
		}
	}
	return strings.TrimSpace(termtext.Strip(string(b)))
}

// ExitDescription says how a child process ended: "exit status 3" or
// "killed by signal killed"; "" when ps is nil (it has not been waited for).
func ExitDescription(ps *os.ProcessState) string {
	if ps == nil {
		return ""
	}
	if sig, ok := ExitSignal(ps); ok {
		return "killed by signal " + sig.String()
	}
	return fmt.Sprintf("exit status %d", ps.ExitCode())
}

// ExitSignal returns the signal that ended the process, if one did.
func ExitSignal(ps *os.ProcessState) (syscall.Signal, bool) {
	if ps == nil {
		return 0, false
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return 0, false
	}
	return ws.Signal(), true
}
