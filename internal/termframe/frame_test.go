package termframe

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// screensEqual compares two emulators cell by cell, text and style.
func screensEqual(t *testing.T, step int, got, want *emulator) {
	t.Helper()
	for r := range want.screen {
		for c := range want.screen[r] {
			if got.screen[r][c] != want.screen[r][c] {
				t.Fatalf("step %d: row %d col %d: got %+v, want %+v\ngot screen:\n%s\nwant screen:\n%s",
					step, r, c, got.screen[r][c], want.screen[r][c], got.text(), want.text())
			}
		}
	}
}

var words = []string{"the", "model", "types", "a", "long", "answer", "über", "漢字", "🙂", "x", "renderer", "scroll"}

// styled makes a word that is sometimes bold or coloured, closing what it
// opens as lipgloss does.
func styled(r *rand.Rand, w string) string {
	switch r.IntN(5) {
	case 0:
		return "\x1b[1m" + w + "\x1b[0m"
	case 1:
		return "\x1b[38;5;" + fmt.Sprint(r.IntN(256)) + "m" + w + "\x1b[m"
	}
	return w
}

// session plays a transcript that grows at the bottom, as a model's
// answer does, above a status row and an input row, and now and then
// changes something elsewhere (a scroll back, a pane).
type session struct {
	r          *rand.Rand
	rows, cols int
	lines      []string
	status     int
	offset     int // rows scrolled back from the bottom
}

func (s *session) step() {
	switch k := s.r.IntN(10); {
	case k < 6 && len(s.lines) > 0: // the last line grows
		s.lines[len(s.lines)-1] += " " + styled(s.r, words[s.r.IntN(len(words))])
	case k < 8: // a new line
		s.lines = append(s.lines, styled(s.r, words[s.r.IntN(len(words))]))
	case k < 9: // scroll back or forth
		s.offset = max(0, s.offset+s.r.IntN(5)-2)
	default: // several lines at once
		for range s.r.IntN(6) + 1 {
			s.lines = append(s.lines, strings.Repeat(words[s.r.IntN(len(words))]+" ", s.r.IntN(8)))
		}
	}
	s.status++
}

func (s *session) frame() []string {
	body := s.rows - 2
	end := max(0, len(s.lines)-s.offset)
	start := max(0, end-body)
	out := make([]string, 0, s.rows)
	out = append(out, s.lines[start:end]...)
	for len(out) < body {
		out = append(out, "")
	}
	spin := []string{"⠋", "⠙", "⠹", "⠸"}[s.status%4]
	out = append(out, fmt.Sprintf("\x1b[2m%s working · %d tokens\x1b[0m", spin, s.status*7))
	out = append(out, "> "+strings.Repeat("y", s.status%9))
	return out
}

// TestDiffFramesLeaveTheScreenAFullPaintWould plays random sessions
// through the difference drawing and checks, after every frame, that the
// screen is cell for cell what painting the frame whole gives.
func TestDiffFramesLeaveTheScreenAFullPaintWould(t *testing.T) {
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 7))
		rows, cols := 6+r.IntN(30), 10+r.IntN(110)
		s := &session{r: r, rows: rows, cols: cols}
		term := newEmulator(rows, cols)
		w := tea.NewFrameWriter(cols, rows)
		for step := range 300 {
			s.step()
			frame := s.frame()
			term.write(w.Frame(frame))
			want := newEmulator(rows, cols)
			want.write(tea.NewFrameWriter(cols, rows).Frame(frame))
			screensEqual(t, step, term, want)
		}
	}
}

// TestFollowingTheBottomCostsAboutTheText is the point of the drawing: a
// transcript that follows its bottom while a model types writes a small
// multiple of the text's bytes, not the screen again.
func TestFollowingTheBottomCostsAboutTheText(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	s := &session{r: r, rows: 40, cols: 120}
	for range 60 {
		s.lines = append(s.lines, strings.Repeat("filler ", 10))
	}
	fw := tea.NewFrameWriter(s.cols, s.rows)
	written, text := 0, 0
	for n := range 3000 {
		w := words[r.IntN(len(words))]
		last := len(s.lines) - 1
		if len(s.lines[last])+len(w) > 110 {
			s.lines = append(s.lines, w)
		} else {
			s.lines[last] += " " + w
		}
		text += len(w) + 1
		if r.IntN(15) == 0 { // the spinner turns about every 80 ms
			s.status++
		}
		// At 185 tokens a second and 60 frames, a frame holds about three.
		if n%3 != 2 {
			continue
		}
		frame := s.frame()
		written += len(fw.Frame(frame))
	}
	// Two words in five styled is more than an answer has: the shared
	// harness measures a real one (README, Speed).
	if ratio := float64(written) / float64(text); ratio > 3.5 {
		t.Fatalf("wrote %d bytes for %d bytes of text (%.1f×)", written, text, ratio)
	}
}
