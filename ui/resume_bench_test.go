package ui

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/agent"
)

// seededEarlier is a resumed conversation of n turns as the app hands it
// over: each a prompt, an answer of a few paragraphs with a list and a code
// block, and a read call with its record.
func seededEarlier(n int) []Earlier {
	out := make([]Earlier, 0, 3*n)
	for i := range n {
		out = append(out, Earlier{Role: "user", Text: fmt.Sprintf("turn %d: why does the frame cost stay flat as the session grows?", i+1)})
		out = append(out, Earlier{Role: "assistant", Text: fmt.Sprintf("Turn %d. The **frame** is assembled from cached lines; see `View()` in ui/ui.go.\n\n"+
			"- only the blocks on screen are drawn\n- each renders once per width\n- far-off blocks drop their lines\n\n"+
			"```go\nfor i := len(blocks) - 1; i >= 0 && n < h; i-- {\n\tn += len(blocks[i].lines(c))\n}\n```\n\n"+
			"So a keystroke costs the same after ten messages or ten thousand.", i+1)})
		c := call(fmt.Sprint("c", i), "fs_read", `{"path":"ui/transcript.go"}`)
		rec := agent.CallRecord{Result: agent.ToolResultEvent{Call: c, Status: agent.StatusOK, Summary: "Read ui/transcript.go (200 lines)", Duration: 3 * time.Millisecond}}
		out = append(out, Earlier{Role: "tool", Text: "↳ fs_read", Call: &rec})
	}
	return out
}

// resumed is a model that resumed a session of n turns, at 120×40, with
// its first frame drawn.
func resumed(n int) Model {
	m := New(newFake(), Options{Workspace: "/work/project", Earlier: seededEarlier(n)})
	m = update(m, sizeMsg(120, 40))
	m.View()
	return m
}

// BenchmarkResumeFirstFrame times a resume of a 1,000-turn session from
// the conversation handed over to its first frame (goal: ≤ 100 ms).
func BenchmarkResumeFirstFrame(b *testing.B) {
	earlier := seededEarlier(1000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := New(newFake(), Options{Workspace: "/work/project", Earlier: earlier})
		m = update(m, sizeMsg(120, 40))
		if !strings.Contains(m.View(), "ten thousand") {
			b.Fatal("the last answer is not on the first frame")
		}
	}
}

// streaming is a resumed model of n turns with an answer streaming.
func streaming(n int) Model {
	m := resumed(n)
	m = typeText(m, "stream now")
	m, _ = updateCmd(m, keyMsg("enter"))
	return m
}

// BenchmarkResumeFrame times a streamed frame after a resume of 1,000 and
// of 10,000 turns: the two must be about the same.
func BenchmarkResumeFrame(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("turns=%d", n), func(b *testing.B) {
			m := streaming(n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m = frame(m, i)
			}
		})
	}
}

// BenchmarkResumeFrameScaling interleaves the frames of the two, so that
// the load of the machine weighs on both alike, and reports their ratio.
func BenchmarkResumeFrameScaling(b *testing.B) {
	small, large := streaming(1000), streaming(10000)
	var ts, tl time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		small = frame(small, i)
		mid := time.Now()
		large = frame(large, i)
		ts += mid.Sub(start)
		tl += time.Since(mid)
	}
	b.ReportMetric(float64(ts.Nanoseconds())/float64(b.N), "ns/frame_turns1000")
	b.ReportMetric(float64(tl.Nanoseconds())/float64(b.N), "ns/frame_turns10000")
	b.ReportMetric(float64(tl)/float64(ts), "ratio")
}

// BenchmarkResumeKey times a key typed in the input after a resume of
// 10,000 messages: Update and the frame that follows (goal: ≤ 16 ms).
func BenchmarkResumeKey(b *testing.B) {
	m := resumed(10000 / 3)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := keyMsg("x")
		if i%40 == 39 {
			k = tea.KeyMsg{Type: tea.KeyCtrlU}
		}
		m = update(m, k)
		m.View()
	}
}

// BenchmarkResumeMemory resumes 1,000 turns, pages through all of them
// from the first to the last (so every block is drawn once), and reports
// the heap kept per turn (goal: ≤ 10 KB).
func BenchmarkResumeMemory(b *testing.B) {
	const turns = 1000
	earlier := seededEarlier(turns)
	for i := 0; i < b.N; i++ {
		before := heapInUse()
		m := New(newFake(), Options{Workspace: "/work/project", Earlier: earlier})
		m = update(m, sizeMsg(120, 40))
		m.View()
		m = update(m, keyMsg("ctrl+home"))
		m.View()
		for !m.tr.follow {
			m = update(m, keyMsg("pgdown"))
			m.View()
		}
		after := heapInUse()
		runtime.KeepAlive(m)
		b.ReportMetric(float64(after-before)/turns/1024, "KB/turn")
	}
}

func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	return int64(s.HeapAlloc)
}
