package agent

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/sashabaranov/go-openai"

	"myclaw/history"
)

// A long session is resumed from its end: PreloadTail reads the last turns
// (tailPrompts prompts, or tailBytes of transcript, whichever comes first),
// which the first frame shows, and the rest of the transcript and the
// journal load behind it. Everything that needs the whole conversation
// (a turn, /undo, /compact, /fork, the context estimate) waits for it.
const (
	tailPrompts = 24
	tailBytes   = 1 << 20
)

// Tail is the end of a resumed session's conversation, decoded for the
// first frame: its last messages, and the call records among them.
type Tail struct {
	Messages []openai.ChatCompletionMessage
	Calls    []CallRecord
}

// PreloadTail starts reading the end of s's transcript. When that is the
// whole transcript, it goes on as Preload does; otherwise New makes s
// current from it and the rest loads when something needs it (LoadRest).
func PreloadTail(s *history.Session) *Preloaded {
	p := &Preloaded{s: s, done: make(chan struct{}), tailDone: make(chan struct{})}
	go func() {
		defer close(p.tailDone)
		records, warnings, whole, err := s.TailRecords(tailBytes, enoughPrompts, decodedKinds...)
		switch {
		case err != nil:
			p.tailErr = err
		case whole:
			// A short transcript, or one of a few big turns: loaded whole.
			p.begin(func() ([]history.Record, []string, error) { return records, warnings, nil })
		case lastCompaction(records) == "uncompact":
			// A compaction undone puts back messages from before it,
			// which the end does not hold: the whole is read.
			p.begin(func() ([]history.Record, []string, error) { return s.RecordsDecoding(decodedKinds...) })
		default:
			p.tail = tailOf(records)
		}
	}()
	return p
}

// Tail returns the end of the conversation PreloadTail read, when the
// transcript goes on before it; ok is false when it was read whole.
func (p *Preloaded) Tail() (t Tail, ok bool) {
	if p == nil || p.tailDone == nil {
		return Tail{}, false
	}
	<-p.tailDone
	if p.tail == nil {
		return Tail{}, false
	}
	return *p.tail, true
}

// enoughPrompts says whether records hold tailPrompts of the user's
// prompts (messages of role user: a few are myclaw's notes, which only
// makes the tail a little shorter).
func enoughPrompts(records []history.Record) bool {
	n := 0
	for _, r := range records {
		if r.Kind == "message" && bytes.HasPrefix(r.Data, []byte(`{"role":"user"`)) {
			n++
		}
	}
	return n >= tailPrompts
}

// tailOf replays the records of a transcript's end from its last
// compaction on (one before it would replace what the tail does not
// hold), so that its conversation is the end of the whole one.
func tailOf(records []history.Record) *Tail {
	for i := len(records) - 1; i >= 0; i-- {
		if k := records[i].Kind; k == "compaction" || k == "uncompact" {
			records = records[i+1:]
			break
		}
	}
	st := replayRecords(records, loadRecords(records), func(string) {})
	return &Tail{Messages: repairTranscript(st.msgs), Calls: st.calls}
}

// lastCompaction is the kind of the last compaction record of records
// ("compaction" or "uncompact"), or "".
func lastCompaction(records []history.Record) string {
	for i := len(records) - 1; i >= 0; i-- {
		if k := records[i].Kind; k == "compaction" || k == "uncompact" {
			return k
		}
	}
	return ""
}

// pendingLoad is the load of a session resumed from its end: the whole
// transcript, the journal and its crash recovery, run once, when first
// needed.
type pendingLoad struct {
	// p is what finishLoad reads, and lets go of: its records hold the
	// transcript as read.
	p       *Preloaded
	tail    Tail
	mu      sync.Mutex
	started bool
	closing bool
	done    chan struct{}
	// err is why the load failed; notes are what it skipped or recovered,
	// for people.
	err   error
	notes []string
	// msgs and calls are the conversation as the load made it, until
	// Loaded takes them: a turn sent meanwhile goes on from it.
	msgs  []openai.ChatCompletionMessage
	calls []CallRecord
}

// errClosing is the answer of a load that never started before Settle.
var errClosing = errors.New("myclaw is quitting: the session was not loaded")

// start starts the load unless Settle came first.
func (l *pendingLoad) start(a *Agent) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.started {
		if l.closing {
			return false
		}
		l.started = true
		go a.finishLoad(l)
	}
	return true
}

