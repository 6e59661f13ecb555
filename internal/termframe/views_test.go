package termframe

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// counter is a model that counts the messages it gets and the views it
// draws.
type counter struct {
	n     int
	views *atomic.Int64
}

type bump struct{}

func (c counter) Init() tea.Cmd { return nil }

func (c counter) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(bump); ok {
		c.n++
	}
	return c, nil
}

func (c counter) View() string {
	c.views.Add(1)
	return fmt.Sprintf("count %d", c.n)
}

// lockedBuffer is what the program writes, safe to read while it runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// A burst of messages is drawn as a few views, not one per message, and
// the last state is drawn all the same.
func TestABurstOfMessagesIsDrawnOnceAFrame(t *testing.T) {
	const burst = 500
	var views atomic.Int64
	out := &lockedBuffer{}
	p := tea.NewProgram(counter{views: &views}, tea.WithInput(nil), tea.WithOutput(out),
		tea.WithAltScreen(), tea.WithoutSignalHandler())
	done := make(chan tea.Model, 1)
	go func() {
		m, err := p.Run()
		if err != nil {
			t.Error(err)
		}
		done <- m
	}()
	p.Send(tea.WindowSizeMsg{Width: 40, Height: 5})
	for range burst {
		p.Send(bump{})
	}
	// The last state reaches the screen without any further message.
	want := fmt.Sprintf("count %d", burst)
	shown := func() bool {
		out.mu.Lock()
		defer out.mu.Unlock()
		screen := newEmulator(5, 40)
		screen.write(out.b.String())
		return strings.Contains(screen.text(), want)
	}
	for deadline := time.Now().Add(10 * time.Second); !shown(); {
		if time.Now().After(deadline) {
			t.Fatalf("%q never reached the screen", want)
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.Quit()
	if m := (<-done).(counter); m.n != burst {
		t.Fatalf("the model got %d messages, want %d", m.n, burst)
	}
	// One view at start, at most one a frame, one at the end: a burst
	// sent as fast as a channel takes it spans a few frames at most.
	if v := views.Load(); v > burst/2 {
		t.Errorf("%d views for %d messages: the view is drawn per message, not per frame", v, burst)
	}
}
