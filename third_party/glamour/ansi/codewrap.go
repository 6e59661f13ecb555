package ansi

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/rivo/uniseg"
)

// fitCode fits a code block's rendered lines to width cells, the width
// inside its margin. Upstream leaves a long code line to the document's
// word wrap, which breaks it where the document's width ends and starts
// the rest at the document's margin: out of the block, left of its code.
// Broken here instead, every part is a line of the block, given its
// margin and, by the indent writer, the colours in force where it broke.
//
// A line breaks after its last space that fits, when text comes before
// that space (tokens and words stay whole, and indentation is not taken
// for a break); a line with no such space (a long string, a URL) breaks
// at the width. Spaces at a break are dropped, as in any word wrap. The
// rest goes on a tab stop deeper than the line's indentation, as
// formatters indent a continued statement: it reads as part of the line
// above, not as a line of its own (see continuationIndent).
// Tabs are expanded to spaces, stops every tab cells from the block's
// first column, since a line's width depends on where its tabs end.
func fitCode(s string, width, tab int) string {
	if tab <= 0 {
		tab = 8
	}
	if !strings.Contains(s, "\t") && (width < 1 || codeFits(s, width)) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	var sgr []string // the SGR sequences in force
	first := true
	for l := range strings.SplitSeq(s, "\n") {
		if !first {
			b.WriteByte('\n')
		}
		first = false
		if !strings.Contains(l, "\t") && (width < 1 || cellsAtMost(l) <= width || ansi.StringWidth(l) <= width) {
			b.WriteString(l)
			sgr = inForce(sgr, l)
			continue
		}
		sgr = fitCodeLine(&b, l, width, tab, sgr)
	}
	return b.String()
}

// codeFits reports whether every line of s is at most width cells wide.
func codeFits(s string, width int) bool {
	for l := range strings.SplitSeq(s, "\n") {
		if cellsAtMost(l) > width && ansi.StringWidth(l) > width {
			return false
		}
	}
	return true
}

// fitCodeLine writes one line of code (with its escape sequences) to b,
// its tabs expanded and broken into lines at most width cells wide (no
// limit when width < 1). sgr are the SGR sequences in force before it,
// and it returns those in force after it. Styles in force at a break
// are ended before it and set again after the continuation's indent, so
// that neither the padding after a line nor the indent shows them (a
// background); the margin's writer sets them again after the margin.
func fitCodeLine(b *strings.Builder, l string, width, tab int, sgr []string) []string {
	var (
		cur    []byte // the part being filled
		col    int    // its width, with the indent it starts at
		start  int    // that indent: 0, or hang after a break
		lcol   int    // the column in the whole line, for tab stops
		lead   = -1   // the line's indentation, once known
		hang   = -1   // the continuations' indent, once a break is made
		brk    = -1   // cur[:brk] ends after a space that follows text
		brkCol int    // the width up to brk
		text   bool   // cur holds a character other than a space
		skip   bool   // drop spaces: a break was just made
	)
	breakAt := func(n int) {
		if hang < 0 {
			hang = continuationIndent(lead, tab, width)
		}
		b.Write(cur[:n])
		sgr = inForce(sgr, string(cur[:n]))
		if len(sgr) > 0 {
			b.WriteString("\x1b[0m")
		}
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(" ", hang))
		for _, q := range sgr {
			b.WriteString(q)
		}
		cur = append(cur[:0], cur[n:]...)
		brk, text, start = -1, false, hang
	}
	put := func(c string, w int) {
		space := c == " "
		if skip && space {
			lcol += w
			return
		}
		skip = false
		if !space && lead < 0 {
			lead = lcol
		}
		for width > 0 && col > start && col+w > width {
			h := hang
			if h < 0 {
				h = continuationIndent(lead, tab, width)
			}
			switch rest := col - brkCol; {
			case space:
				breakAt(len(cur))
				col, skip = start, true
				lcol += w
				return
			case brk > 0 && h+rest+w <= width:
				// What follows the space goes on with this character.
				breakAt(brk)
				col = start + rest
				text = rest > 0
			default:
				breakAt(len(cur))
				col = start
			}
		}
		cur = append(cur, c...)
		col += w
		lcol += w
		switch {
		case !space:
			text = true
		case text:
			brk, brkCol = len(cur), col
		}
	}
	for i := 0; i < len(l); {
		c := l[i]
		switch {
		case c == 0x1b:
			j := escapeEnd(l, i)
			cur = append(cur, l[i:j]...)
			i = j
		case c == '\t':
			for n := tab - lcol%tab; n > 0; n-- {
				put(" ", 1)
			}
			i++
		case c < 0x20 || c == 0x7f:
			put(l[i:i+1], 0)
			i++
		case c < 0x80:
			put(l[i:i+1], 1)
			i++
		default:
			g, _, _, _ := uniseg.FirstGraphemeClusterInString(l[i:], -1)
			put(g, ansi.StringWidth(g))
			i += len(g)
		}
	}
	b.Write(cur)
	return inForce(sgr, string(cur))
}

// escapeEnd is the end of the escape sequence at s[i]: a CSI sequence up
// to its final byte, an OSC string up to its terminator, or the escape
// and the byte after it.
func escapeEnd(s string, i int) int {
	j := i + 2
	switch {
	case j > len(s):
		return len(s)
	case s[i+1] == '[':
		for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
			j++
		}
		return min(j+1, len(s))
	case s[i+1] == ']':
		for j < len(s) {
			if s[j] == 0x07 {
				return j + 1
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
			j++
		}
		return len(s)
	}
	return j
}

// continuationIndent is where a code line's continuations start: a tab
// stop past the line's own indentation, as a formatter indents a
// statement's next line, when that leaves half the width; else at the
// block's margin.
func continuationIndent(lead, tab, width int) int {
	if hang := max(lead, 0) + tab; 2*hang <= width {
		return hang
	}
	return 0
}
