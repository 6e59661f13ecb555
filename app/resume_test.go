package app

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"myclaw/agent"
	"myclaw/internal/seedsession"
)

// myclaw --continue on a seeded session hands the TUI the whole
// conversation, from the first prompt to the last answer, each call with
// its own record: the same list a plain decode of the transcript makes.
func TestContinueShowsTheWholeSession(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds a session of 50 turns, every record fsynced")
	}
	stateHome, ws := t.TempDir(), t.TempDir()
	id, err := seedsession.Seed(filepath.Join(stateHome, "myclaw"), ws, 50)
	if err != nil {
		t.Fatal(err)
	}
	resumeEnv(t, stateHome)
	a, _, uo, err := startTUI(context.Background(), Options{Continue: true, Workspace: ws}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	if got := a.session.Info().ID; got != id {
		t.Fatalf("resumed %s; want the seeded %s", got, id)
	}
	// The first frame shows the last turns, from a prompt on; the rest
	// comes behind it, to go above them.
	if uo.Rest == nil || len(uo.Earlier) == 0 || uo.Earlier[0].Role != "user" {
		t.Fatalf("the first frame is handed %d messages, rest %v; want the last turns from a prompt, the rest to load", len(uo.Earlier), uo.Rest != nil)
	}
	r := uo.Rest()
	if r.Err != nil || r.Whole || len(r.Before) == 0 {
		t.Fatalf("the rest: %d messages, whole %v, %v", len(r.Before), r.Whole, r.Err)
	}
	list := append(r.Before, uo.Earlier...)
	if len(list) == 0 || list[0].Role != "user" || !strings.HasPrefix(list[0].Text, seedsession.Prompt(0)) {
		t.Fatalf("the first turn is not first: %+v", list[:min(len(list), 1)])
	}
	if last := list[len(list)-1]; last.Role != "assistant" || last.Text != seedsession.Answer(49) {
		t.Fatalf("the last answer is not last: %+v", last)
	}
	cards := 0
	for _, e := range list {
		if e.Role != "tool" {
			continue
		}
		if e.Call == nil || e.Call.Result.Status != agent.StatusOK || e.Call.Result.Summary == "" || !strings.Contains(e.Text, e.Call.Result.Call.Tool) {
			t.Fatalf("a call without its record: %+v", e)
		}
		cards++
	}
	if cards != 41 {
		t.Fatalf("%d cards; want 41", cards)
	}
	d, err := seedsession.Decode(filepath.Join(stateHome, "myclaw", "sessions", id, "transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	msgs, calls := d.Messages, d.Calls
	if want := earlier(msgs, calls); !reflect.DeepEqual(list, want) {
		t.Fatal("the TUI is handed another conversation than the transcript's")
	}
}

// seedLong seeds a session of 50 turns (long enough to be resumed from
// its end) and returns its XDG_STATE_HOME, workspace and folder.
func seedLong(t *testing.T) (stateHome, ws, dir string) {
	t.Helper()
	if testing.Short() {
		t.Skip("seeds a session of 50 turns, every record fsynced")
	}
	stateHome, ws = t.TempDir(), t.TempDir()
	id, err := seedsession.Seed(filepath.Join(stateHome, "myclaw"), ws, 50)
	if err != nil {
		t.Fatal(err)
	}
	return stateHome, ws, filepath.Join(stateHome, "myclaw", "sessions", id)
}

// An undo a crash interrupted is finished when the session loads behind
// the first frame, before anything can run, and said.
func TestContinueRecoversAnInterruptedUndoBehindTheFrame(t *testing.T) {
	stateHome, ws, dir := seedLong(t)
	last := interruptUndo(t, dir)
	notes := filepath.Join(ws, "notes.md")
	before, _ := os.ReadFile(notes)
	resumeEnv(t, stateHome)
	a, _, uo, err := startTUI(context.Background(), Options{Continue: true, Workspace: ws}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	if uo.Rest == nil {
		t.Fatal("not resumed from the end")
	}
	want := "Finished the interrupted undo of " + last.Tool
	for _, n := range uo.Banner {
		if strings.Contains(n.Text, want) {
			t.Fatal("the journal was recovered before the first frame")
		}
	}
	r := uo.Rest()
	said := false
	for _, n := range r.Notices {
		said = said || strings.HasPrefix(n.Text, want)
	}
	if r.Err != nil || !said {
		t.Fatalf("the load's notices %+v, %v; want %q", r.Notices, r.Err, want)
	}
	if after, _ := os.ReadFile(notes); string(after) == string(before) {
		t.Fatal("notes.md was not reverted")
	}
}

// Quitting while the session loads, or before it started to, leaves its
// transcript and journal as they were.
func TestQuitDuringTheLoadLeavesTheSession(t *testing.T) {
	stateHome, ws, dir := seedLong(t)
	read := func() string {
		var b strings.Builder
		for _, f := range []string{"transcript.jsonl", "journal.jsonl"} {
			data, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			b.Write(data)
		}
		return b.String()
	}
	was := read()
	resumeEnv(t, stateHome)
	for _, load := range []bool{false, true} {
		a, b, uo, err := startTUI(context.Background(), Options{Continue: true, Workspace: ws}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if uo.Rest == nil {
			t.Fatal("not resumed from the end")
		}
		done := make(chan struct{})
		if load {
			go func() {
				defer close(done)
				_, _ = b.LoadRest()
			}()
		} else {
			close(done)
		}
		a.close()
		<-done
		if read() != was {
			t.Fatalf("load=%v: quitting changed the session's files", load)
		}
	}
}
