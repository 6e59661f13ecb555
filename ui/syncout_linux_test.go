package ui

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/internal/proctest"
)

// fakeTerminal answers the queries it reads on master with answer (""
// answers nothing).
func fakeTerminal(master *os.File, answer string) {
	go func() {
		buf := make([]byte, 256)
		var seen []byte
		for {
			n, err := master.Read(buf)
			if err != nil {
				return
			}
			seen = append(seen, buf[:n]...)
			if bytes.Contains(seen, []byte("\x1b[c")) {
				if answer != "" {
					_, _ = master.WriteString(answer)
				}
				return
			}
		}
	}()
}

func TestSyncOutputIsUsedOnlyWhereTheTerminalSaysSo(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		want         bool
	}{
		{"mode reset, can be set", "\x1b[?2026;2$y\x1b[?62;22c", true},
		{"mode set", "\x1b[?2026;1$y\x1b[?62c", true},
		{"mode unknown", "\x1b[?2026;0$y\x1b[?62c", false},
		{"permanently reset", "\x1b[?2026;4$y\x1b[?1;2c", false},
		{"no report, only attributes", "\x1b[?1;2c", false},
		{"silent terminal", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			master, slave := proctest.OpenPTY(t, true)
			fakeTerminal(master, tc.answer)
			if got := querySync(slave, 2*time.Second); got != tc.want {
				t.Fatalf("querySync = %v, want %v", got, tc.want)
			}
		})
	}
}

// syncView is a model whose view changes with each message it gets.
type syncView struct{ n int }

func (m syncView) Init() tea.Cmd { return nil }
func (m syncView) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(tea.KeyMsg); ok {
		return m, tea.Quit
	}
	if _, ok := msg.(int); ok {
		m.n++
	}
	return m, nil
}
func (m syncView) View() string { return fmt.Sprintf("frame %d\nstatus", m.n) }

func runFrames(t *testing.T, opts ...tea.ProgramOption) string {
	t.Helper()
	var out bytes.Buffer
	in, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	p := tea.NewProgram(syncView{}, append(opts, tea.WithAltScreen(), tea.WithInput(in), tea.WithOutput(&out))...)
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	for range 3 {
		p.Send(1)
		time.Sleep(30 * time.Millisecond)
	}
	_, _ = w.WriteString("q")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestSynchronizedOutputWrapsEveryFrame(t *testing.T) {
	with := runFrames(t, tea.WithSynchronizedOutput())
	if b, ends := begins(with), strings.Count(with, "\x1b[?2026l"); b == 0 || b != ends {
		t.Fatalf("with synchronized output: %d frame starts, %d ends in %q", b, ends, with)
	}
	// Every frame is closed before the next opens.
	open := false
	for _, part := range strings.SplitAfter(with, "\x1b[?2026") {
		switch {
		case strings.HasPrefix(part, "h"):
			if open {
				t.Fatalf("a frame starts inside another: %q", with)
			}
			open = true
		case strings.HasPrefix(part, "l"):
			open = false
		}
	}
	if without := runFrames(t); strings.Contains(without, "2026") {
		t.Fatalf("without it, the frames carry mode 2026: %q", without)
	}
}

func begins(out string) int { return strings.Count(out, "\x1b[?2026h") }
