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
// at the width. Spaces at a break are dropped, as in any word wrap.
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
		if !strings.Contains(l, "\t") && (width < 1 || ansi.StringWidth(l) <= width) {
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
		if len(l) > width && ansi.StringWidth(l) > width {
			return false
		}
	}
	return true
}

// fitCodeLine writes one line of code (with its escape sequences) to b,
// its tabs expanded and broken into lines at most width cells wide (no
// limit when width < 1). sgr are the SGR sequences in force before it,
// and it returns those in force after it. Styles in force at a break
// are ended before it and set again after it, so that the padding after
// a line does not show them (a background), and the margin's writer
// sets them again after the margin.
func fitCodeLine(b *strings.Builder, l string, width, tab int, sgr []string) []string {
	var (
		cur    []byte // the part being filled
		col    int    // its width
		lcol   int    // the column in the whole line, for tab stops
		brk    = -1   // cur[:brk] ends after a space that follows text
		brkCol int    // the width of cur[:brk]
		text   bool   // cur holds a character other than a space
		skip   bool   // drop spaces: a break was just made
	)
	breakAt := func(n int) {
		b.Write(cur[:n])
		sgr = inForce(sgr, string(cur[:n]))
		if len(sgr) > 0 {
			b.WriteString("\x1b[0m")
		}
		b.WriteByte('\n')
		for _, q := range sgr {
			b.WriteString(q)
		}
		cur = append(cur[:0], cur[n:]...)
		brk, text = -1, false
	}
	put := func(c string, w int) {
		space := c == " "
		if skip && space {
			lcol += w
			return
		}
		skip = false
		for width > 0 && col > 0 && col+w > width {
			switch {
			case space:
				breakAt(len(cur))
				col, skip = 0, true
				lcol += w
				return
			case brk > 0:
				n := brkCol
				breakAt(brk)
				col -= n
				text = col > 0
			default:
				breakAt(len(cur))
				col = 0
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
