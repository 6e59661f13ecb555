package history

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"myclaw/tools"
)

// Journal errors.
var (
	// ErrNothingToUndo is returned by Journal.Undo when no call is left to
	// revert or pass.
	ErrNothingToUndo = errors.New("nothing to undo")
	// ErrNothingToRedo is returned by Journal.Redo when no undone call can
	// be re-applied.
	ErrNothingToRedo = errors.New("nothing to redo")
	// ErrJournalClosed is returned by writes to a closed Journal.
	ErrJournalClosed = errors.New("journal is closed")
)

// Record operations. Each line of the journal is one of them; the state of
// every entry is the replay of its records in file order.
const (
	opBegin        = "begin"        // a reversible call is about to run (write-ahead)
	opCommit       = "commit"       // it ran; data: its final undo data
	opFail         = "fail"         // it reported an error and changed nothing
	opIrreversible = "irreversible" // a call whose effects cannot be undone ran
	opUndoBegin    = "undo-begin"   // Revert is about to run
	opUndoDone     = "undo-done"    // Revert succeeded; data: the redo data
	opUndoFail     = "undo-fail"    // Revert refused or failed; nothing changed
	opRedoBegin    = "redo-begin"   // Revert of the redo data is about to run
	opRedoDone     = "redo-done"    // it succeeded; data: the new undo data
	opRedoFail     = "redo-fail"    // it refused or failed; nothing changed
	opPass         = "pass"         // /undo said an irreversible call's effects stay
)

// record is one journal line before framing.
type record struct {
	Op     string          `json:"op"`
	Seq    int             `json:"seq"`
	CallID string          `json:"call_id,omitempty"`
	Time   time.Time       `json:"time"`
	Entry  *Entry          `json:"entry,omitempty"`
	Data   json.RawMessage `json:"data,omitempty"`
	Force  bool            `json:"force,omitempty"`
	Reason string          `json:"reason,omitempty"`
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// encodeRecord frames r as one line: {"rec":<json>,"crc":"<crc32c of json>"}.
// The line is assembled by hand so the checksummed bytes are exactly those
// written.
func encodeRecord(r record) ([]byte, error) {
	rec, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode %s record: %w", r.Op, err)
	}
	line := make([]byte, 0, len(rec)+32)
	line = append(line, `{"rec":`...)
	line = append(line, rec...)
	line = append(line, `,"crc":"`...)
	line = fmt.Appendf(line, "%08x", crc32.Checksum(rec, castagnoli))
	line = append(line, "\"}\n"...)
	return line, nil
}

// decodeRecord parses and verifies one framed line.
func decodeRecord(line []byte) (record, error) {
	var frame struct {
		Rec json.RawMessage `json:"rec"`
		CRC string          `json:"crc"`
	}
	if err := json.Unmarshal(line, &frame); err != nil {
		return record{}, errors.New("not a journal record")
	}
	want, err := strconv.ParseUint(frame.CRC, 16, 32)
	if err != nil || len(frame.CRC) != 8 || len(frame.Rec) == 0 {
		return record{}, errors.New("no valid checksum")
	}
	if got := crc32.Checksum(frame.Rec, castagnoli); uint64(got) != want {
		return record{}, fmt.Errorf("checksum mismatch (%08x, want %s)", got, frame.CRC)
	}
	var r record
	if err := json.Unmarshal(frame.Rec, &r); err != nil {
		return record{}, fmt.Errorf("bad record: %v", err)
	}
	return r, nil
}

// slot is an entry with the bookkeeping that is not part of Entry.
type slot struct {
	e Entry
	// redo is the redo data of an undone call.
	redo json.RawMessage
	// passed is set once /undo said an irreversible call's effects stay, so
	// the next /undo goes on to the calls before it.
	passed bool
	// inflight is opUndoBegin or opRedoBegin while a revert is under way:
	// if it stays set after a restart, the process stopped in the middle.
	inflight string
	force    bool
	// undoneAt is when the call was last undone, for redo across sessions.
	undoneAt time.Time
}

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

