package ui

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/agent"
)

// gcPercent reads the collector's GOGC.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// While a turn runs the collector's GOGC is turnGCPercent and Go code
// runs on turnProcs threads; when it ends, both are what they were. A
// GOGC the environment turned off stays off.
func TestTheRuntimeIsPacedDuringATurn(t *testing.T) {
	if keepProcs {
		t.Skip("GOMAXPROCS is set in the environment: it is kept")
	}
	paceTurn(false) // a turn another test left running
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	m := New(newFake(), Options{Workspace: "/work/project"})
	m = update(m, sizeMsg(80, 20))
	release := make(chan struct{})
	m, cmd := m.startRun("stream", func(ctx context.Context, emit func(agent.Event)) error {
		<-release
		return nil
	})
	if got := gcPercent(); got != turnGCPercent {
		t.Fatalf("GOGC during a turn = %d; want %d", got, turnGCPercent)
	}
	if got := runtime.GOMAXPROCS(0); got != turnProcs {
		t.Fatalf("GOMAXPROCS during a turn = %d; want %d", got, turnProcs)
	}
	cmds := cmd().(tea.BatchMsg)
	go cmds[0]()
	close(release)
	m = runCmd(t, m, cmds[1])
	if m.turn != nil {
		t.Fatal("the turn did not end")
	}
	if got := gcPercent(); got != 100 {
		t.Fatalf("GOGC after the turn = %d; want 100 back", got)
	}
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Fatalf("GOMAXPROCS after the turn = %d; want 2 back", got)
	}

	debug.SetGCPercent(-1)
	paceTurn(true)
	if got := gcPercent(); got != -1 {
		t.Errorf("GOGC=off became %d during a turn", got)
	}
	paceTurn(false)
	if got := gcPercent(); got != -1 {
		t.Errorf("GOGC=off became %d after a turn", got)
	}
}
