package ui

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"myclaw/tools"
)

// foldLines is how many lines of untrusted output a collapsed card shows.
const foldLines = 12

// tabWidth is the tab stop used when expanding tabs for display.
const tabWidth = 4

// maxHeld bounds what screenText keeps back: a control string that never
// ends is let through (the sanitiser then drops its introducer) rather
// than hiding the rest of the text.
const maxHeld = 256

// screenText makes streamed text safe to draw, delta by delta, with
// tools.SanitizeForScreen. A model sends an escape sequence as several
// tokens: sanitising each delta on its own would drop the introducer and
// show the rest ("[31m") as text. So a delta that ends inside a sequence,
// inside a character or after a '\r' keeps that end back until the next
// delta completes it; what comes out is what sanitising the whole text at
// once gives.
type screenText struct{ held string }

// write returns the sanitised text of delta that is ready to show.
func (s *screenText) write(delta string) string {
	text := s.held + delta
	i := heldFrom(text)
	text, s.held = text[:i], text[i:]
	return tools.SanitizeForScreen(text)
}

// flush returns what is held back, at the end of the text.
func (s *screenText) flush() string {
	text := s.held
	s.held = ""
	return tools.SanitizeForScreen(text)
}

// heldFrom returns where the unfinished end of s starts (an escape
// sequence or control string the next delta may complete, a character cut
// in two, a '\r' that may be half of "\r\n"), or len(s) when s ends
// cleanly. It parses the way tools.StripControls does, from at most
// maxHeld bytes before the end: a sequence that began earlier is let
// through anyway.
func heldFrom(s string) int {
	i := max(len(s)-maxHeld, 0)
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	// A control string ended by the ESC of the next sequence loses its
	// end if that sequence is held: then it is held too, and so are the
	// strings before it that end the same way.
	chain, chainAt := -1, -1
	for i < len(s) {
		c := s[i]
		end, done, byESC := i+1, true, false
		switch {
		case c == 0x1b:
			end, done, byESC = escapeEnd(s, i+1)
		case c == 0xc2 && i+1 < len(s) && s[i+1] == 0x9b: // C1 CSI
			end, done = csiEnd(s, i+2)
		case c == 0xc2 && i+1 < len(s) && strings.IndexByte("\x90\x98\x9d\x9e\x9f", s[i+1]) >= 0: // C1 DCS, SOS, OSC, PM, APC
			end, done, byESC = stringEnd(s, i+2)
		case c == '\r':
			done = i+1 < len(s)
		case c >= utf8.RuneSelf:
			_, n := utf8.DecodeRuneInString(s[i:])
			end, done = i+n, utf8.FullRuneInString(s[i:])
		}
		start := i
		if i == chainAt {
			start = chain
		}
		if !done {
			return start
		}
		chain, chainAt = -1, -1
		if byESC {
			chain, chainAt = start, end
		}
		i = end
	}
	return len(s)
}

// escapeEnd returns the end of the escape sequence whose ESC is just
// before s[j], whether it is complete, and whether it is a control string
// ended by the ESC of another sequence (at the end returned).
func escapeEnd(s string, j int) (end int, done, byESC bool) {
	if j >= len(s) {
		return j, false, false
	}
	switch s[j] {
	case '[':
		end, done = csiEnd(s, j+1)
		return end, done, false
	case ']', 'P', 'X', '^', '_':
		return stringEnd(s, j+1)
	}
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	end, done = finalByte(s, j, 0x30)
	return end, done, false
}

// csiEnd returns the end of a control sequence whose body starts at s[j]:
// a malformed one ends at the first byte that does not fit.
func csiEnd(s string, j int) (int, bool) {
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x3f {
		j++
	}
	return finalByte(s, j, 0x40)
}

// finalByte ends a sequence at s[j]: after it when it is a final byte
// (from lo to '~'), before it otherwise; unfinished at the end of s.
func finalByte(s string, j int, lo byte) (int, bool) {
	if j == len(s) {
		return j, false
	}
	if s[j] >= lo && s[j] <= 0x7e {
		return j + 1, true
	}
	return j, true
}

