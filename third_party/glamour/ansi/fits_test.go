package ansi

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestWhatFitsIsNotWrapped: whatever fitsWithin passes, Wordwrap gives
// back unchanged; random text with colours, other escapes, spaces of
// every kind, breakpoints, wide and invalid characters.
func TestWhatFitsIsNotWrapped(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	pieces := []string{"word", "w", " ", "  ", "\n", "\t", "\r", "é", "漢字", "👍🏽", "e\u0301", "\u3000", "\u00a0",
		"\u2003", "\x1b[0m", "\x1b[38;5;252m", "\x1b[1;38;5;111m", "\x1b[m", "\x1b]8;;http://x\x1b\\", "\x1b@",
		"\x1b[3", "\xff", "-", ",", ".", ";", "+", "|", "a-b", "\x07", "\x1b[38;5;252m \x1b[0m", "\x1b[2K"}
	passed := 0
	for round := range 50000 {
		var b strings.Builder
		for range rng.Intn(30) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s, limit := b.String(), 1+rng.Intn(40)
		if !fitsWithin(s, limit) {
			continue
		}
		passed++
		if got := ansi.Wordwrap(s, limit, " ,.;-+|"); got != s {
			t.Fatalf("round %d, limit %d: %q fits, but Wordwrap gives %q", round, limit, s, got)
		}
	}
	if passed < 5000 {
		t.Fatalf("only %d of 50000 inputs passed as fitting: the test says little", passed)
	}
}

// TestCellsAtMostBoundsTheWidth: cellsAtMost is never below what
// ansi.StringWidth counts, on random text with colours, other escapes,
// controls, wide, combining and invalid characters.
func TestCellsAtMostBoundsTheWidth(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	pieces := []string{"word", " ", "\t", "é", "漢字", "👍🏽", "e\u0301", "\u3000", "\x1b[0m", "\x1b[38;5;252m",
		"\x1b]8;;http://x\x1b\\", "\x1b@", "\x1b[3", "\xff", "\x07", "\x1b[2K", "\u200d", "\x1b"}
	for round := range 20000 {
		var b strings.Builder
		for range rng.Intn(20) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := b.String()
		if got, w := cellsAtMost(s), ansi.StringWidth(s); got < w {
			t.Fatalf("round %d: cellsAtMost(%q) = %d, but it is %d wide", round, s, got, w)
		}
	}
}
