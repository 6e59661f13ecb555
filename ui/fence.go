package ui

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"myclaw/tools"
)

// sanitizeForScreen makes untrusted text safe to draw: whole escape
// sequences, controls and invisible format characters removed. Held in a
// variable so that tests can check the frame does not rely on it alone.
var sanitizeForScreen = tools.SanitizeForScreen

// foldLines is how many lines of untrusted output a collapsed card shows.
const foldLines = 12

// tabWidth is the tab stop used when expanding tabs for display.
const tabWidth = 4

// stripControls drops every character that could move the cursor or change
// the terminal's state when printed: C0 controls except newline and tab,
// DEL, C1 controls (as runes), and the bidirectional overrides that can
// make text read differently from what it is. Invalid UTF-8 becomes U+FFFD.
// What remains of a broken escape sequence is harmless text.
func stripControls(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if b := s[i]; (b < 0x20 && b != '\n' && b != '\t') || b == 0x7f || b >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
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
// own, width columns wide (at least minWidth): sanitised, tabs expanded, long lines wrapped,
// and when folded only the first foldLines lines with a count of the rest.
// Nothing in body can end the frame early: every line is cut to fit inside
// it and carries no escape sequence.
func renderFence(c *common, width int, source string, at time.Time, body string, folded bool) []string {
	st := &c.styles
	width = max(width, minWidth)
	inner := width - 4 // "║ " + text + " ║"

	var lines []string
	// stripControls again: the frame must hold even if the sanitiser
	// missed something.
	body = strings.TrimRight(stripControls(sanitizeForScreen(body)), "\n")
	if body == "" {
		lines = []string{"(empty)"}
	} else {
		for l := range strings.SplitSeq(body, "\n") {
			lines = append(lines, wrapPlain(expandTabs(l), inner)...)
		}
	}
	hidden := 0
	if folded && len(lines) > foldLines {
		hidden = len(lines) - foldLines
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
