package ui

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// turnGCPercent is the collector's GOGC while a turn runs. Drawing an
// answer at a model's pace makes a few megabytes of short-lived garbage
// a second (each frame's render), over a live heap of a few megabytes:
// at the default of 100 the collector ran about twice a second, a tenth
// of the CPU of the stream. At 400 it runs a fifth as often, for a heap
// up to five times the live one while the turn runs; the default is put
// back when the turn ends.
const turnGCPercent = 400

// While a turn runs, Go code runs on one thread (GOMAXPROCS 1). A turn
// is a pipeline of small steps handed from goroutine to goroutine: the
// answer read and decoded, an event sent, the frame drawn, written to
// the terminal. With a second processor each hand-off wakes another
// thread, and at a model's pace that waking cost a fifth of the CPU of
// the stream; no step is long enough to gain from running beside
// another (commands run in processes of their own). Put back when the
// turn ends.
const turnProcs = 1

// keepProcs: GOMAXPROCS is set in the environment, and kept.
var keepProcs = os.Getenv("GOMAXPROCS") != ""

var turnPace struct {
	sync.Mutex
	on         bool
	savedGC    int
	savedProcs int
}

// paceTurn sets the runtime for a running turn (on) or puts back what it
// was. A GOGC set higher, or off, by the environment is kept, and so is
// a GOMAXPROCS the environment sets.
func paceTurn(on bool) {
	turnPace.Lock()
	defer turnPace.Unlock()
	if on == turnPace.on {
		return
	}
	turnPace.on = on
	if !on {
		debug.SetGCPercent(turnPace.savedGC)
		if turnPace.savedProcs > 0 {
			runtime.GOMAXPROCS(turnPace.savedProcs)
			turnPace.savedProcs = 0
		}
		return
	}
	turnPace.savedGC = debug.SetGCPercent(turnGCPercent)
	if turnPace.savedGC < 0 || turnPace.savedGC > turnGCPercent {
		debug.SetGCPercent(turnPace.savedGC)
	}
	if !keepProcs && runtime.GOMAXPROCS(0) > turnProcs {
		turnPace.savedProcs = runtime.GOMAXPROCS(turnProcs)
	}
}
