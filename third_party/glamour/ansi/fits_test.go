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
