package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"myclaw/agent"
)

// Pacing of BenchmarkPacedToken: a model typing at 200 tokens a second
// (the shared harness's paced run), drawn at the renderer's 60 frames a
// second, with the publish tick and the spinner at their own paces.
const (
	pacedToken = 5 * time.Millisecond
	pacedFrame = time.Second / 60
)

// BenchmarkPacedToken streams the benchmark answer one token per message,
// as a model at 200 tokens a second arrives, and does per token what the
// program does over the token's 5 ms: its Update, the publish and spinner
// ticks that fall in it, and the frames that fall in it (View once a frame,
// and the difference the renderer writes for it). ns/op is the cost of one
// token; at 200 tokens a second, 250 µs is 5 % of a core. B_written/op is
// what one token sends to the terminal.
func BenchmarkPacedToken(b *testing.B) {
	_, toks := benchAnswer(b)
	// Colours as in tmux, where the harness runs: styling costs.
	lipgloss.SetColorProfile(termenv.ANSI256)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	m := benchModel(0)
	fw := tea.NewFrameWriter(120, 40)
	fw.Frame(strings.Split(m.View(), "\n"))
	start := time.Now()
	var nextFrame, nextTick, nextSpin time.Duration
	written := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		now := time.Duration(i) * pacedToken
		if i > 0 && i%len(toks) == 0 {
			// The answer ends; the next one starts on a fresh model.
			b.StopTimer()
			m = benchModel(0)
			fw = tea.NewFrameWriter(120, 40)
			fw.Frame(strings.Split(m.View(), "\n"))
			b.StartTimer()
		}
		m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{ev: agent.TextDelta{Text: toks[i%len(toks)]}}}})
		if now >= nextTick {
			m = update(m, renderTickMsg{})
			nextTick = now + frameInterval
		}
		if now >= nextSpin {
			m = update(m, spinnerTickMsg{turn: m.turn.id, now: start.Add(now)})
			nextSpin = now + spinnerInterval
		}
		for now+pacedToken > nextFrame {
			written += len(fw.Frame(strings.Split(m.View(), "\n")))
			nextFrame += pacedFrame
		}
	}
	b.ReportMetric(float64(written)/float64(b.N), "B_written/op")
}
