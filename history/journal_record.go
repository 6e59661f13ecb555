package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
	"time"
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

var (
	frameHead = []byte(`{"rec":`)
	crcHead   = []byte(`,"crc":"`)
)

// decodeRecord parses and verifies one framed line.
func decodeRecord(line []byte) (record, error) {
	if r, ok := fastRecord(line); ok {
		return r, nil
	}
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
		return record{}, fmt.Errorf("bad record: %w", err)
	}
	return r, nil
}

// fastRecord reads a line of the exact shape encodeRecord writes without
// decoding the frame as JSON (a session's journal is read whole when it
// is opened): the checksum covers the record's bytes, and the record is
// then decoded in full, so a line it accepts decodes the same through
// the frame. Anything else (ok false) is left to the full decoder.
func fastRecord(line []byte) (record, bool) {
	line = bytes.TrimRight(line, "\r\n")
	// {"rec":<record>,"crc":"xxxxxxxx"}
	const tail = len(`,"crc":"xxxxxxxx"}`)
	n := len(line)
	if n < len(frameHead)+tail || !bytes.HasPrefix(line, frameHead) || line[n-1] != '}' || line[n-2] != '"' ||
		!bytes.Equal(line[n-tail:n-tail+len(crcHead)], crcHead) {
		return record{}, false
	}
	rec, hex := line[len(frameHead):n-tail], line[n-10:n-2]
	want, err := strconv.ParseUint(string(hex), 16, 32)
	if err != nil || crc32.Checksum(rec, castagnoli) != uint32(want) {
		return record{}, false
	}
	var r record
	if json.Unmarshal(rec, &r) != nil {
		return record{}, false
	}
	return r, true
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
