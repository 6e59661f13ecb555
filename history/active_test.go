package history

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestHoldMarksASessionActiveUntilClose(t *testing.T) {
	store := NewStore(t.TempDir())
	ws := t.TempDir()
	first, err := store.NewSession(ws, "m")
	if err != nil {
		t.Fatal(err)
	}
	second, err := store.NewSession(ws, "m")
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if err := first.Hold(); err != nil {
		t.Fatal(err)
	}
	// The same session opened again (another process) cannot hold it.
	again, err := store.OpenSession(first.Info().ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := again.Hold(); err == nil {
		t.Fatal("a second Hold of a held session succeeded")
	}
	again.Close()
	active, err := store.Active(ws, second.Info().ID)
	if err != nil || len(active) != 1 || active[0].ID != first.Info().ID {
		t.Fatalf("Active = %v, %v; want the first session", active, err)
	}
	if active, _ := store.Active(t.TempDir(), ""); len(active) != 0 {
		t.Fatalf("another workspace sees %v", active)
	}
	// Closing (or the process dying) releases the lock; the file that stays
	// behind does not make the session look active.
	first.Close()
	if _, err := os.Stat(filepath.Join(first.Dir(), activeFile)); err != nil {
		t.Fatalf("the lock file should stay: %v", err)
	}
	if active, err := store.Active(ws, second.Info().ID); err != nil || len(active) != 0 {
		t.Fatalf("after Close, Active = %v, %v", active, err)
	}
}

func TestUndoNewestAcrossSessions(t *testing.T) {
	h1, h2 := newHarness(t), newHarness(t)
	clock := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	tick := func() time.Time { clock = clock.Add(time.Second); return clock }
	h1.j.now, h2.j.now = tick, tick
	h2.blobs, h2.w.blobs = h1.blobs, h1.blobs // one store, as in myclaw
	h1.write("a", "a.txt", "A")
	h2.write("b", "b.txt", "B")
	h1.write("c", "c.txt", "C")
	// Another process appends to the second journal after it was opened.
	other := h2.open()
	other.now = tick
	mine := h2.j
	h2.j = other
	h2.write("d", "d.txt", "D")
	h2.j = mine

	js := []SessionJournal{{"one", h1.j}, {"two", h2.j}}
	outs, err := UndoNewest(context.Background(), js, 3, false, h1.resolve)
	if err != nil || len(outs) != 3 {
		t.Fatalf("UndoNewest: %v, %v", outs, err)
	}
	var undone []string
	for _, o := range outs {
		if !o.Done {
			t.Fatalf("not done: %+v", o)
		}
		undone = append(undone, o.Entry.CallID)
	}
	if got := undone[0] + undone[1] + undone[2]; got != "dcb" {
		t.Fatalf("undid %v, want d, c, b (newest first across sessions)", undone)
	}
	for name, want := range map[string]bool{"a.txt": true, "b.txt": false, "c.txt": false, "d.txt": false} {
		dir := h2.dir
		if name == "a.txt" || name == "c.txt" {
			dir = h1.dir
		}
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", name, err == nil, want)
		}
	}
	merged := Merged(js)
	if len(merged) != 4 || merged[0].Session != "one" || merged[1].Session != "two" || merged[2].CallID != "c" || merged[3].Session != "two" {
		t.Fatalf("Merged = %+v", merged)
	}
	// Redo brings back the most recently undone first: b, then c.
	outs, err = RedoNewest(context.Background(), js, 2, h1.resolve)
	if err != nil || len(outs) != 2 || outs[0].Entry.CallID != "b" || outs[1].Entry.CallID != "c" {
		t.Fatalf("RedoNewest: %+v, %v", outs, err)
	}
	if _, err := UndoNewest(context.Background(), []SessionJournal{{"empty", newHarness(t).j}}, 1, false, h1.resolve); !errors.Is(err, ErrNothingToUndo) {
		t.Fatalf("empty: %v", err)
	}
}
