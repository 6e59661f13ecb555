package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// wrapOverlong breaks a rendered, compacted line that is still wider than
// width (glamour counts a tab in a paragraph as one column, the screen
// four) at the width. Its continuations keep the line's indentation, when
// that leaves half the width, and the colours in force where it broke,
// so the rest stays in its block rather than starting at column 0 in the
// terminal's default colours.
func wrapOverlong(l string, width int) []string {
	parts := strings.Split(ansi.Hardwrap(l, width, true), "\n")
	if len(parts) == 1 {
		return parts
	}
	plain := ansi.Strip(l)
	lead := len(plain) - len(strings.TrimLeft(plain, " "))
	if 2*lead > width {
		lead = 0
	}
	var p pen
	penAfter(&p, parts[0])
	out := []string{compactLine(parts[0])}
	rest := strings.Join(parts[1:], "")
	for _, part := range strings.Split(ansi.Hardwrap(rest, width-lead, false), "\n") {
		line := strings.Repeat(" ", lead)
		if !p.zero() {
			line += "\x1b[" + p.params() + "m"
		}
		penAfter(&p, part)
		if c := compactLine(line + trimLeadingSpaces(part)); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// penAfter applies the SGR sequences of s to p.
func penAfter(p *pen, s string) {
	for i := strings.Index(s, "\x1b["); i >= 0; {
		j := i + 2
		for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
			j++
		}
		if j < len(s) && s[j] == 'm' {
			p.apply(s[i+2 : j])
		}
		k := strings.Index(s[min(j+1, len(s)):], "\x1b[")
		if k < 0 {
			return
		}
		i = j + 1 + k
	}
}

// trimLeadingSpaces drops the spaces a break left at the start of s,
// keeping its escape sequences.
func trimLeadingSpaces(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == ' ':
			i++
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[':
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			j = min(j+1, len(s))
			b.WriteString(s[i:j])
			i = j
		default:
			b.WriteString(s[i:])
			return b.String()
		}
	}
	return b.String()
}
