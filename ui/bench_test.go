package ui

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/agent"
	"myclaw/approval"
)

// benchModel is a model at the benchmark's terminal size (120×40) with
// prior earlier exchanges in the transcript, each a prompt, a two-block
// answer and a tool card, all drawn once as they would have been.
func benchModel(prior int) Model {
	m := New(newFake(), Options{Workspace: "/work/project"})
	m = update(m, sizeMsg(120, 40))
	for i := range prior {
		m = m.addBlock(userBlock(fmt.Sprintf("question %d about the render loop", i)))
		m = m.addBlock(&mdBlock{src: "The **frame** is assembled from cached lines; see `View()`.\n"})
		m = m.addBlock(&mdBlock{src: "- only visible blocks\n- rendered once per width\n"})
		card := newToolCard(call(fmt.Sprint(i), "fs_read", `{"path":"ui/view.go"}`))
		card.finish(agent.ToolResultEvent{Call: card.call, Status: agent.StatusOK, Summary: "Read ui/view.go (120 lines)", Duration: 3 * time.Millisecond})
		m = m.addBlock(card)
		m.View()
	}
	m = typeText(m, "stream now")
	m, _ = updateCmd(m, keyMsg("enter"))
	return m
}

// deltas cycle through a 40-word paragraph and a paragraph break, so that
// the live block stays the size of a paragraph.
var deltas = func() []string {
	out := []string{"Word"}
	for range 39 {
		out = append(out, " word")
	}
	return append(out, ".\n\n")
}()

// frame is one streamed frame: a text delta through Update, the publish
// tick, and View.
func frame(m Model, i int) Model {
	m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{ev: agent.TextDelta{Text: deltas[i%len(deltas)]}}}})
	m = update(m, renderTickMsg{})
	m.View()
	return m
}

func benchFrame(prior int) func(b *testing.B) {
	return func(b *testing.B) {
		m := benchModel(prior)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			m = frame(m, i)
		}
	}
}

// BenchmarkFrame times one frame with 10 and with 2,000 earlier messages;
// the two must be about the same (goal: < 1.5×).
func BenchmarkFrame(b *testing.B) {
	for _, prior := range []int{10, 2000} {
		b.Run(fmt.Sprintf("prior=%d", prior), benchFrame(prior))
	}
}

// BenchmarkFrameScaling interleaves frames of a model with 10 earlier
// messages and one with 2,000, and reports the ratio of their times.
func BenchmarkFrameScaling(b *testing.B) {
	small, large := benchModel(10), benchModel(2000)
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
	b.ReportMetric(float64(ts.Nanoseconds())/float64(b.N), "ns/frame_prior10")
	b.ReportMetric(float64(tl.Nanoseconds())/float64(b.N), "ns/frame_prior2000")
	b.ReportMetric(float64(tl)/float64(ts), "ratio")
}

// BenchmarkAppendDelta appends a token to a live message already 10 KB
// and 1 MB long: the cost per token must not depend on the length.
func BenchmarkAppendDelta(b *testing.B) {
	answer, toks := benchAnswer(b)
	for _, size := range []int{10 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("len=%dKB", size>>10), func(b *testing.B) {
			s := newMDStream()
			for s.src.Len() < size {
				s.write(answer)
				s.take()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s.write(toks[i%len(toks)])
				if i%1024 == 0 {
					s.take()
				}
			}
		})
	}
}

// BenchmarkStream20k streams the benchmark's 20,039-token answer through
// Update and View the way the program sees it: batches of tokens, a
// publish tick every few batches, a View after each message.
func BenchmarkStream20k(b *testing.B) {
	_, toks := benchAnswer(b)
	const batch, batchesPerTick = 64, 4
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		m := benchModel(0)
		b.StartTimer()
		for j := 0; j < len(toks); j += batch {
			items := make([]turnItem, 0, batch)
			for _, tok := range toks[j:min(j+batch, len(toks))] {
				items = append(items, turnItem{ev: agent.TextDelta{Text: tok}})
			}
			m = update(m, eventsMsg{turn: m.turn.id, items: items})
			m.View()
			if (j/batch)%batchesPerTick == 0 {
				m = update(m, renderTickMsg{})
				m.View()
			}
		}
		m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true}}})
		if !strings.Contains(m.View(), "ZZBENCHENDZZ") {
			b.Fatal("got no end marker on screen")
		}
	}
}

// markerWriter counts what the program writes to the terminal and closes
// found when the end marker has been written.
type markerWriter struct {
	mu    sync.Mutex
	n     int
	tail  []byte
	found chan struct{}
	once  sync.Once
}

func (w *markerWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n += len(p)
	w.tail = append(w.tail, p...)
	if bytes.Contains(w.tail, []byte("ZZBENCHENDZZ")) {
		w.once.Do(func() { close(w.found) })
	}
	if len(w.tail) > 64 {
		w.tail = w.tail[len(w.tail)-64:]
	}
	return len(p), nil
}

