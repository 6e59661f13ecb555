package ui

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// tailRender draws the live tail of a streamed answer exactly as
// markdown.render draws it whole, without rendering all of it at every
// publication. Most of the time the tail ends with a paragraph being
// written; glamour wraps a paragraph greedily, so once a wrapped line is
// followed by two more, it can no longer change: the lines so far are
// kept, and only the text from the start of the first line that may
// still change is rendered again. Blocks before the paragraph (a heading
// above it) are rendered once. Whenever the tail is not of that shape, or
// when it is unsure, it renders the tail whole.
//
// Keeping lines is sound when the text they come from is closed: each
// emphasis, strong and code span in it ends in it, and nothing in it can
// pair with what follows (no brackets, tildes, escapes or HTML); and the
// kept text ends where a word starts a wrapped line, the word is complete
// and is one that cannot start a block. Then goldmark parses the rest as
// it would in context, glamour styles and wraps it the same from a fresh
// line, and compactLine makes the escape sequences the same.
type tailRender struct {
	width int

	// The blocks before the paragraph, and whether drawing them apart
	// from it was checked to draw the tail the same.
	head      string
	headLines []string
	headOK    bool

	// base is the start of the paragraph whose lines are kept in
	// baseLines; keep is base and the complete word after it, which
	// decides where the last kept line ends.
	base, keep string
	baseLines  []string

	// A list: its items but the last, drawn once, and whether drawing
	// them apart from the last was checked to draw the list the same.
	itemKey  string
	itemHead []string
	itemOK   bool
}

// renderItem draws a tail that is a list whose last item is being
// written: the items before it are drawn once per list (checked once,
// against the whole, to be drawn the same apart: numbers, bullets), the
// last one at every publication.
func (t *tailRender) renderItem(md *markdown, src, head, item, key string) []string {
	if key != t.itemKey {
		t.itemKey, t.itemHead = key, md.render(head, t.width)
		whole := md.render(src, t.width)
		t.itemOK = len(t.itemHead) > 0 && slices.Equal(whole, append(append([]string(nil), t.itemHead...), md.render(item, t.width)...))
		return whole
	}
	if !t.itemOK {
		return md.render(src, t.width)
	}
	return append(append([]string(nil), t.itemHead...), t.renderLastItem(md, item)...)
}

// splitItem splits a closed tail that is a flat list, one item a line,
// into its items but the last and the last, which is an item of the same
// list whose text starts with a letter; key names the list and the last
// item's marker.
func splitItem(src string) (head, item, key string, ok bool) {
	nl := strings.LastIndexByte(src, '\n')
	if nl <= 0 {
		return "", "", "", false
	}
	head, item = src[:nl], src[nl+1:]
	m := itemMarker(item)
	if m == "" || !startsParagraph(item[len(m):]) || strings.Contains(head, "]:") {
		return "", "", "", false
	}
	for l := range strings.SplitSeq(head, "\n") {
		lm := itemMarker(l)
		if lm == "" || lm[len(lm)-2] != m[len(m)-2] {
			return "", "", "", false
		}
		if r, _ := utf8.DecodeRuneInString(l[len(lm):]); !unicode.IsLetter(r) && r != '`' && r != '(' && r != '"' {
			return "", "", "", false
		}
	}
	return head, item, head + "\x00" + m, true
}

// itemMarker is the marker that starts a list item on line l ("- ",
// "12. "), or "".
func itemMarker(l string) string {
	if len(l) >= 3 && strings.IndexByte("-*+", l[0]) >= 0 && l[1] == ' ' && l[2] != ' ' {
		return l[:2]
	}
	i := 0
	for i < len(l) && i < 9 && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	if i > 0 && i+2 < len(l) && (l[i] == '.' || l[i] == ')') && l[i+1] == ' ' && l[i+2] != ' ' {
		return l[:i+2]
	}
	return ""
}