// stringEnd returns the end of a control string whose body starts at
// s[j]: after BEL, CAN, SUB or ST, or at an ESC that starts another
// sequence (byESC).
func stringEnd(s string, j int) (end int, done, byESC bool) {
	for k := j; k < len(s); k++ {
		switch s[k] {
		case 0x07, 0x18, 0x1a:
			return k + 1, true, false
		case 0x1b, 0xc2:
			if k+1 == len(s) {
				return k, false, false
			}
			switch {
			case s[k] == 0x1b && s[k+1] == '\\', s[k] == 0xc2 && s[k+1] == 0x9c:
				return k + 2, true, false
			case s[k] == 0x1b:
				return k, true, true
			}
		}
	}
	return len(s), false, false
}

// expandTabs replaces tabs with spaces up to the next tab stop. s must be
// one line of plain text.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for {
		i := strings.IndexByte(s, '\t')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		col += ansi.StringWidth(s[:i])
		n := tabWidth - col%tabWidth
		b.WriteString(strings.Repeat(" ", n))
		col += n
		s = s[i+1:]
	}
}

// fenceLabel is the frame's title: "untrusted · <source> · <time>".
func fenceLabel(source string, at time.Time) string {
	label := "untrusted"
	if s := oneLine(source); s != "" {
		label += " · " + s
	}
	if !at.IsZero() {
		label += " · " + at.Format("2006-01-02 15:04:05")
	}
	return label
}

// renderFence draws untrusted output as plain text inside a frame of its
// own, width columns wide (at least minWidth): sanitised, tabs expanded,
// long lines wrapped, and when folded only the first foldLines lines with
// a count of the rest. Nothing in body can end the frame early: every line
// is cut to fit inside it and carries no escape sequence.
func renderFence(c *common, width int, source string, at time.Time, body string, folded bool) []string {
	st := &c.styles
	width = max(width, minWidth)
	inner := width - 4 // "║ " + text + " ║"

	var lines []string
	hidden := 0
	body = strings.TrimRight(tools.SanitizeForScreen(body), "\n")
	if body == "" {
		lines = []string{"(empty)"}
	} else {
		for l := range strings.SplitSeq(body, "\n") {
			l = expandTabs(l)
			if folded && len(lines) >= foldLines {
				// Past the fold only the count matters: a line that
				// fits takes one row, and only longer ones are wrapped.
				hidden++
				if ansi.StringWidth(l) > inner {
					hidden += len(wrapPlain(l, inner)) - 1
				}
				continue
			}
			lines = append(lines, wrapPlain(l, inner)...)
		}
	}
	if folded && len(lines) > foldLines {
		hidden += len(lines) - foldLines
		lines = lines[:foldLines]
	}

	label := truncate(fenceLabel(source, at), width-6)
	top := st.FenceBorder.Render("╔═ ") + st.FenceLabel.Render(label) + " " +
		st.FenceBorder.Render(strings.Repeat("═", max(width-5-ansi.StringWidth(label), 0))+"╗")
	out := make([]string, 0, len(lines)+3)
	out = append(out, top)
	side := st.FenceBorder.Render("║")
	for _, l := range lines {
		pad := max(inner-ansi.StringWidth(l), 0)
		out = append(out, side+" "+st.FenceText.Render(l)+strings.Repeat(" ", pad)+" "+side)
	}
	if hidden > 0 {
		more := truncate("… "+strconv.Itoa(hidden)+" more lines ("+c.keys.ToggleTools.Help().Key+" shows all)", inner)
		pad := max(inner-ansi.StringWidth(more), 0)
		out = append(out, side+" "+st.Dim.Render(more)+strings.Repeat(" ", pad)+" "+side)
	}
	out = append(out, st.FenceBorder.Render("╚"+strings.Repeat("═", width-2)+"╝"))
	return out
}
