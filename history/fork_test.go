package history

import (
	"encoding/json"
	"testing"
)

func TestForkCopiesTheTranscriptAndKeepsJournalsApart(t *testing.T) {
	store := NewStore(t.TempDir())
	ws := t.TempDir()
	src, err := store.NewSession(ws, "m")
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"one", "two", "three"} {
		if err := src.Append("message", map[string]string{"role": "user", "content": text}); err != nil {
			t.Fatal(err)
		}
	}
	if err := src.SetTitle("one"); err != nil {
		t.Fatal(err)
	}
	srcJ, err := src.Journal()
	if err != nil {
		t.Fatal(err)
	}
	if err := srcJ.Begin(Entry{CallID: "c1", Tool: "fs_write", Reversible: true, Undo: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := srcJ.Commit("c1", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}

	fork, err := store.Fork(src, 2)
	if err != nil {
		t.Fatal(err)
	}
	info := fork.Info()
	if info.Parent != src.Info().ID || info.ID == src.Info().ID || info.Title != "one" || info.Workspace != src.Info().Workspace {
		t.Fatalf("fork info = %+v", info)
	}
	recs, _, err := fork.Records()
	if err != nil || len(recs) != 2 {
		t.Fatalf("fork has %d records (%v), want the first 2", len(recs), err)
	}
	var m map[string]string
	json.Unmarshal(recs[1].Data, &m)
	if m["content"] != "two" {
		t.Errorf("second record = %v", m)
	}
	forkJ, err := fork.Journal()
	if err != nil {
		t.Fatal(err)
	}
	if forkJ.Depth() != 0 {
		t.Errorf("the fork's journal starts empty, has depth %d", forkJ.Depth())
	}
	if err := fork.Append("message", map[string]string{"role": "user", "content": "fork only"}); err != nil {
		t.Fatal(err)
	}
	srcRecs, _, _ := src.Records()
	if len(srcRecs) != 3 {
		t.Errorf("the original changed: %d records", len(srcRecs))
	}
	if srcJ.Depth() != 1 {
		t.Errorf("the original journal changed: depth %d", srcJ.Depth())
	}
	// Reopened from disk, the fork keeps its parent.
	again, err := store.OpenSession(info.ID)
	if err != nil || again.Info().Parent != src.Info().ID {
		t.Fatalf("reopened fork: %+v, %v", again.Info(), err)
	}

	whole, err := store.Fork(src, -1)
	if err != nil {
		t.Fatal(err)
	}
	if recs, _, _ := whole.Records(); len(recs) != 3 {
		t.Errorf("a whole fork has %d records, want 3", len(recs))
	}
}
