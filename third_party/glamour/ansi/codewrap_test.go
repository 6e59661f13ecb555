package ansi

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestFitCode(t *testing.T) {
	for _, tt := range []struct {
		name, in   string
		width, tab int
		want       string
	}{
		{"fits", "abc\ndef", 10, 4, "abc\ndef"},
		{"at a space, on a tab stop deeper", "alpha beta gamma", 11, 4, "alpha beta \n    gamma"},
		{"spaces at the break dropped", "alpha      beta", 8, 4, "alpha   \n    beta"},
		{"past the line's indentation", "\tfoo(alpha, beta)", 16, 4, "    foo(alpha, \n        beta)"},
		{"at the margin when that leaves too little", "\t\tfoo(alpha, beta)", 18, 4, "        foo(alpha,\nbeta)"},
		{"no space: at the width", "abcdefghij", 4, 4, "abcd\nefgh\nij"},
		{"indentation is no break", "        abcdefgh", 10, 4, "        ab\ncdefgh"},
		{"tabs to stops", "\tx\nab\ty", 20, 4, "    x\nab  y"},
		{"tab stops of 8 by default", "\tx", 20, 0, "        x"},
		{"tabs then a break", "\tab cd", 7, 4, "    ab \ncd"},
		{"wide characters", "漢字漢字", 5, 4, "漢字\n漢字"},
		{"emoji", "👍👍👍", 3, 4, "👍\n👍\n👍"},
		{"styles ended and set again", "\x1b[31mabc def\x1b[0m", 4, 4, "\x1b[31mabc \x1b[0m\n\x1b[31mdef\x1b[0m"},
		{"set again after the indent", "\x1b[41mabc defg hi\x1b[0m", 8, 4, "\x1b[41mabc defg\x1b[0m\n    \x1b[41mhi\x1b[0m"},
		{"no width: tabs only", "a\tb", 0, 4, "a   b"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := fitCode(tt.in, tt.width, tt.tab); got != tt.want {
				t.Errorf("fitCode(%q, %d) = %q; want %q", tt.in, tt.width, got, tt.want)
			}
		})
	}
}

// Whatever the text, fitted lines are at most the width, and hold the
// same characters in the same order (spaces aside).
func TestFitCodeKeepsWidthAndText(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	parts := []string{"a", "bc", "def", " ", "  ", "\t", "漢", "👍", "é", "\x1b[31m", "\x1b[0m", "\x1b[1;38;5;42m", "-", "."}
	for range 2000 {
		var b strings.Builder
		for range rng.Intn(60) {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		in, width := b.String(), 2+rng.Intn(20)
		got := fitCode(in, width, 4)
		for _, l := range strings.Split(got, "\n") {
			if w := ansi.StringWidth(l); w > width {
				t.Fatalf("fitCode(%q, %d): line %q is %d wide", in, width, l, w)
			}
		}
		squash := strings.NewReplacer(" ", "", "\t", "", "\n", "")
		if squash.Replace(ansi.Strip(got)) != squash.Replace(ansi.Strip(in)) {
			t.Fatalf("fitCode(%q, %d) = %q: the text changed", in, width, got)
		}
	}
}

func TestHangText(t *testing.T) {
	var b strings.Builder
	hangText(&b, "one\n\x1b[4mtwo\nthree\x1b[0m\n", 2, false)
	if want := "one\n  \x1b[4mtwo\x1b[0m\n  \x1b[4mthree\x1b[0m\n"; b.String() != want {
		t.Errorf("got %q; want %q", b.String(), want)
	}
}
