package ui

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// closeTail returns the unfinished last block of a streamed answer as it
// will render once what it opened is closed, so that the live tail does
// not jump when the closing marks arrive: `*scroll` is drawn in italics
// at once, rather than with a star that vanishes a moment later. An open
// code fence is closed, and a line that may be the start of a fence is
// held back. Emphasis, strong, strikethrough, code spans and a link's
// destination are closed at the end of the paragraph being written: they
// may cross its lines, never a paragraph, a list item or a quote.
// Finished blocks are never touched: they render from their own text.
func closeTail(src string) string {
	start := strings.LastIndexByte(src, '\n') + 1
	head, last := src[:start], src[start:]
	fence := ""
	for l := range strings.SplitSeq(strings.TrimSuffix(head, "\n"), "\n") {
		switch {
		case head == "":
		case fence != "":
			if closesFence(l, fence) {
				fence = ""
			}
		default:
			fence = openFence(l)
		}
	}
	if fence != "" {
		if fenceRun(last, fence[0]) {
			last = "" // the closing fence, still arriving
		}
		if last != "" {
			last += "\n"
		}
		return head + last + fence
	}
	switch {
	case fenceRun(last, '`') || fenceRun(last, '~'):
		return head // maybe a fence on its way
	case strings.HasPrefix(src, "    ") || strings.HasPrefix(src, "\t"):
		return src // an indented code block has no markup
	}
	p := paragraphStart(src, start)
	return src[:p] + closeInline(src[p:])
}

// paragraphStart is where the inline run that ends src begins: emphasis,
// code spans and links may cross the lines of one paragraph, but not a
// blank line, a fence, a heading, a table row or a new list item or quote
// (which starts a run of its own). last is where src's last line starts.
func paragraphStart(src string, last int) int {
	p := last
	for p > 0 {
		prev := strings.LastIndexByte(src[:p-1], '\n') + 1
		l := trimIndent(src[prev : p-1])
		switch {
		case l == "", openFence(l) != "", fenceRun(l, '`'), fenceRun(l, '~'),
			strings.HasPrefix(l, "#"), strings.HasPrefix(l, "|"):
			return p
		}
		if startsContainer(trimIndent(src[p:])) {
			return p
		}
		p = prev
		if startsContainer(l) {
			return p
		}
	}
	return p
}

// startsContainer reports whether a line (indent trimmed) opens a list
// item or a block quote.
func startsContainer(l string) bool {
	if strings.HasPrefix(l, ">") {
		return true
	}
	if len(l) >= 2 && strings.IndexByte("-*+", l[0]) >= 0 && l[1] == ' ' {
		return true
	}
	i := 0
	for i < len(l) && i < 9 && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(l) && (l[i] == '.' || l[i] == ')') && l[i+1] == ' '
}

// fenceRun reports whether line, past up to three spaces of indent, is a
// run of c and nothing else.
func fenceRun(line string, c byte) bool {
	l := trimIndent(line)
	return l != "" && strings.Trim(l, string(c)) == ""
}

// closeInline closes the emphasis, strong, strikethrough and code spans a
// line leaves open, and holds back the run of marks it ends with, which
// the next delta will make an opener, a closer or plain text. The rules
// are CommonMark's, simplified and cautious: a run closes when a
// non-space precedes it and an opener of its kind is open; it opens when
// a non-space follows it and a space or a punctuation mark precedes it
// (so 2*3 stays plain); one tilde is plain (~/path).
func closeInline(line string) string {
	type opener struct {
		c byte
		n int
	}
	var open []opener
	closers := func() string {
		var b strings.Builder
		for i := len(open) - 1; i >= 0; i-- {
			b.WriteString(strings.Repeat(string(open[i].c), open[i].n))
		}
		return b.String()
	}
	// Closers go before trailing spaces, where they can close.
	body := strings.TrimRightFunc(line, unicode.IsSpace)
	trail := line[len(body):]
	for i := 0; i < len(body); {
		c := body[i]
		switch c {
		case '\\':
			i += 2
			continue
		case '`', '*', '_', '~':
		default:
			i++
			continue
		}
		j := i
		for j < len(body) && body[j] == c {
			j++
		}
		n := j - i
		if j == len(body) {
			return body[:i] + closeLink(body[:i]) + closers() + trail
		}
		if c == '`' {
			run := strings.Repeat("`", n)
			k := closingRun(body[j:], run)
			if k < 0 {
				// An open code span: nothing after it is markup.
				return body + run + closers() + trail
			}
			i = j + k + n
			continue
		}
		if c == '~' && n < 2 {
			i = j
			continue
		}
		before, _ := utf8.DecodeLastRuneInString(body[:i])
		after, _ := utf8.DecodeRuneInString(body[j:])
		left := !unicode.IsSpace(after) && (i == 0 || unicode.IsSpace(before) || unicode.IsPunct(before))
		right := i > 0 && !unicode.IsSpace(before)
		top := len(open) - 1
		for top >= 0 && open[top].c != c {
			top--
		}
		switch {
		case right && top >= 0:
			open = open[:top]
		case left:
			open = append(open, opener{c, n})
		}
		i = j
	}
	return body + closeLink(body) + closers() + trail
}

// closeLink is ")" when s ends inside an inline link's destination
// ("see [the docs](https://exa"), which is drawn as the link it will be
// rather than as brackets that vanish when the ")" arrives; else "".
func closeLink(s string) string {
	open := strings.LastIndex(s, "](")
	if open < 0 || strings.LastIndexByte(s[:open], '[') < 0 {
		return ""
	}
	dest := s[open+2:]
	if dest == "" || strings.ContainsAny(dest, ") \t\n<>") {
		return ""
	}
	return ")"
}

// closingRun is where in s a backtick run of exactly run's length is, or -1.
func closingRun(s, run string) int {
	for k := 0; k < len(s); {
		p := strings.Index(s[k:], run)
		if p < 0 {
			return -1
		}
		p += k
		e := p + len(run)
		if (p == 0 || s[p-1] != '`') && (e == len(s) || s[e] != '`') {
			return p
		}
		for e < len(s) && s[e] == '`' {
			e++
		}
		k = e
	}
	return -1
}
