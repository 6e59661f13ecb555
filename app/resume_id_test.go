package app

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"myclaw/history"
	"myclaw/internal/seedsession"
	"myclaw/ui"
)

// interruptUndo appends to the journal in dir the record an undo of its
// last reversible call writes before it reverts, and nothing after, as a
// crash leaves it; it returns that call.
func interruptUndo(t *testing.T, dir string) history.Entry {
	t.Helper()
	j, err := history.OpenJournal(filepath.Join(dir, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var last history.Entry
	for _, e := range j.Entries() {
		if e.Reversible && e.State == history.StateApplied {
			last = e
		}
	}
	j.Close()
	if last.Seq == 0 {
		t.Fatal("the seed journaled no reversible call")
	}
	rec, _ := json.Marshal(map[string]any{"op": "undo-begin", "seq": last.Seq, "call_id": last.CallID, "time": time.Now().UTC()})
	line := fmt.Sprintf(`{"rec":%s,"crc":"%08x"}`+"\n", rec, crc32.Checksum(rec, crc32.MakeTable(crc32.Castagnoli)))
	f, err := os.OpenFile(filepath.Join(dir, "journal.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(err)
	}
	return last
}

// wholeOf is the rest's turns and those shown, as the TUI ends up with.
func wholeOf(t *testing.T, shown []ui.Earlier, r ui.Rest) []ui.Earlier {
	t.Helper()
	if r.Err != nil || r.Whole || len(r.Before) == 0 {
		t.Fatalf("the rest: %d messages, whole %v, %v", len(r.Before), r.Whole, r.Err)
	}
	return append(append([]ui.Earlier(nil), r.Before...), shown...)
}

// /resume ID of a long session from a new one opens it as --session
// does: its last turns, the rest (and the journal, with its crash
// recovery) loading behind them, and the notice gives the count of
// messages once they are in. A fork of it opens from its end too.
func TestResumeIDOfALongSessionOpensFromItsEnd(t *testing.T) {
	stateHome, ws, dir := seedLong(t)
	id := filepath.Base(dir)
	last := interruptUndo(t, dir)
	notes := filepath.Join(ws, "notes.md")
	before, _ := os.ReadFile(notes)
	resumeEnv(t, stateHome)
	a, b, uo, err := startTUI(context.Background(), Options{Workspace: ws}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	if uo.Rest != nil || len(uo.Earlier) != 0 {
		t.Fatal("a new session is shown a conversation")
	}
	v, err := b.OpenSession(id)
	if err != nil {
		t.Fatal(err)
	}
	if v.Rest == nil || len(v.Earlier) == 0 || v.Earlier[0].Role != "user" {
		t.Fatalf("/resume is handed %d messages, rest %v; want the last turns from a prompt, the rest to load", len(v.Earlier), v.Rest != nil)
	}
	if !b.Loading() || strings.Contains(v.Notice, "earlier messages") || !strings.HasPrefix(v.Notice, "Resumed session "+id) {
		t.Fatalf("before the load: loading %v, notice %q", b.Loading(), v.Notice)
	}
	r := v.Rest()
	d, err := seedsession.Decode(filepath.Join(dir, "transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if list := wholeOf(t, v.Earlier, r); !reflect.DeepEqual(list, earlier(d.Messages, d.Calls)) {
		t.Fatal("the TUI is handed another conversation than the transcript's")
	}
	if want := fmt.Sprintf("Resumed session %s (%d earlier messages, last used ", id, len(d.Messages)); !strings.HasPrefix(r.Notice, want) || !strings.Contains(r.Notice, "/undo walks back its calls") {
		t.Fatalf("the notice once loaded is %q; want it to start %q", r.Notice, want)
	}
	said := false
	for _, n := range r.Notices {
		said = said || strings.HasPrefix(n.Text, "Finished the interrupted undo of "+last.Tool)
	}
	if !said {
		t.Fatalf("the load's notices %+v do not say the interrupted undo was finished", r.Notices)
	}
	if after, _ := os.ReadFile(notes); string(after) == string(before) {
		t.Fatal("notes.md was not reverted")
	}

	// /fork copies it whole and opens the copy from its end.
	f, err := b.Fork(0)
	if err != nil {
		t.Fatal(err)
	}
	if f.Rest == nil || !strings.Contains(f.Notice, "Forked session "+id) {
		t.Fatalf("the fork: rest %v, notice %q", f.Rest != nil, f.Notice)
	}
	fr := f.Rest()
	if list := wholeOf(t, f.Earlier, fr); !reflect.DeepEqual(list, earlier(d.Messages, d.Calls)) {
		t.Fatal("the fork shows another conversation than the session's")
	}
	if fr.Notice != "" {
		t.Fatalf("a fork's notice is replaced by %q", fr.Notice)
	}
}

// --continue of a long session marks its notice as the resume's, and the
// load gives it again with the count of messages.
func TestContinueGivesTheCountOnceLoaded(t *testing.T) {
	stateHome, ws, dir := seedLong(t)
	id := filepath.Base(dir)
	resumeEnv(t, stateHome)
	a, _, uo, err := startTUI(context.Background(), Options{Continue: true, Workspace: ws}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	var resumed []ui.Notice
	for _, n := range uo.Banner {
		if n.Resumed {
			resumed = append(resumed, n)
		}
	}
	if uo.Rest == nil || len(resumed) != 1 || strings.Contains(resumed[0].Text, "earlier messages") || !strings.HasPrefix(resumed[0].Text, "Resumed session "+id) {
		t.Fatalf("the banner's resume notices %+v (rest %v)", resumed, uo.Rest != nil)
	}
	r := uo.Rest()
	d, err := seedsession.Decode(filepath.Join(dir, "transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("Resumed session %s (%d earlier messages, last used ", id, len(d.Messages)); r.Err != nil || !strings.HasPrefix(r.Notice, want) {
		t.Fatalf("the notice once loaded is %q (%v); want it to start %q", r.Notice, r.Err, want)
	}
}

// --continue --fork of a long session copies it and opens the copy from
// its end, the rest loading behind the first frame.
func TestContinueForkOfALongSessionOpensFromItsEnd(t *testing.T) {
	stateHome, ws, dir := seedLong(t)
	id := filepath.Base(dir)
	resumeEnv(t, stateHome)
	a, _, uo, err := startTUI(context.Background(), Options{Continue: true, Fork: true, Workspace: ws}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	if info := a.session.Info(); info.ID == id || info.Parent != id {
		t.Fatalf("in session %s (parent %s); want a fork of %s", info.ID, info.Parent, id)
	}
	if uo.Rest == nil {
		t.Fatal("the fork of a long session is not opened from its end")
	}
	d, err := seedsession.Decode(filepath.Join(dir, "transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if list := wholeOf(t, uo.Earlier, uo.Rest()); !reflect.DeepEqual(list, earlier(d.Messages, d.Calls)) {
		t.Fatal("the fork shows another conversation than the session's")
	}
}
