package builtin

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"myclaw/tools"
	"myclaw/tools/termtext"
)

// grepNames is a line of the result naming the first of n files (names,
// already shown with fsShowPath), or "" if n is 0. Names go in the fenced
// body, never in the note.
func grepNames(what string, names []string, n int) string {
	if n == 0 {
		return ""
	}
	more := ""
	if n > len(names) {
		more = fmt.Sprintf(" and %d more", n-len(names))
	}
	return "(" + what + ": " + strings.Join(names, ", ") + more + ")\n"
}

// grepCut renders a matching line whose match starts at byte at: valid
// UTF-8, with every control and invisible character shown as an escape
// and every byte that is not UTF-8 as \xHH (termtext.Visible: a bare
// '\r', VT, FF, U+0085, U+2028 or U+2029 would read as a line break, and
// the file could forge result lines for files that do not exist). A line
// over grepMaxLineBytes shows that many bytes on character boundaries:
// from its start, or, when the match lies past them, from a little before
// the match, saying how much was left out on each side.
func grepCut(line []byte, at int) string {
	start := 0
	if at+grepMaxLineBytes/2 > grepMaxLineBytes {
		start = at - grepMaxLineBytes/4
		for start < at && !utf8.RuneStart(line[start]) {
			start++
		}
	}
	cut := tools.CutUTF8(line[start:], grepMaxLineBytes)
	shown := len(cut)
	text := termtext.Visible(string(cut))
	if start > 0 {
		text = fmt.Sprintf("[%d bytes before] … ", start) + text
	}
	if rest := len(line) - start - shown; rest > 0 {
		text += fmt.Sprintf(" … [%d more bytes]", rest)
	}
	return text
}
