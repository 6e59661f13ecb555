package history

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Journal is the undo journal of one session: an append-only file of
// checksummed JSON lines, each fsynced before the call that wrote it
// returns. A torn or corrupt last record (a crash mid-write) is ignored with
// a warning and cut off before the next append; a corrupt record in the
// middle is skipped with a warning naming its line.
//
// A Journal is safe for concurrent use. Writes take an exclusive advisory
// lock (flock) on the file for the duration of one operation and first read
// whatever another process appended meanwhile, so two myclaw processes on
// one session never interleave records, and each writes on top of the
// current state. Reads (Entries, Depth, RedoDepth) report the state as of
// the last open or write.
type Journal struct {
	mu   sync.Mutex
	path string
	f    *os.File
	now  func() time.Time

	slots []*slot
	bySeq map[int]*slot
	// redoStack holds the seqs of the undone calls that /redo can re-apply,
	// the most recently undone last.
	redoStack []int

	size   int64 // end of the last valid record
	end    int64 // size of the file as last read
	lines  int   // complete lines before size
	tornAt int64 // size when a torn tail was last reported, so it is said once

	warnings []string
	broken   error
	closed   bool
}

// OpenJournal opens the journal at path, creating it (and its directory)
// if needed, and loads its state.
func OpenJournal(path string) (*Journal, error) {
	if err := ensureDir(filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("open journal: %w", err)
	}
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, filePerm)
	if err != nil {
		return nil, fmt.Errorf("open journal: %w", err)
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		if err := syncDir(filepath.Dir(path)); err != nil {
			f.Close()
			return nil, fmt.Errorf("open journal: %w", err)
		}
	}
	j := &Journal{path: path, f: f, now: time.Now, bySeq: map[int]*slot{}, tornAt: -1}
	// A shared lock keeps a writer in another process from being caught
	// half-way through a record.
	if err := lockFile(f, false); err != nil {
		f.Close()
		return nil, fmt.Errorf("open journal: %w", err)
	}
	err = j.catchUp()
	if uerr := unlockFile(f); err == nil {
		err = uerr
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return j, nil
}

// Path returns the journal's file.
func (j *Journal) Path() string { return j.path }

// Close releases the file. Reads keep working on the last known state;
// writes fail with ErrJournalClosed.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return nil
	}
	j.closed = true
	return j.f.Close()
}

// Warnings lists what loading skipped, e.g. "ignored a torn record at the
// end of <path>".
func (j *Journal) Warnings() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]string(nil), j.warnings...)
}

func (j *Journal) warn(format string, args ...any) {
	j.warnings = append(j.warnings, fmt.Sprintf(format, args...))
}

// catchUp reads the records after the last valid one. Lines are complete
// only with their newline; complete lines that fail their checksum are
// skipped when valid records follow them, and otherwise are the torn tail.
func (j *Journal) catchUp() error {
	fi, err := j.f.Stat()
	if err != nil {
		return fmt.Errorf("read journal: %w", err)
	}
	if fi.Size() < j.size {
		return fmt.Errorf("journal %s shrank to %d bytes, below its %d bytes of valid records: another program changed it", j.path, fi.Size(), j.size)
	}
	r := bufio.NewReader(io.NewSectionReader(j.f, j.size, fi.Size()-j.size))
	off, lineNo := j.size, j.lines
	type badLine struct {
		n   int
		why error
	}
	var bad []badLine
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			break // a partial last line stays beyond j.size: the torn tail
		}
		if err != nil {
			return fmt.Errorf("read journal %s: %w", j.path, err)
		}
		off += int64(len(line))
		lineNo++
		rec, derr := decodeRecord(line)
		if derr != nil {
			bad = append(bad, badLine{lineNo, derr})
			continue
		}
		for _, b := range bad {
			j.warn("skipped a corrupt record at line %d of %s: %v", b.n, j.path, b.why)
		}
		bad = nil
		if apply, terr := j.transition(rec); terr != nil {
			j.warn("skipped record at line %d of %s: %v", lineNo, j.path, terr)
		} else {
			apply()
		}
		j.size, j.lines = off, lineNo
	}
	j.end = fi.Size()
	if j.end > j.size && j.tornAt != j.size {
		j.tornAt = j.size
		j.warn("ignored a torn record at the end of %s (%d bytes after line %d; removed before the next write)", j.path, j.end-j.size, j.lines)
	}
	return nil
}

