package app

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/history"
)

// myclaw sessions leaves out the sessions with nothing in them (a run
// opened and quit at once), as --continue passes them over and /sessions
// does: they are nothing to continue.
func TestSessionsListLeavesOutEmptyOnes(t *testing.T) {
	stateHome, ws := t.TempDir(), t.TempDir()
	store := history.NewStore(filepath.Join(stateHome, "myclaw"))
	full, err := store.NewSession(ws, "m")
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	if err := full.Append("message", map[string]string{"role": "user", "content": "a prompt"}); err != nil {
		t.Fatal(err)
	}
	empty, err := store.NewSession(ws, "m")
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	resumeEnv(t, stateHome)
	var out bytes.Buffer
	if err := RunSessions(Options{Workspace: ws}, nil, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, full.Info().ID) || strings.Contains(got, empty.Info().ID) {
		t.Fatalf("myclaw sessions:\n%s\nwant %s listed and the empty %s left out", got, full.Info().ID, empty.Info().ID)
	}
	// A workspace with only an empty session has none to continue.
	other := t.TempDir()
	lone, err := store.NewSession(other, "m")
	if err != nil {
		t.Fatal(err)
	}
	defer lone.Close()
	out.Reset()
	if err := RunSessions(Options{Workspace: other}, nil, &out); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasPrefix(got, "No sessions in ") {
		t.Fatalf("myclaw sessions with only an empty one: %q", got)
	}
}
