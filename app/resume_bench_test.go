package app

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"myclaw/internal/seedsession"
	"myclaw/ui"
)

// seedTurns is the length of the session the resume benchmarks resume.
const seedTurns = 1000

var seed struct {
	once          sync.Once
	root, ws, err string
}

// seeded writes a session of seedTurns turns once per test binary (the
// agent writes it for real, fsyncing every record: it takes a while) and
// returns the XDG_STATE_HOME that holds it and its workspace.
func seeded(tb testing.TB) (stateHome, ws string) {
	seed.once.Do(func() {
		root, err := os.MkdirTemp("", "myclaw-resume-seed-")
		if err != nil {
			seed.err = err.Error()
			return
		}
		seed.root, seed.ws = root, filepath.Join(root, "ws")
		if err := os.Mkdir(seed.ws, 0o700); err != nil {
			seed.err = err.Error()
			return
		}
		if _, err := seedsession.Seed(filepath.Join(root, "state", "myclaw"), seed.ws, seedTurns); err != nil {
			seed.err = err.Error()
		}
	})
	if seed.err != "" {
		tb.Fatal(seed.err)
	}
	return filepath.Join(seed.root, "state"), seed.ws
}

// resumeEnv points myclaw's state at stateHome, with an empty config and
// a model server that is never reached (nothing before the first frame
// talks to it).
func resumeEnv(tb testing.TB, stateHome string) {
	for k, v := range map[string]string{
		"XDG_STATE_HOME":  stateHome,
		"XDG_CONFIG_HOME": tb.TempDir(),
		"HOME":            tb.TempDir(),
		"OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
	} {
		tb.Setenv(k, v)
	}
}

// BenchmarkResumeStart times what comes before the TUI's first frame
// when resuming a session of 1,000 turns (goal, with the frame: ≤ 100 ms
// past a fresh session's start), next to a fresh session's; rest1000 adds
// the load of the turns before the last, which runs behind the frame.
func BenchmarkResumeStart(b *testing.B) {
	stateHome, ws := seeded(b)
	b.Run("resume1000", func(b *testing.B) {
		resumeEnv(b, stateHome)
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			a, _, uo, err := startTUI(context.Background(), Options{Continue: true, Workspace: ws}, nil)
			if err != nil {
				b.Fatal(err)
			}
			if len(uo.Earlier) == 0 || uo.Rest == nil {
				b.Fatalf("%d earlier messages, rest %v; want the last turns, the rest to load", len(uo.Earlier), uo.Rest != nil)
			}
			a.close()
		}
	})
	b.Run("rest1000", func(b *testing.B) {
		resumeEnv(b, stateHome)
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			a, _, uo, err := startTUI(context.Background(), Options{Continue: true, Workspace: ws}, nil)
			if err != nil {
				b.Fatal(err)
			}
			r := uo.Rest()
			if r.Err != nil || r.Whole || len(r.Before)+len(uo.Earlier) < 3*seedTurns {
				b.Fatalf("the rest: %d earlier messages, whole %v, %v; want every turn", len(r.Before), r.Whole, r.Err)
			}
			a.close()
		}
	})
	b.Run("fresh", func(b *testing.B) {
		resumeEnv(b, b.TempDir())
		fresh := b.TempDir()
		b.ReportAllocs()
		defer reportCPU(b)()
		for b.Loop() {
			a, _, uo, err := startTUI(context.Background(), Options{Workspace: fresh}, nil)
			if err != nil {
				b.Fatal(err)
			}
			if len(uo.Earlier) != 0 {
				b.Fatal("a fresh session has earlier messages")
			}
			a.close()
		}
	})
}

// reportCPU reports the CPU time of the process per op, every core and
// the garbage collector included: on a loaded machine it says more than
// the wall time. Call the function it returns when the loop is done.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64((cpuTime()-start)/time.Microsecond)/1000/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkResumeHeap reports the heap a resumed session of 1,000 turns
// keeps before the TUI starts (the agent's conversation and call records,
// what the TUI is handed), per turn, past a fresh session's: with the
// TUI's own part (ui's BenchmarkResumeMemory) it makes the memory per kept
// turn (goal: ≤ 10 KB).
func BenchmarkResumeHeap(b *testing.B) {
	stateHome, ws := seeded(b)
	resumeEnv(b, stateHome)
	fresh := b.TempDir()
	kept := func(o Options) (int64, func()) {
		before := heapInUse()
		a, bk, uo, err := startTUI(context.Background(), o, nil)
		if err != nil {
			b.Fatal(err)
		}
		var r ui.Rest
		if uo.Rest != nil {
			// What the TUI is handed of the turns before the last.
			r = uo.Rest()
		}
		after := heapInUse()
		return after - before, func() {
			runtime.KeepAlive(bk)
			runtime.KeepAlive(uo)
			runtime.KeepAlive(r)
			a.close()
		}
	}
	for b.Loop() {
		base, done := kept(Options{Workspace: fresh})
		done()
		resumed, done := kept(Options{Continue: true, Workspace: ws})
		done()
		b.ReportMetric(float64(resumed-base)/seedTurns/1024, "KB/turn")
	}
}

func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	return int64(s.HeapAlloc)
}
