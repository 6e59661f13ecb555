package ui

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"myclaw/tools"
	"myclaw/tools/termtext"
)

// foldLines is how many lines of untrusted output a collapsed card shows.
const foldLines = 12

// tabWidth is the tab stop used when expanding tabs for display.
const tabWidth = 4

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
// own, width columns wide (at least minWidth): the thin frame when thin is
// set (the workspace's own content, a command the person typed), else the
// double one. The text is sanitised, tabs expanded,
// long lines wrapped, and when folded only the first foldLines lines with
// a count of the rest. Nothing in body can end the frame early: every line
// is cut to fit inside it and carries no escape sequence.
func renderFence(c *common, width int, source string, at time.Time, body string, folded, thin bool) []string {
	width = max(width, minWidth)
	inner := width - 4 // "║ " + text + " ║"

	var lines []string
	hidden := 0
	body = strings.TrimRight(termtext.Screen(body), "\n")
	if body == "" {
		lines = []string{"(empty)"}
	} else {
		for l := range strings.SplitSeq(body, "\n") {
			l = expandTabs(l)
			// One row more than the fold shows is shown: a count in
			// its place would save nothing.
			if folded && len(lines) > foldLines {
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
	if folded && len(lines)+hidden > foldLines+1 {
		hidden += len(lines) - foldLines
		lines = lines[:foldLines]
	}

	label := truncate(fenceLabel(source, at), width-6)
	if thin {
		return thinFence(c, width, label, lines, hidden)
	}
	more := ""
	if hidden > 0 {
		more = "… " + tools.Count(hidden, "more line") + " (" + c.keys.ToggleTools.Help().Key + " shows all)"
	}
	return fenceFrame(c, width, label, lines, more)
}

// fenceFrame draws the double frame of untrusted text around lines, which
// are plain and at most width-4 columns wide; more, if set, is a dim last
// line saying what was left out.
func fenceFrame(c *common, width int, label string, lines []string, more string) []string {
	st := &c.styles
	inner := width - 4
	top := st.FenceBorder.Render("╔═ ") + st.FenceLabel.Render(label) + " " +
		st.FenceBorder.Render(strings.Repeat("═", max(width-5-ansi.StringWidth(label), 0))+"╗")
	out := make([]string, 0, len(lines)+3)
	out = append(out, top)
	side := st.FenceBorder.Render("║")
	for _, l := range lines {
		pad := max(inner-ansi.StringWidth(l), 0)
		out = append(out, side+" "+st.FenceText.Render(l)+strings.Repeat(" ", pad)+" "+side)
	}
	if more != "" {
		more = truncate(more, inner)
		pad := max(inner-ansi.StringWidth(more), 0)
		out = append(out, side+" "+st.Dim.Render(more)+strings.Repeat(" ", pad)+" "+side)
	}
	out = append(out, st.FenceBorder.Render("╚"+strings.Repeat("═", width-2)+"╝"))
	return out
}

// thinFence is the frame of the workspace's own content (a file read, a
// search): a dim rule with the label and a dim bar before each line. It
// is still a frame: every line carries the bar, so nothing in the content
// can seem to stand outside it.
func thinFence(c *common, width int, label string, lines []string, hidden int) []string {
	st := &c.styles
	bar := st.FenceQuiet.Render("│ ")
	out := make([]string, 0, len(lines)+3)
	out = append(out, st.FenceQuiet.Render("┌ "+label+" "+strings.Repeat("─", max(width-3-ansi.StringWidth(label), 0))))
	for _, l := range lines {
		out = append(out, bar+st.FenceText.Render(l))
	}
	if hidden > 0 {
		out = append(out, bar+st.Dim.Render(truncate("… "+tools.Count(hidden, "more line")+" ("+c.keys.ToggleTools.Help().Key+" shows all)", width-4)))
	}
	return append(out, st.FenceQuiet.Render("└"+strings.Repeat("─", width-1)))
}
