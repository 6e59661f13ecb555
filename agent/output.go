package agent

import (
	"sync"
	"time"

	"myclaw/tools/secret"
)

// Pace and size of the live output of a running call.
const (
	outputInterval = 150 * time.Millisecond
	outputKeep     = 4 << 10
)

// ToolOutputEvent carries what a running call printed since the last one
// (throttled, the newest outputKeep bytes at most), for the screen only:
// the result still carries the output the model reads. It is raw text with
// credentials redacted: sanitise it before drawing.
type ToolOutputEvent struct {
	CallID string `json:"call_id"`
	Text   string `json:"text"`
	// Progress, when set, is how far the call got ("3/10 · indexing"),
	// replacing the last one: one line, already cleaned.
	Progress string `json:"progress,omitempty"`
}

// Type implements Event.
func (ToolOutputEvent) Type() string { return "tool_output" }

// outputStream turns a tool's output into throttled ToolOutputEvents. Its
// write is called from the tool's goroutines; close ends it before the
// result is reported, so no output event follows the result.
type outputStream struct {
	id   string
	emit func(Event)

	mu     sync.Mutex
	buf    []byte
	note   string // the newest progress note not yet sent
	last   time.Time
	timer  *time.Timer
	closed bool
}

func newOutputStream(id string, emit func(Event)) *outputStream {
	return &outputStream{id: id, emit: emit}
}

func (o *outputStream) write(p []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	// Credentials are cut out before anything is dropped or sent, so that
	// no cut leaves a piece of one; the end of one still arriving is held
	// back (sendLocked).
	o.buf = append(o.buf, p...)
	if s := string(o.buf); secret.Redact(s) != s {
		o.buf = append(o.buf[:0], secret.Redact(s)...)
	}
	if len(o.buf) > outputKeep {
		o.buf = append(o.buf[:0], o.buf[len(o.buf)-outputKeep:]...)
	}
	o.scheduleLocked()
}

// progress records the newest progress note; like output, it is sent at
// most once per outputInterval, so a server that floods notifications
// costs one event per interval.
func (o *outputStream) progress(note string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || note == "" {
		return
	}
	o.note = note
	o.scheduleLocked()
}

func (o *outputStream) scheduleLocked() {
	if wait := outputInterval - time.Since(o.last); wait > 0 {
		if o.timer == nil {
			o.timer = time.AfterFunc(wait, o.flush)
		}
		return
	}
	o.sendLocked()
}

func (o *outputStream) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.timer = nil
	if !o.closed && (len(o.buf) > 0 || o.note != "") {
		o.sendLocked()
	}
}

func (o *outputStream) sendLocked() {
	o.last = time.Now()
	// What could be the beginning of a credential waits for the next piece
	// (or for the result, which is redacted whole).
	n := len(o.buf) - secret.Pending(string(o.buf))
	text, note := string(o.buf[:n]), o.note
	o.buf, o.note = append(o.buf[:0], o.buf[n:]...), ""
	if text == "" && note == "" {
		return
	}
	o.emit(ToolOutputEvent{CallID: o.id, Text: text, Progress: note})
}

func (o *outputStream) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	if o.timer != nil {
		o.timer.Stop()
	}
	if o.note != "" {
		// The newest note is the last word: after a preview the card
		// shows it while the call waits for approval.
		o.emit(ToolOutputEvent{CallID: o.id, Progress: o.note})
		o.note = ""
	}
}
