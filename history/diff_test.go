package history

import (
	"encoding/json"
	"strings"
	"testing"

	"myclaw/tools"
)

// A command that only made a script executable shows that in /diff, for
// the call and for the session, instead of no change at all.
func TestDiffShowsAModeChange(t *testing.T) {
	blobs := NewBlobs(t.TempDir())
	script, err := blobs.Put([]byte("#!/bin/sh\necho hi\n"))
	if err != nil {
		t.Fatal(err)
	}
	edited, err := blobs.Put([]byte("#!/bin/sh\necho hello\n"))
	if err != nil {
		t.Fatal(err)
	}
	undo := func(before, after string, bm, am uint32) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"changes": []tools.FileUndo{{
			Path:   "script.sh",
			Before: tools.FileState{Exists: true, SHA256: before, Mode: bm},
			After:  tools.FileState{Exists: true, SHA256: after, Mode: am},
		}}})
		return b
	}
	entries := []Entry{
		{Seq: 1, Tool: "shell_run", Reversible: true, State: StateApplied, Undo: undo(script, script, 0o644, 0o755)},
		{Seq: 2, Tool: "shell_run", Reversible: true, State: StateApplied, Undo: undo(script, edited, 0o755, 0o755)},
	}
	d, err := CallDiff(entries, 1, blobs)
	if err != nil {
		t.Fatal(err)
	}
	if want := "--- a/script.sh\n+++ b/script.sh\nmode 0644 → 0755\n"; d != want {
		t.Errorf("call diff %q; want %q", d, want)
	}
	d, err = SessionDiff(entries, blobs)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(d, "\n")
	if len(lines) < 4 || lines[2] != "mode 0644 → 0755" || !strings.HasPrefix(lines[3], "@@") || !strings.Contains(d, "+echo hello") {
		t.Errorf("session diff:\n%s\nwant the mode line between the header and the hunk", d)
	}
	d, _ = CallDiff(entries, 2, blobs)
	if strings.Contains(d, "mode") {
		t.Errorf("a diff with no mode change names one:\n%s", d)
	}
}
