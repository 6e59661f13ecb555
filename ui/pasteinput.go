package ui

import (
	"bytes"
	"io"
	"os"
	"sync"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
)

// Bracketed paste: the terminal sends a paste between these two markers.
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// ttyFile is what Bubble Tea needs of a terminal to put it in raw mode and
// to cancel a read (before running an external editor, say).
type ttyFile interface {
	io.ReadWriteCloser
	Fd() uintptr
	Name() string
}

// pasteReader reads the terminal for Bubble Tea and takes bracketed pastes
// out of the stream itself. Bubble Tea reads 256 bytes at a time and, until
// a paste's end marker arrives, copies and searches again everything read
// so far: a paste of n bytes costs it n²/256 (tens of seconds for 2.5 MB).
// Here a paste is collected once, put in a queue, and an empty bracketed paste
// takes its place in the stream, so it keeps its order among the keys; the
// model takes the text from the queue (see takePaste).
//
// Nothing read from the terminal is held back when Read returns, except
// what more input is sure to follow: the part of a paste whose end has not
// come yet, or the start of a marker cut by a full read. Bubble Tea waits
// for the terminal to be readable before it calls Read again, and only
// that input makes it so.
type pasteReader struct {
	f       io.Reader
	q       *pasteQueue
	in      bool   // inside a paste
	body    []byte // the paste so far
	partial []byte // a start marker cut by the end of a read
	scratch []byte
}

func newPasteReader(f io.Reader) *pasteReader {
	return &pasteReader{f: f, q: &pasteQueue{}}
}

// input is the reader for Bubble Tea: a terminal stays a terminal.
func (r *pasteReader) input() io.Reader {
	if f, ok := r.f.(ttyFile); ok {
		return pasteFile{r, f}
	}
	return r
}

type pasteFile struct {
	*pasteReader
	f ttyFile
}

func (p pasteFile) Write(b []byte) (int, error) { return p.f.Write(b) }
func (p pasteFile) Close() error                { return p.f.Close() }
func (p pasteFile) Fd() uintptr                 { return p.f.Fd() }
func (p pasteFile) Name() string                { return p.f.Name() }

// File is the terminal itself, for a command run in the TUI's place
// (ttyExec); nil when it is no *os.File.
func (p pasteFile) File() *os.File {
	f, _ := p.f.(*os.File)
	return f
}

// Read passes the terminal's bytes on, each paste replaced by an empty one
// (which is never longer). Inside a paste it reads at most len(p)-12 bytes
// at a time, so that what the paste's end leaves (an empty paste and the
// bytes read after the end) fits in p.
func (r *pasteReader) Read(p []byte) (int, error) {
	room := len(p) - len(pasteStart) - len(pasteEnd)
	if room < 1 {
		return r.f.Read(p)
	}
	if !r.in {
		k := copy(p, r.partial)
		r.partial = r.partial[:0]
		n, err := r.f.Read(p[k:])
		return r.keepPartial(p, r.scan(p, p[:k+n]), k+n == len(p)), err
	}
	if len(r.scratch) < room {
		r.scratch = make([]byte, room)
	}
	n, err := r.f.Read(r.scratch[:room])
	from := max(len(r.body)-len(pasteEnd)+1, 0)
	r.body = append(r.body, r.scratch[:n]...)
	i := bytes.Index(r.body[from:], []byte(pasteEnd))
	if i < 0 {
		// Nothing for Bubble Tea yet; it reads again when more comes.
		return 0, err
	}
	i += from
	rest := append([]byte(nil), r.body[i+len(pasteEnd):]...)
	r.finish(r.body[:i])
	out := copy(p, pasteStart+pasteEnd)
	return r.keepPartial(p, out+r.scan(p[out:], rest), n == room), err
}

// keepPartial keeps back the start of a start marker that p[:n] ends with
// after a full read: its rest is on the way (Bubble Tea waits for the rest
// of a sequence the same way). It returns what is left to pass on.
func (r *pasteReader) keepPartial(p []byte, n int, full bool) int {
	if !full || r.in {
		return n
	}
	t := partialPrefix(p[:n], pasteStart)
	r.partial = append(r.partial, p[n-t:n]...)
	return n - t
}

// partialPrefix is the length of the longest proper prefix of marker that
// b ends with.
func partialPrefix(b []byte, marker string) int {
	for k := len(marker) - 1; k >= 1; k-- {
		if bytes.HasSuffix(b, []byte(marker[:k])) {
			return k
		}
	}
	return 0
}

// scan writes data into dst (which may be data itself: it only shrinks),
// each complete paste queued and replaced by an empty one; a paste that
// has not ended yet is kept to be continued. It returns the bytes written.
func (r *pasteReader) scan(dst, data []byte) int {
	n := 0
	for {
		i := bytes.Index(data, []byte(pasteStart))
		if i < 0 {
			return n + copy(dst[n:], data)
		}
		n += copy(dst[n:], data[:i])
		data = data[i+len(pasteStart):]
		j := bytes.Index(data, []byte(pasteEnd))
		if j < 0 {
			r.in = true
			r.body = append(r.body[:0], data...)
			return n
		}
		r.finish(data[:j])
		n += copy(dst[n:], pasteStart+pasteEnd)
		data = data[j+len(pasteEnd):]
	}
}

// finish queues a paste's text.
func (r *pasteReader) finish(text []byte) {
	r.q.push(string(text))
	r.in = false
	if cap(r.body) > 1<<20 {
		r.body = nil // a big paste's buffer is not kept
	} else {
		r.body = r.body[:0]
	}
}

// pasteQueue holds the pastes the reader took out of the stream, in order,
// for Update, which runs on another goroutine.
type pasteQueue struct {
	mu    sync.Mutex
	texts []string
}

func (q *pasteQueue) push(s string) {
	q.mu.Lock()
	q.texts = append(q.texts, s)
	q.mu.Unlock()
}

func (q *pasteQueue) pop() (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.texts) == 0 {
		return "", false
	}
	s := q.texts[0]
	q.texts[0] = ""
	q.texts = q.texts[1:]
	return s, true
}

// takePaste gives an empty paste the text the reader queued for it, as
// Bubble Tea would have delivered it: runes, invalid bytes dropped.
func takePaste(q *pasteQueue, k tea.KeyMsg) tea.KeyMsg {
	if q == nil || !k.Paste || len(k.Runes) > 0 {
		return k
	}
	s, ok := q.pop()
	if !ok {
		return k
	}
	runes := make([]rune, 0, utf8.RuneCountInString(s))
	for _, c := range s {
		if c != utf8.RuneError {
			runes = append(runes, c)
		}
	}
	k.Runes = runes
	return k
}