// transition checks that r is a valid next step and returns the change it
// makes. Loading and writing share it, so what is written is exactly what
// a later load replays.
func (j *Journal) transition(r record) (func(), error) {
	if r.Op == opBegin || r.Op == opIrreversible {
		if r.Entry == nil {
			return nil, fmt.Errorf("%s record of seq %d carries no entry", r.Op, r.Seq)
		}
		if r.Seq <= j.lastSeq() {
			return nil, fmt.Errorf("%s record of seq %d after seq %d", r.Op, r.Seq, j.lastSeq())
		}
		e := *r.Entry
		e.Seq, e.CallID = r.Seq, r.CallID
		if r.Op == opBegin {
			e.State, e.Reversible = StatePending, true
		} else {
			e.State, e.Reversible, e.Undo = StateIrreversible, false, nil
		}
		return func() {
			s := &slot{e: e}
			j.slots = append(j.slots, s)
			j.bySeq[e.Seq] = s
		}, nil
	}
	s := j.bySeq[r.Seq]
	if s == nil {
		return nil, fmt.Errorf("%s record of unknown seq %d", r.Op, r.Seq)
	}
	bad := func() (func(), error) {
		return nil, fmt.Errorf("%s record of call %d (%s) in state %s", r.Op, r.Seq, s.e.Tool, describeState(s))
	}
	switch r.Op {
	case opCommit:
		if s.e.State != StatePending || s.inflight != "" {
			return bad()
		}
		return func() {
			s.e.State = StateApplied
			if len(r.Data) > 0 {
				s.e.Undo = r.Data
			}
			j.redoStack = nil
		}, nil
	case opFail:
		if s.e.State != StatePending || s.inflight != "" {
			return bad()
		}
		return func() { s.e.State, s.e.Reason = StateFailed, r.Reason }, nil
	case opUndoBegin:
		if (s.e.State != StateApplied && s.e.State != StatePending) || s.inflight == opRedoBegin {
			return bad()
		}
		return func() { s.inflight, s.force = opUndoBegin, r.Force }, nil
	case opUndoDone:
		if s.inflight != opUndoBegin {
			return bad()
		}
		return func() {
			s.e.State, s.e.Redone, s.redo, s.inflight, s.force = StateUndone, false, r.Data, "", false
			s.undoneAt = r.Time
			j.redoStack = append(j.redoStack, s.e.Seq)
		}, nil
	case opRedoBegin:
		if s.e.State != StateUndone || s.inflight == opUndoBegin || !j.redoTop(s.e.Seq) {
			return bad()
		}
		return func() { s.inflight = opRedoBegin }, nil
	case opRedoDone:
		if s.inflight != opRedoBegin {
			return bad()
		}
		return func() {
			s.e.State, s.e.Redone, s.e.Undo, s.redo, s.inflight = StateApplied, true, r.Data, nil, ""
			j.redoStack = j.redoStack[:len(j.redoStack)-1]
			// The call is back in front of the irreversible calls before
			// it: walking back past them again says so again.
			for _, o := range j.slots {
				if o.e.Seq < s.e.Seq && o.e.State == StateIrreversible {
					o.passed = false
				}
			}
		}, nil
	case opUndoFail, opRedoFail:
		want := opUndoBegin
		if r.Op == opRedoFail {
			want = opRedoBegin
		}
		if s.inflight != want {
			return bad()
		}
		return func() { s.inflight, s.force = "", false }, nil
	case opPass:
		if s.e.State != StateIrreversible || s.passed {
			return bad()
		}
		return func() { s.passed = true }, nil
	}
	return nil, fmt.Errorf("unknown record %q of seq %d", r.Op, r.Seq)
}

func (j *Journal) redoTop(seq int) bool {
	return len(j.redoStack) > 0 && j.redoStack[len(j.redoStack)-1] == seq
}