// BenchmarkProgram20k runs the real program at 120×40 against a backend
// that streams the 20k-token answer, as fast as it can or spread over
// about half a second (closer to a real server), and reports what a user
// would feel: time from Enter to the last token on screen, and bytes
// written to the terminal (goals: ≤ 1 s, ≤ 250 KB).
func BenchmarkProgram20k(b *testing.B) {
	_, toks := benchAnswer(b)
	for _, pace := range []time.Duration{0, 500 * time.Millisecond} {
		b.Run(fmt.Sprintf("pace=%s", pace), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				elapsed, written := runProgram(b, toks, pace)
				b.ReportMetric(float64(elapsed.Milliseconds()), "ms/answer")
				b.ReportMetric(float64(written)/1024, "KB_written")
			}
		})
	}
}

// runProgram streams toks through a real program; with a pace, the
// backend pauses every 100 tokens so the whole answer takes about pace.
func runProgram(b *testing.B, toks []string, pace time.Duration) (time.Duration, int) {
	const every = 100
	pause := pace / time.Duration(len(toks)/every+1)
	f := newFake()
	f.runFn = func(ctx context.Context, prompt string, emit func(agent.Event), ap approval.Approver) error {
		for i, tok := range toks {
			emit(agent.TextDelta{Text: tok})
			if pause > 0 && i%every == every-1 {
				time.Sleep(pause)
			}
		}
		emit(agent.DoneEvent{Reason: agent.DoneStop, Rounds: 1})
		return nil
	}
	out := &markerWriter{found: make(chan struct{})}
	p := tea.NewProgram(New(f, Options{Workspace: "/work/project"}),
		tea.WithInput(nil), tea.WithOutput(out), tea.WithAltScreen(), tea.WithoutSignalHandler())
	done := make(chan tea.Model, 1)
	go func() {
		m, _ := p.Run()
		done <- m
	}()
	p.Send(tea.WindowSizeMsg{Width: 120, Height: 40})
	p.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("Write the benchmark answer please")})
	time.Sleep(50 * time.Millisecond) // let the first frames settle before measuring
	out.mu.Lock()
	before := out.n
	out.mu.Unlock()
	start := time.Now()
	p.Send(tea.KeyMsg{Type: tea.KeyEnter})
	select {
	case <-out.found:
	case <-time.After(60 * time.Second):
		b.Fatal("got no end marker on screen within a minute")
	}
	elapsed := time.Since(start)
	out.mu.Lock()
	written := out.n - before
	out.mu.Unlock()
	p.Quit()
	m := (<-done).(Model)
	m.shared.shutdown(time.Second)
	return elapsed, written
}

// BenchmarkReasoning20k streams the 20k-token answer as reasoning, shown
// (ctrl+r), through Update and View with a publish tick every few
// batches: counting its words and wrapping its lines must not start over
// at every tick.
func BenchmarkReasoning20k(b *testing.B) {
	_, toks := benchAnswer(b)
	const batch, batchesPerTick = 64, 4
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		m := benchModel(0)
		m = update(m, keyMsg("ctrl+r"))
		b.StartTimer()
		for j := 0; j < len(toks); j += batch {
			items := make([]turnItem, 0, batch)
			for _, tok := range toks[j:min(j+batch, len(toks))] {
				items = append(items, turnItem{ev: agent.ReasoningDelta{Text: tok}})
			}
			m = update(m, eventsMsg{turn: m.turn.id, items: items})
			if (j/batch)%batchesPerTick == 0 {
				m = update(m, renderTickMsg{})
				m.View()
			}
		}
		m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true}}})
		if !strings.Contains(m.View(), "ZZBENCHENDZZ") {
			b.Fatal("got no end marker on screen")
		}
	}
}

// BenchmarkKey times one key typed in the input while a turn runs, with
// 2,000 earlier messages: Update and the frame that follows.
func BenchmarkKey(b *testing.B) {
	m := benchModel(2000)
	m = update(m, spinnerTickMsg{turn: m.turn.id, now: time.Now()})
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

// BenchmarkPaneFrame times one streamed frame while the approval pane is
// open on a shell command and on a long diff: the pane's lines are cached
// per width, so it must cost about what a frame without it costs.
func BenchmarkPaneFrame(b *testing.B) {
	for _, tc := range []struct {
		name string
		req  approval.Request
	}{{"shell", shellRequest()}, {"diff", writeRequest()}} {
		b.Run(tc.name, func(b *testing.B) {
			m := benchModel(2000)
			p := &pendingApproval{req: tc.req, ctx: context.Background(), reply: make(chan approval.Decision, 1)}
			m = update(m, approvalRequestMsg{p})
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m = frame(m, i)
			}
		})
	}
}
