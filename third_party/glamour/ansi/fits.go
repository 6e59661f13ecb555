package ansi

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// fitsWithin reports, cautiously, that ansi.Wordwrap(s, limit, ...) would
// give s back unchanged, so a block whose lines already fit is not
// wrapped again: every line has at most limit bytes outside SGR and other
// CSI sequences (a cell takes at least a byte, as Wordwrap counts it), s
// has no other escape and is valid UTF-8, and it does not end with a
// space (Wordwrap drops spaces at the very end).
func fitsWithin(s string, limit int) bool {
	if limit < 1 || !utf8.ValidString(s) {
		return false
	}
	if r, _ := utf8.DecodeLastRuneInString(s); r != '\n' && r != 0xa0 && unicode.IsSpace(r) {
		return false
	}
	for line := range strings.SplitSeq(s, "\n") {
		if n, ok := visibleBytes(line); !ok || n > limit {
			return false
		}
	}
	return true
}

// cellsAtMost bounds the cells ansi.StringWidth counts in line from
// above, cheaply: its bytes outside CSI sequences (a cell takes at least
// a byte), or all its bytes if it holds another escape. Lines of styled
// text are long in bytes and short in cells; this spares measuring them.
func cellsAtMost(line string) int {
	if n, ok := visibleBytes(line); ok {
		return n
	}
	return len(line)
}

// visibleBytes counts line's bytes outside CSI sequences (colours); ok is
// false when it holds another escape, or one left unfinished.
func visibleBytes(line string) (n int, ok bool) {
	for i := 0; i < len(line); i++ {
		if line[i] != 0x1b {
			n++
			continue
		}
		if i+1 >= len(line) || line[i+1] != '[' {
			return n, false
		}
		j := i + 2
		for j < len(line) && line[j] >= 0x20 && line[j] <= 0x3f {
			j++
		}
		if j >= len(line) || line[j] < 0x40 || line[j] > 0x7e {
			return n, false
		}
		i = j
	}
	return n, true
}
