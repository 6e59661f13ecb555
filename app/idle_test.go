package app

import (
	"context"
	"path/filepath"
	"testing"

	"myclaw/internal/seedsession"
)

// A new session leaves no transcript's garbage behind its first frame, so
// nothing is collected and given back then (it would only cost CPU while
// the user reads the frame); a resumed one gives back what its load left,
// just after the frame or, resumed from its last turns, once the rest is
// in place.
func TestOnlyAResumedSessionGivesBackItsLoad(t *testing.T) {
	start := func(o Options) (bool, func() bool) {
		t.Helper()
		a, _, uo, err := startTUI(context.Background(), o, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(a.close)
		placed := func() bool { return uo.Rest != nil && uo.Rest().Placed != nil }
		return givesBackLoad(uo), placed
	}

	resumeEnv(t, t.TempDir())
	if now, placed := start(Options{Workspace: t.TempDir()}); now || placed() {
		t.Fatal("a new session gives back memory after its first frame")
	}

	stateHome, ws := t.TempDir(), t.TempDir()
	if _, err := seedsession.Seed(filepath.Join(stateHome, "myclaw"), ws, 2); err != nil {
		t.Fatal(err)
	}
	resumeEnv(t, stateHome)
	if now, _ := start(Options{Continue: true, Workspace: ws}); !now {
		t.Fatal("a resumed session keeps its load's garbage")
	}

	if testing.Short() {
		return
	}
	stateHome, ws, _ = seedLong(t)
	resumeEnv(t, stateHome)
	if now, placed := start(Options{Continue: true, Workspace: ws}); now || !placed() {
		t.Fatalf("a long session resumed from its end gives back just after the frame %v, once the rest is placed %v; want only the latter", now, placed())
	}
}
