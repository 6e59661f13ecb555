package builtin

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"myclaw/tools"
	"myclaw/tools/proc"
)

// shellCapture keeps the first half bytes of a stream and the last half
// bytes after them, counts the total, and copies everything to the log.
type shellCapture struct {
	half  int
	head  []byte
	tail  proc.TailBuffer // the bytes after head
	total int64
	log   *shellLog
	// progress, when set, sees the output as it comes (for the screen).
	progress func([]byte)
}

// newShellCapture returns a capture that keeps half bytes at each end of
// its stream and copies all of it to log (which may be nil).
func newShellCapture(half int, log *shellLog) *shellCapture {
	return &shellCapture{half: half, tail: proc.TailBuffer{Max: half}, log: log}
}

// Write implements io.Writer. os/exec calls it from one goroutine per stream.
func (c *shellCapture) Write(p []byte) (int, error) {
	c.log.write(p)
	if c.progress != nil {
		c.progress(p)
	}
	c.total += int64(len(p))
	rest := p
	if len(c.head) < c.half {
		n := min(c.half-len(c.head), len(rest))
		c.head = append(c.head, rest[:n]...)
		rest = rest[n:]
	}
	if len(rest) > 0 {
		_, _ = c.tail.Write(rest)
	}
	return len(p), nil
}

// show returns the stream within budget bytes (at most 2*half) and a note
// when it had to cut.
func (c *shellCapture) show(name string, budget int) (string, string) {
	tail := c.tail.Bytes()
	if c.total <= int64(budget) {
		return string(c.head) + string(tail), ""
	}
	headN := budget / 2
	tailN := budget - headN
	head := tools.CutUTF8(c.head, headN)
	tail = tail[max(0, len(tail)-tailN):]
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	omitted := c.total - int64(len(head)) - int64(len(tail))
	text := string(head) + fmt.Sprintf("\n[… %s omitted …]\n", tools.HumanSize(omitted)) + string(tail)
	note := fmt.Sprintf("%s: shown first %s and last %s of %s", name, tools.HumanSize(int64(len(head))), tools.HumanSize(int64(len(tail))), tools.HumanSize(c.total))
	return text, note
}

// shellBody lays out both streams within shellShownBytes: a stream that fits
// in half the budget is shown whole and leaves the rest to the other.
func shellBody(stdout, stderr *shellCapture, budget int) (string, string) {
	outB, errB := budget/2, budget/2
	switch {
	case stdout.total+stderr.total <= int64(budget):
		outB, errB = int(stdout.total), int(stderr.total)
	case stdout.total <= int64(budget/2):
		outB, errB = int(stdout.total), budget-int(stdout.total)
	case stderr.total <= int64(budget/2):
		outB, errB = budget-int(stderr.total), int(stderr.total)
	}
	outText, outNote := stdout.show("stdout", outB)
	errText, errNote := stderr.show("stderr", errB)
	var b strings.Builder
	if stdout.total > 0 {
		b.WriteString("[stdout]\n")
		b.WriteString(outText)
		if !strings.HasSuffix(outText, "\n") {
			b.WriteString("\n")
		}
	}
	if stderr.total > 0 {
		b.WriteString("[stderr]\n")
		b.WriteString(errText)
		if !strings.HasSuffix(errText, "\n") {
			b.WriteString("\n")
		}
	}
	if b.Len() == 0 {
		b.WriteString("(no output)\n")
	}
	var notes []string
	for _, n := range []string{outNote, errNote} {
		if n != "" {
			notes = append(notes, n)
		}
	}
	return b.String(), strings.Join(notes, "; ")
}

// shellLog is the full output of one call, both streams interleaved as they
// arrive. It is kept only when the shown output was cut. A nil *shellLog
// discards everything.
type shellLog struct {
	mu     sync.Mutex
	f      *os.File
	path   string
	n      int64
	capped bool
	err    error
}

func openShellLog(dir string) (*shellLog, error) {
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	path := filepath.Join(dir, time.Now().Format("20060102-150405")+"-"+hex.EncodeToString(b)+".log")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	return &shellLog{f: f, path: path}, nil
}

func (l *shellLog) write(p []byte) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil || l.capped {
		return
	}
	if room := shellLogCap - l.n; int64(len(p)) > room {
		p = p[:room]
		l.capped = true
	}
	n, err := l.f.Write(p)
	l.n += int64(n)
	l.err = err
}

// keep closes the log and returns its path ("" when there is no log).
func (l *shellLog) keep() (string, error) {
	if l == nil {
		return "", nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	err := errors.Join(l.err, l.f.Sync(), l.f.Close())
	if err != nil {
		os.Remove(l.path)
		return "", err
	}
	return l.path, nil
}

// discard closes and removes the log.
func (l *shellLog) discard() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.f.Close()
	os.Remove(l.path)
}