func describeState(s *slot) string {
	switch {
	case s.inflight == opUndoBegin:
		return string(s.e.State) + " (undo under way)"
	case s.inflight == opRedoBegin:
		return string(s.e.State) + " (redo under way)"
	case s.passed:
		return string(s.e.State) + " (passed)"
	}
	return string(s.e.State)
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

// Depth returns how many calls /undo can revert: the applied and pending
// reversible ones.
func (j *Journal) Depth() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := 0
	for _, s := range j.slots {
		if undoable(s) {
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

// Resolver finds the Reverter of a tool by display name.
type Resolver func(tool string) (tools.Reverter, bool)

// RegistryResolver resolves tools registered in reg that implement
// tools.Reverter.
func RegistryResolver(reg *tools.Registry) Resolver {
	return func(tool string) (tools.Reverter, bool) {
		t, ok := reg.Lookup(tool)
		if !ok {
			return nil, false
		}
		r, ok := t.(tools.Reverter)
		return r, ok
	}
}

// Outcome is what Undo or Redo did with one call.
type Outcome struct {
	// Entry is the call, in its state after the attempt.
	Entry Entry
	// Done is set when the call was reverted (Undo) or re-applied (Redo).
	Done bool
	// Skipped is set when an irreversible call was passed over: its effects
	// stay.
	Skipped bool
	// Err says why the call was not reverted or re-applied, e.g. a
	// *tools.Conflict.
	Err error
	// Message is one line for people.
	Message string
	// Session is, from UndoNewest and RedoNewest, the session whose
	// journal holds the call.
	Session string
}

// Undo reverts the newest n undoable calls, newest first, and stops at the
// first refusal or failure (nothing older is touched). A pending call
// counts as applied: reverting a change that never happened is a no-op.
//
// Irreversible calls in the way are stepped over: each one not yet passed
// gets a Skipped outcome saying that its effects stay (before the call
// reverted past it) and is marked passed, so it is said once. When nothing
// undoable is left, the Skipped outcomes come with ErrNothingToUndo and
// nothing is marked.
//
// Each revert is journaled: undo-begin before Revert is called, undo-done
// (with the redo data) or undo-fail after. force is handed to Revert. The
// error is for a broken journal, a cancelled ctx or bad arguments, and
// ErrNothingToUndo when nothing is left; refusals are in the outcomes.
func (j *Journal) Undo(ctx context.Context, n int, force bool, resolve Resolver) ([]Outcome, error) {
	if n < 1 {
		return nil, fmt.Errorf("undo: the number of calls must be at least 1, got %d", n)
	}
	if resolve == nil {
		return nil, errors.New("undo: no resolver for the tools' reverters")
	}
	var outs []Outcome
	err := j.mutate(func() error {
		done := 0
		var skipped []*slot
		for i := len(j.slots) - 1; i >= 0 && done < n; i-- {
			s := j.slots[i]
			if s.e.State == StateIrreversible && !s.passed {
				skipped = append(skipped, s)
				continue
			}
			if !undoable(s) {
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			for _, p := range skipped {
				if err := j.append(record{Op: opPass, Seq: p.e.Seq, CallID: p.e.CallID}); err != nil {
					return err
				}
				outs = append(outs, Outcome{Entry: p.e, Skipped: true, Message: passMessage(p.e)})
			}
			skipped = nil
			out, err := j.run(ctx, s, false, force, false, resolve)
			if out != nil {
				outs = append(outs, *out)
			}
			if err != nil || !out.Done {
				return err
			}
			done++
		}
		if done == 0 {
			for _, p := range skipped {
				outs = append(outs, Outcome{Entry: p.e, Skipped: true, Message: passMessage(p.e)})
			}
			return ErrNothingToUndo
		}
		return nil
	})
	return outs, err
}

// Redo re-applies the newest n undone calls, the most recently undone
// first, journaled like Undo (redo-begin, then redo-done or redo-fail). It
// stops at the first refusal: a file changed since the undo is never
// overwritten. Errors are as for Undo, with ErrNothingToRedo.
func (j *Journal) Redo(ctx context.Context, n int, resolve Resolver) ([]Outcome, error) {
	if n < 1 {
		return nil, fmt.Errorf("redo: the number of calls must be at least 1, got %d", n)
	}
	if resolve == nil {
		return nil, errors.New("redo: no resolver for the tools' reverters")
	}
	var outs []Outcome
	err := j.mutate(func() error {
		if len(j.redoStack) == 0 {
			return ErrNothingToRedo
		}
		for done := 0; done < n && len(j.redoStack) > 0; done++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			s := j.bySeq[j.redoStack[len(j.redoStack)-1]]
			out, err := j.run(ctx, s, true, false, false, resolve)
			if out != nil {
				outs = append(outs, *out)
			}
			if err != nil || !out.Done {
				return err
			}
		}
		return nil
	})
	return outs, err
}

// Recover finishes what a crash interrupted. An undo or redo that was begun
// and never recorded as done is run again (Revert does nothing when the
// state is already the one it restores) and completed, or recorded as
// failed if it now refuses. A call begun and never committed stays
// StatePending; it is reported, since the change may or may not have
// happened, and undoing it is safe. Recover returns one line for people per
// thing found.
func (j *Journal) Recover(ctx context.Context, resolve Resolver) ([]string, error) {
	if resolve == nil {
		return nil, errors.New("recover: no resolver for the tools' reverters")
	}
	var lines []string
	err := j.mutate(func() error {
		for _, s := range j.slots {
			if s.inflight == "" {
				if s.e.State == StatePending {
					lines = append(lines, fmt.Sprintf("%s was interrupted before its result was recorded; /undo reverts it safely", label(s.e)))
				}
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			redo := s.inflight == opRedoBegin
			what := "undo"
			if redo {
				what = "redo"
			}
			out, err := j.run(ctx, s, redo, s.force, true, resolve)
			switch {
			case out == nil:
			case out.Done:
				lines = append(lines, fmt.Sprintf("Finished the interrupted %s of %s", what, label(s.e)))
			default:
				lines = append(lines, fmt.Sprintf("Could not finish the interrupted %s of %s: %v", what, label(s.e), out.Err))
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	return lines, err
}

// run reverts s (redo false) or re-applies it (redo true) through its
// tool's Reverter, journaling the begin record (unless resuming one a crash
// left) and the result. A refusal or tool failure is in the outcome; the
// error is for the journal. The outcome is nil only when the begin record
// could not be written.
func (j *Journal) run(ctx context.Context, s *slot, redo, force, resume bool, resolve Resolver) (*Outcome, error) {
	opBeginRec, opDone, opFailRec, data := opUndoBegin, opUndoDone, opUndoFail, s.e.Undo
	if redo {
		opBeginRec, opDone, opFailRec, data = opRedoBegin, opRedoDone, opRedoFail, s.redo
	}
	failed := func(err error) *Outcome {
		return &Outcome{Entry: s.e, Err: err, Message: failMessage(s.e, redo, err)}
	}
	rev, ok := resolve(s.e.Tool)
	if !ok || rev == nil {
		return failed(fmt.Errorf("the tool %s is not available to revert it", s.e.Tool)), nil
	}
	if len(data) == 0 {
		return failed(errors.New("no data to revert it with was recorded")), nil
	}
	if !resume {
		if err := j.append(record{Op: opBeginRec, Seq: s.e.Seq, CallID: s.e.CallID, Force: force}); err != nil {
			return nil, err
		}
	}
	next, rerr := rev.Revert(ctx, data, force)
	note := ""
	if rerr == nil && len(next) > 0 && !json.Valid(next) {
		// The revert happened, so the journal must say so; it cannot carry
		// data that is not JSON, so the way back is lost.
		next, note = nil, " (the tool returned unusable data for the way back, so it cannot be reverted again)"
	}
	if rerr != nil {
		if err := j.append(record{Op: opFailRec, Seq: s.e.Seq, CallID: s.e.CallID, Reason: rerr.Error()}); err != nil {
			return failed(rerr), err
		}
		return failed(rerr), nil
	}
	if err := j.append(record{Op: opDone, Seq: s.e.Seq, CallID: s.e.CallID, Data: next}); err != nil {
		return failed(err), err
	}
	msg := "Undid " + label(s.e)
	if redo {
		msg = "Redid " + label(s.e)
	} else if force {
		msg += " (forced)"
	}
	return &Outcome{Entry: s.e, Done: true, Message: msg + note}, nil
}

func label(e Entry) string {
	if e.Summary == "" {
		return e.Tool
	}
	return e.Tool + ": " + e.Summary
}

// passMessage names an irreversible call by its command when it has one:
// "skipped shell_run `go test ./...`: its effects stay".
func passMessage(e Entry) string {
	var args struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(e.Args, &args) == nil && strings.TrimSpace(args.Command) != "" {
		return fmt.Sprintf("skipped %s `%s`: its effects stay", e.Tool, tools.ClipOneLine(args.Command, 80))
	}
	if e.Summary == "" {
		return "skipped " + e.Tool + ": its effects stay"
	}
	return fmt.Sprintf("skipped %s (%s): its effects stay", e.Tool, e.Summary)
}

func failMessage(e Entry, redo bool, err error) string {
	var c *tools.Conflict
	switch {
	case errors.As(err, &c) && redo:
		return fmt.Sprintf("Refused to redo %s: %s changed since the undo (%s); it is left as it is.", label(e), c.What, c.Detail)
	case errors.As(err, &c):
		return fmt.Sprintf("Refused: %s changed since the call (%s). Use --force (or /undo --force) to undo anyway; the current version is kept so /redo can bring it back.", c.What, c.Detail)
	case redo:
		return fmt.Sprintf("Could not redo %s: %v", label(e), err)
	}
	return fmt.Sprintf("Could not undo %s: %v", label(e), err)
}
