package ansi

import (
	"bytes"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// breakLongWords breaks the lines of a paragraph or heading, wrapped by
// reflow's word wrap, that are still wider than width: a word longer
// than the width (a URL) is left whole by it. Upstream left such a line
// to the document's wrap, which broke it at a punctuation mark and left
// the rest past the width, for the screen to wrap at its edge: out of
// the block's margin, out of a quote. Broken here at the width, each
// part is a line of the block. Styles in force at a break (a link's
// underline) are ended before it and set again after it, so that the
// padding after the line does not show them; the margin writer sets
// them again after the margin.
func breakLongWords(s []byte, width int) []byte {
	if width < 1 || !tooWide(s, width) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	var sgr []string // the SGR sequences in force
	for i, line := range strings.Split(string(s), "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		if cellsAtMost(line) <= width || ansi.StringWidth(line) <= width {
			b.WriteString(line)
			sgr = inForce(sgr, line)
			continue
		}
		for j, part := range strings.Split(ansi.Hardwrap(line, width, false), "\n") {
			if j > 0 {
				if len(sgr) > 0 {
					b.WriteString("\x1b[0m")
				}
				b.WriteByte('\n')
				for _, q := range sgr {
					b.WriteString(q)
				}
			}
			b.WriteString(part)
			sgr = inForce(sgr, part)
		}
	}
	return []byte(b.String())
}

// tooWide reports whether a line of s is wider than width.
func tooWide(s []byte, width int) bool {
	for len(s) > 0 {
		line := s
		if i := bytes.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = nil
		}
		if cellsAtMost(string(line)) > width && ansi.StringWidth(string(line)) > width {
			return true
		}
	}
	return false
}