// render returns md.render(src, width) (a code block's colours as
// renderStreamed gives them).
func (t *tailRender) render(md *markdown, src string, width int) []string {
	if t.width != width {
		*t = tailRender{width: width}
	}
	head, para, ok := splitTail(src)
	if !ok {
		if head, item, key, ok := splitItem(src); ok {
			return t.renderItem(md, src, head, item, key)
		}
		return md.renderStreamed(src, width)
	}
	var out []string
	if head != t.head {
		t.head, t.headLines, t.headOK, t.base, t.keep, t.baseLines = head, nil, false, "", "", nil
		if head != "" {
			// Drawn apart, a block and the paragraph after it are
			// separated by one blank line, as glamour separates them;
			// checked once per head, against the whole.
			t.headLines = md.render(head, width)
			whole, lines := md.render(src, width), md.render(para, width)
			if t.headOK = len(t.headLines) > 0 && slices.Equal(whole, t.joined(lines)); t.headOK {
				t.advance(para, lines)
			}
			return whole
		}
	}
	if head != "" {
		if !t.headOK {
			return md.render(src, width)
		}
		out = append(out, t.headLines...)
		out = append(out, "")
	}
	if !strings.HasPrefix(para, t.keep) || !safeStart(para[len(t.base):]) {
		t.base, t.keep, t.baseLines = "", "", nil
	}
	rest := t.renderRest(md, para[len(t.base):], width)
	out = append(out, t.baseLines...)
	out = append(out, rest...)
	t.advance(para, rest)
	return out
}

// renderRest draws the paragraph's text after the lines kept: by the
// plain style when it is plain words, else by glamour.
func (t *tailRender) renderRest(md *markdown, rest string, width int) []string {
	if p := md.plain(width, ""); p.ok && plainText(rest, p.limit) {
		return p.render(rest)
	}
	return md.render(rest, width)
}

// renderLastItem draws a list's last item, which splitItem found: by the
// plain style of its marker when its text is plain words, else by glamour.
func (t *tailRender) renderLastItem(md *markdown, item string) []string {
	m := itemMarker(item)
	if p := md.plain(t.width, m); p.ok && plainText(item[len(m):], p.limit) {
		return p.render(item[len(m):])
	}
	return md.render(item, t.width)
}

// joined is the head's lines, a blank line and para's.
func (t *tailRender) joined(para []string) []string {
	out := append(append(append([]string(nil), t.headLines...), ""), para...)
	return out
}

// advance keeps the lines of rest, the render of para after base, that
// can no longer change: all but the last two, when the text they come
// from is known exactly and is closed.
func (t *tailRender) advance(para string, rest []string) {
	j := len(rest) - 2
	if j < 1 {
		return
	}
	src := para[len(t.base):]
	// The words of the kept lines must be the source's words with their
	// marks taken off, one for one, so that where line j starts in the
	// source is known.
	o := 0
	for _, l := range rest[:j] {
		for _, w := range strings.Fields(ansi.Strip(l)) {
			for o < len(src) && src[o] == ' ' {
				o++
			}
			e := o
			for e < len(src) && src[e] != ' ' {
				e++
			}
			if e == o || stripMarks(src[o:e]) != w {
				return
			}
			o = e
		}
	}
	if o >= len(src) || src[o] != ' ' {
		return
	}
	for o < len(src) && src[o] == ' ' {
		o++
	}
	e := strings.IndexByte(src[o:], ' ')
	next := strings.Fields(ansi.Strip(rest[j]))
	if e <= 0 || len(next) == 0 || stripMarks(src[o:o+e]) != next[0] {
		return
	}
	// Line j must start a line of glamour's paragraph wrap, not be the
	// end of one that its document wrap broke again (it counts widths
	// its own way: a hyphen is not counted, nor are wide characters the
	// same): its first word did not fit after line j-1 whichever way it
	// is counted, and is short enough to have been moved.
	prev, w := ansi.Strip(rest[j-1]), next[0]
	if !plainASCII(prev) || !plainASCII(w) || len(prev)+1+len(w) <= t.width || 2*len(w) > t.width {
		return
	}
	base := para[:len(t.base)+o]
	if !closedInline(base) || !safeStart(src[o:]) {
		return
	}
	t.baseLines = append(append([]string(nil), t.baseLines...), rest[:j]...)
	t.base, t.keep = base, para[:len(base)+e+1]
}