func (l *pendingLoad) finished() bool {
	select {
	case <-l.done:
		return true
	default:
		return false
	}
}

// finishLoad loads the whole session behind the first frame and makes it
// current: the journal is recovered before anything can use it.
func (a *Agent) finishLoad(l *pendingLoad) {
	defer close(l.done)
	p := l.p
	l.p = nil
	p.readAll()
	st, warnings, err := replay(p, a.opts.Logf)
	if err != nil {
		l.err = err
		a.opts.Logf("session %s: %v", p.s.Info().ID, err)
		return
	}
	l.notes = warnings
	if a.opts.Recover != nil {
		l.notes = append(l.notes, a.opts.Recover(st.j)...)
	}
	a.mu.Lock()
	if a.rest == l {
		a.apply(st)
		l.msgs, l.calls = st.msgs, st.calls
	}
	a.mu.Unlock()
}

// ready waits until the session is loaded whole, starting its load if it
// has not started, and returns why the load failed. Whatever needs the
// whole conversation or the journal calls it first, never holding a.mu.
func (a *Agent) ready() error {
	a.mu.Lock()
	l := a.rest
	a.mu.Unlock()
	if l == nil {
		return nil
	}
	if !l.start(a) {
		return errClosing
	}
	<-l.done
	return l.err
}

// whole is ready for what cannot go on without the whole session.
func (a *Agent) whole() error {
	if err := a.ready(); err != nil {
		return &UserError{Msg: "The session's earlier turns could not be loaded: " + err.Error() + ".", Hint: "Nothing was done. Quit and look at the session's files (the log says more), or /clear to start a new session."}
	}
	return nil
}

// LoadRest loads the part of a resumed session before its last turns, if
// it is not loaded yet, and waits for it. notes are the lines for people
// the load made (a corrupt line skipped, an undo a crash interrupted,
// finished); err is why it failed: the session cannot go on then.
// Nothing to load returns nothing.
func (a *Agent) LoadRest() (notes []string, err error) {
	if err := a.ready(); err != nil {
		return nil, fmt.Errorf("the session's earlier turns could not be loaded: %w", err)
	}
	a.mu.Lock()
	l := a.rest
	a.mu.Unlock()
	if l == nil {
		return nil, nil
	}
	return l.notes, nil
}

// Loaded waits for the load of a session resumed from its end and returns
// the conversation as it made it (messages, with the call records among
// them): what goes above the turns shown first, whatever a prompt sent
// meanwhile added since. It gives it once; later, or for a session loaded
// whole, it gives the conversation as it is now.
func (a *Agent) Loaded() ([]openai.ChatCompletionMessage, []CallRecord, error) {
	if _, err := a.LoadRest(); err != nil {
		return nil, nil, err
	}
	a.mu.Lock()
	l := a.rest
	var msgs []openai.ChatCompletionMessage
	var calls []CallRecord
	if l != nil && l.msgs != nil {
		msgs, calls = slices.Clone(l.msgs), slices.Clone(l.calls)
		l.msgs, l.calls = nil, nil
	}
	a.mu.Unlock()
	if msgs == nil {
		return a.Messages(), a.PastCalls(), nil
	}
	return msgs, calls, nil
}

// Tail is the end of the conversation the session was resumed from, when
// the rest loads behind the first frame (ok false otherwise).
func (a *Agent) Tail() (t Tail, ok bool) {
	a.mu.Lock()
	l := a.rest
	a.mu.Unlock()
	if l == nil {
		return Tail{}, false
	}
	return l.tail, true
}

// Loading reports whether the session is still loading behind the first
// frame.
func (a *Agent) Loading() bool {
	a.mu.Lock()
	l := a.rest
	a.mu.Unlock()
	return l != nil && !l.finished()
}

// loaded reports whether the session is loaded whole and well.
func (a *Agent) loaded() bool {
	a.mu.Lock()
	l := a.rest
	a.mu.Unlock()
	return l == nil || l.finished() && l.err == nil
}

// Settle is for quitting: a load under way is waited for (it may be
// finishing an interrupted undo), and one not started never starts.
func (a *Agent) Settle() {
	a.mu.Lock()
	l := a.rest
	a.mu.Unlock()
	if l == nil {
		return
	}
	l.mu.Lock()
	started := l.started
	l.closing = true
	l.mu.Unlock()
	if started {
		<-l.done
	}
}
