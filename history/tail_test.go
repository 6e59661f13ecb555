package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The end of a long transcript reads as the last records of a full read,
// grown until enough says so; a transcript read to its start is whole,
// with the full read's warnings.
func TestTailRecordsAreTheEndOfTheWhole(t *testing.T) {
	s := newTestStore(t)
	sess, err := s.NewSession("/ws", "m")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3000 {
		if err := sess.Append("message", map[string]any{"role": "user", "content": fmt.Sprint("prompt ", i, " ", strings.Repeat("x", 100))}); err != nil {
			t.Fatal(err)
		}
	}
	all, _, err := sess.Records()
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	tail, warnings, whole, err := sess.TailRecords(1<<30, func(rs []Record) bool {
		asked++
		return len(rs) >= 1000
	}, "message")
	if err != nil || whole || warnings != nil {
		t.Fatalf("tail: whole %v, warnings %v, %v", whole, warnings, err)
	}
	if asked < 2 || len(tail) < 1000 || len(tail) >= len(all) {
		t.Fatalf("%d records after %d reads; want the tail grown to 1,000 records", len(tail), asked)
	}
	if !reflect.DeepEqual(tail, all[len(all)-len(tail):]) {
		t.Fatal("the tail is not the end of the whole")
	}
	// The limit stops it short of enough.
	tail, _, whole, err = sess.TailRecords(100<<10, func([]Record) bool { return false }, "message")
	if err != nil || whole || len(tail) == 0 || len(tail) > 1000 {
		t.Fatalf("with a 100 KB limit: %d records, whole %v, %v", len(tail), whole, err)
	}
	// Read to its start, with a corrupt line: whole, and warned of.
	path := filepath.Join(sess.Dir(), transcriptFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data = append([]byte("{not json\n"), data...)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	tail, warnings, whole, err = sess.TailRecords(1<<30, func([]Record) bool { return false }, "message")
	if err != nil || !whole || len(tail) != len(all) || len(warnings) != 1 || !strings.Contains(warnings[0], "line 1 ") {
		t.Fatalf("read whole: %d records of %d, whole %v, warnings %q, %v", len(tail), len(all), whole, warnings, err)
	}
}

// A journal line of the shape encodeRecord writes is read without
// decoding its frame, as the full decode reads it; a line of another
// shape, or damaged, is left to the full decoder, which judges it.
func TestJournalFrameReadAsTheFullDecodeDoes(t *testing.T) {
	e := Entry{CallID: "c1", Tool: "fs_write", Args: json.RawMessage(`{"path":"a \"quoted\" \\ name","content":"x\ny"}`),
		Summary: "Write a", Time: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), Reversible: true, Undo: json.RawMessage(`{"before":null}`)}
	recs := []record{
		{Op: opBegin, Seq: 1, CallID: "c1", Entry: &e},
		{Op: opCommit, Seq: 1, CallID: "c1", Data: json.RawMessage(`{"x":[1,2,{"y":"z"}]}`)},
		{Op: opUndoFail, Seq: 1, CallID: "c1", Reason: "changed \"since\" ,\"crc\":\"00000000\"}"},
	}
	for _, r := range recs {
		line, err := encodeRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		fast, ok := fastRecord(line)
		if !ok {
			t.Fatalf("a written line is not read in the written shape: %s", line)
		}
		var frame struct {
			Rec json.RawMessage `json:"rec"`
		}
		if err := json.Unmarshal(line, &frame); err != nil {
			t.Fatal(err)
		}
		var full record
		if err := json.Unmarshal(frame.Rec, &full); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fast, full) {
			t.Fatalf("read %+v; the full decode reads %+v", fast, full)
		}
		// Spaces in the frame: not the written shape, still a record.
		spaced := bytes.Replace(line, []byte(`,"crc":"`), []byte(`, "crc": "`), 1)
		if _, ok := fastRecord(spaced); ok {
			t.Fatalf("a line of another shape is read in the written shape: %s", spaced)
		}
		if got, err := decodeRecord(spaced); err != nil || !reflect.DeepEqual(got, full) {
			t.Fatalf("the spaced line reads %+v, %v", got, err)
		}
		// One byte of the record changed: the checksum fails either way.
		damaged := bytes.Replace(line, []byte(`"seq":1`), []byte(`"seq":2`), 1)
		if _, ok := fastRecord(damaged); ok {
			t.Fatal("a damaged line is read")
		}
		if _, err := decodeRecord(damaged); err == nil || !strings.Contains(err.Error(), "checksum") {
			t.Fatalf("a damaged line decodes: %v", err)
		}
	}
}