// write appends one record durably: it cuts off a torn tail, writes the
// line and fsyncs. A failed write is rolled back so that the next one does
// not land after half a record.
func (j *Journal) write(line []byte) error {
	if j.end > j.size {
		if err := j.f.Truncate(j.size); err != nil {
			return fmt.Errorf("journal %s: remove torn record: %w", j.path, err)
		}
		j.end = j.size
	}
	_, err := j.f.WriteAt(line, j.size)
	if err == nil {
		err = j.f.Sync()
	}
	if err != nil {
		if terr := j.f.Truncate(j.size); terr != nil {
			j.broken = fmt.Errorf("journal %s is unusable: a failed write could not be rolled back: %w", j.path, terr)
		}
		return fmt.Errorf("journal %s: write: %w", j.path, err)
	}
	j.size += int64(len(line))
	j.end = j.size
	j.lines++
	return nil
}

// append validates r against the current state, writes it, and only then
// applies it, so the state in memory never runs ahead of the file. It
// applies the record as decoded from its line, so the state in memory is
// exactly what a later load rebuilds.
func (j *Journal) append(r record) error {
	r.Time = j.now().UTC()
	line, err := encodeRecord(r)
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	dec, err := decodeRecord(line)
	if err != nil {
		return fmt.Errorf("journal %s: %s record: %w", j.path, r.Op, err)
	}
	apply, err := j.transition(dec)
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	if err := j.write(line); err != nil {
		return err
	}
	apply()
	return nil
}

// mutate runs fn under the mutex and the file lock, on top of whatever
// another process appended since.
func (j *Journal) mutate(fn func() error) (err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return fmt.Errorf("%s: %w", j.path, ErrJournalClosed)
	}
	if j.broken != nil {
		return j.broken
	}
	if err := lockFile(j.f, true); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer func() {
		if uerr := unlockFile(j.f); err == nil {
			err = uerr
		}
	}()
	if err := j.catchUp(); err != nil {
		return err
	}
	return fn()
}

func (j *Journal) lastSeq() int {
	if len(j.slots) == 0 {
		return 0
	}
	return j.slots[len(j.slots)-1].e.Seq
}

// Begin journals a reversible call before it runs (write-ahead), with its
// CallID, Tool, Args, Summary, Time (now if zero) and Undo, the planned undo
// data of the dry run. The entry stays StatePending until Commit or Fail.
func (j *Journal) Begin(e Entry) error {
	if err := checkEntry("begin", e); err != nil {
		return err
	}
	if len(e.Undo) == 0 {
		return fmt.Errorf("begin %s %s: no undo data: a reversible call needs the undo data of its dry run", e.Tool, e.CallID)
	}
	if !json.Valid(e.Undo) {
		return fmt.Errorf("begin %s %s: undo data is not valid JSON", e.Tool, e.CallID)
	}
	return j.mutate(func() error {
		if s := j.pending(e.CallID); s != nil {
			return fmt.Errorf("begin %s: call %q is already journaled and has no result yet (seq %d)", e.Tool, e.CallID, s.e.Seq)
		}
		return j.appendEntry(opBegin, e)
	})
}

// Irreversible records a call whose effects cannot be undone (shell_run),
// so /history lists it and /undo says that its effects stay.
func (j *Journal) Irreversible(e Entry) error {
	if err := checkEntry("irreversible", e); err != nil {
		return err
	}
	return j.mutate(func() error { return j.appendEntry(opIrreversible, e) })
}

