package ui

import (
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

var gcPace struct {
	sync.Mutex
	on    bool
	saved int
}

// paceGC raises the collector's GOGC for a running turn (on) or puts
// back what it was. A GOGC set higher, or off, by the environment is
// kept.
func paceGC(on bool) {
	gcPace.Lock()
	defer gcPace.Unlock()
	if on == gcPace.on {
		return
	}
	gcPace.on = on
	if !on {
		debug.SetGCPercent(gcPace.saved)
		return
	}
	gcPace.saved = debug.SetGCPercent(turnGCPercent)
	if gcPace.saved < 0 || gcPace.saved > turnGCPercent {
		debug.SetGCPercent(gcPace.saved)
	}
}