// splitTail splits a closed tail into the blocks before its last line
// and that line, when the line is a paragraph on its own after a blank
// line (or the whole tail) and the blocks cannot reach into it.
func splitTail(src string) (head, para string, ok bool) {
	nl := strings.LastIndexByte(src, '\n')
	para = src[nl+1:]
	if para == "" || !startsParagraph(para) {
		return "", "", false
	}
	if nl < 0 {
		return "", para, true
	}
	head = src[:nl+1]
	if !strings.HasSuffix(head, "\n\n") || strings.TrimSpace(head) == "" {
		return "", "", false
	}
	// HTML blocks may run on across blank lines; a link reference
	// definition above would resolve links in the paragraph.
	for l := range strings.SplitSeq(head, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "<") {
			return "", "", false
		}
	}
	if strings.Contains(head, "]:") {
		return "", "", false
	}
	return head, para, true
}

// startsParagraph reports whether a line starting with s starts a
// paragraph whatever follows: it begins with a letter, which no other
// block begins with.
func startsParagraph(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r)
}

// safeStart reports whether s, the rest of a paragraph from a word on,
// parses as the start of a paragraph the way it does in the middle of
// one: as plain text (a letter), not a list item, heading, quote,
// thematic break or fence.
func safeStart(s string) bool { return startsParagraph(s) }

// stripMarks is a source word as drawn: without the marks of emphasis,
// strong and code spans.
func stripMarks(w string) string {
	if !strings.ContainsAny(w, "*`") {
		return w
	}
	return strings.Map(func(r rune) rune {
		if r == '*' || r == '`' {
			return -1
		}
		return r
	}, w)
}

// closedInline reports whether a paragraph's text, followed by a space
// and more text, is closed: nothing in it can pair with what follows.
// It is cautious: code spans are closed, a star run opens emphasis or
// strong only before a letter, digit or code span and after a space or
// the start, and closes the run it opened only after a letter, digit or
// code span and before a space, punctuation or the end; an underscore is
// allowed between letters or digits (where it is plain text); anything
// else that may be markup ([, ], <, ~, \, &, or other star runs)
// makes it unsure.
func closedInline(s string) bool {
	var open []int // lengths of the star runs open, innermost last
	for i := 0; i < len(s); {
		c := s[i]
		switch c {
		case '`':
			n := runLen(s, i)
			k := closingRun(s[i+n:], s[i:i+n])
			if k < 0 {
				return false
			}
			i += n + k + n
			continue
		case '*':
			n := runLen(s, i)
			before, after := prevByte(s, i), nextByte(s, i+n)
			switch {
			case n <= 2 && (before == ' ' || before == 0) && (isWordByte(after) || after == '`'):
				open = append(open, n)
			case n <= 2 && len(open) > 0 && open[len(open)-1] == n &&
				(isWordByte(before) || before == '`' || before == ')') &&
				(after == 0 || after == ' ' || strings.IndexByte(".,;:!?)'\"", after) >= 0):
				open = open[:len(open)-1]
			default:
				return false
			}
			i += n
			continue
		case '_':
			if !isWordByte(prevByte(s, i)) || !isWordByte(nextByte(s, i+1)) {
				return false
			}
		case '[', ']', '<', '~', '\\', '&', '\t', '\n', '\r':
			return false
		}
		i++
	}
	return len(open) == 0
}

func runLen(s string, i int) int {
	n := 1
	for i+n < len(s) && s[i+n] == s[i] {
		n++
	}
	return n
}

// prevByte is the byte before s[i], 0 at the start.
func prevByte(s string, i int) byte {
	if i == 0 {
		return 0
	}
	return s[i-1]
}

// nextByte is s[i], 0 at the end.
func nextByte(s string, i int) byte {
	if i >= len(s) {
		return 0
	}
	return s[i]
}

// isWordByte reports whether b is an ASCII letter or digit.
func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// plainASCII reports whether s is printable ASCII without a hyphen: its
// width is its length, counted any way.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e || s[i] == '-' {
			return false
		}
	}
	return true
}