func checkEntry(op string, e Entry) error {
	switch {
	case e.CallID == "":
		return fmt.Errorf("%s %s: the call id is empty", op, e.Tool)
	case e.Tool == "":
		return fmt.Errorf("%s %s: the tool name is empty", op, e.CallID)
	case len(e.Args) > 0 && !json.Valid(e.Args):
		return fmt.Errorf("%s %s %s: args are not valid JSON", op, e.Tool, e.CallID)
	}
	return nil
}

func (j *Journal) appendEntry(op string, e Entry) error {
	if e.Time.IsZero() {
		e.Time = j.now()
	}
	seq := j.lastSeq() + 1
	return j.append(record{Op: op, Seq: seq, CallID: e.CallID, Entry: &e})
}

// pending returns the newest entry of callID that has no result yet.
func (j *Journal) pending(callID string) *slot {
	for i := len(j.slots) - 1; i >= 0; i-- {
		if s := j.slots[i]; s.e.CallID == callID && s.e.State == StatePending && s.inflight == "" {
			return s
		}
	}
	return nil
}

// Commit records that a begun call ran, with its final undo data (empty
// keeps the data given to Begin). The call becomes StateApplied, and the
// calls undone before it can no longer be redone.
func (j *Journal) Commit(callID string, undo json.RawMessage) error {
	if len(undo) > 0 && !json.Valid(undo) {
		return fmt.Errorf("commit %s: undo data is not valid JSON", callID)
	}
	return j.mutate(func() error {
		s := j.pending(callID)
		if s == nil {
			return fmt.Errorf("commit: no call %q is waiting for its result in %s", callID, j.path)
		}
		return j.append(record{Op: opCommit, Seq: s.e.Seq, CallID: callID, Data: undo})
	})
}

// Fail records that a begun call reported an error and so changed nothing
// that can be undone (StateFailed, with reason in Entry.Reason).
func (j *Journal) Fail(callID string, reason string) error {
	return j.mutate(func() error {
		s := j.pending(callID)
		if s == nil {
			return fmt.Errorf("fail: no call %q is waiting for its result in %s", callID, j.path)
		}
		return j.append(record{Op: opFail, Seq: s.e.Seq, CallID: callID, Reason: reason})
	})
}

// Entries returns every journaled call, oldest first, with its current
// State.
func (j *Journal) Entries() []Entry {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]Entry, len(j.slots))
	for i, s := range j.slots {
		out[i] = s.e
	}
	return out
}

// Depth returns how many steps /undo can take back: the applied and
// pending reversible calls, the calls of one group counting once.
func (j *Journal) Depth() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := 0
	groups := map[string]bool{}
	for _, s := range j.slots {
		switch {
		case !undoable(s):
		case s.e.Group == "":
			n++
		case !groups[s.e.Group]:
			groups[s.e.Group] = true
			n++
		}
	}
	return n
}

// RedoDepth returns how many undone calls /redo can re-apply.
func (j *Journal) RedoDepth() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.redoStack)
}

// Refresh reads what another process appended since the last read (an
// undo from a shell, another session's call), so that Entries and Depth
// tell the truth.
func (j *Journal) Refresh() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return fmt.Errorf("%s: %w", j.path, ErrJournalClosed)
	}
	if err := lockFile(j.f, false); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	err := j.catchUp()
	if uerr := unlockFile(j.f); err == nil {
		err = uerr
	}
	return err
}

// newestUndoable returns the time of the call Undo would revert first.
func (j *Journal) newestUndoable() (time.Time, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for i := len(j.slots) - 1; i >= 0; i-- {
		if undoable(j.slots[i]) {
			return j.slots[i].e.Time, true
		}
	}
	return time.Time{}, false
}

// lastUndone returns when the call Redo would re-apply first was undone.
func (j *Journal) lastUndone() (time.Time, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.redoStack) == 0 {
		return time.Time{}, false
	}
	return j.bySeq[j.redoStack[len(j.redoStack)-1]].undoneAt, true
}

func undoable(s *slot) bool {
	return s.e.Reversible && (s.e.State == StateApplied || s.e.State == StatePending)
}
