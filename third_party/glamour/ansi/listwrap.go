package ansi

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark/ast"
)

// listBreakpoints are where a list's lines may break besides spaces, as
// upstream breaks them.
const listBreakpoints = " ,.;-+|"

// listItems records which bytes of a list's buffer are its items' own
// text, and how wide the marker ("• ", "10. ", "[ ] ") each starts with
// is. Upstream wraps a list's buffer whole, so an item's second line
// started under its marker; wrapped apart, each item's text continues
// under its first character. Nested blocks (a list, a code block, a
// quote in an item) are laid out by their own elements and kept as they
// are. The spans cover the buffer from the first item on, in order.
type listItems struct {
	spans []listSpan
	hang  int // the marker width of the item being written
}

// listSpan starts at start in the list's buffer and runs to the next
// span. Its text starts at text, after the item's marker; hang is the
// marker's width, or -1 for a nested block.
type listSpan struct {
	start, text, hang int
}

// item records an item's marker, at start in the buffer, its text at text.
func (l *listItems) item(marker string, start, text int) {
	l.hang = ansi.StringWidth(marker)
	l.spans = append(l.spans, listSpan{start, text, l.hang})
}

// nested records a nested block starting at at; resume, text of the item
// after it (its next paragraph, the break before the next item).
func (l *listItems) nested(at int) { l.spans = append(l.spans, listSpan{at, at, -1}) }
func (l *listItems) resume(at int) { l.spans = append(l.spans, listSpan{at, at, l.hang}) }

// nestedInItem reports whether node is a block of its own in a list item,
// rather than the item's text.
func nestedInItem(node ast.Node) bool {
	if node.Type() != ast.TypeBlock || node.Parent() == nil || node.Parent().Kind() != ast.KindListItem {
		return false
	}
	k := node.Kind()
	return k != ast.KindParagraph && k != ast.KindTextBlock
}

// layout wraps a list's buffer to width: each item's text to the width
// left after its marker, its later lines indented by the marker's width.
func (l *listItems) layout(buf string, width int) string {
	if len(l.spans) == 0 {
		return buf
	}
	var b strings.Builder
	b.Grow(len(buf) + len(buf)/8)
	b.WriteString(buf[:l.spans[0].start])
	for i, sp := range l.spans {
		end := len(buf)
		if i+1 < len(l.spans) {
			end = l.spans[i+1].start
		}
		if sp.hang < 0 || width-sp.hang < 1 {
			b.WriteString(buf[sp.start:end])
			continue
		}
		b.WriteString(buf[sp.start:sp.text])
		// Text after a nested block starts a line of its own.
		first := sp.text == sp.start && sp.start > 0 && buf[sp.start-1] == '\n'
		hangText(&b, ansi.Wrap(buf[sp.text:end], width-sp.hang, listBreakpoints), sp.hang, first)
	}
	return b.String()
}

// hangText writes wrapped text to b, indenting all its lines but the
// first (and the first too if first) by hang cells. Styles in force at a
// line's end are ended there and set again after the indent, so that
// neither the indent nor the padding after the line shows them (a link's
// underline).
func hangText(b *strings.Builder, s string, hang int, first bool) {
	pad := strings.Repeat(" ", hang)
	var sgr []string // the SGR sequences in force
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			if len(sgr) > 0 {
				b.WriteString("\x1b[0m")
			}
			b.WriteByte('\n')
		}
		if (i > 0 || first) && line != "" && ansi.Strip(line) != "" {
			b.WriteString(pad)
		}
		if i > 0 {
			for _, q := range sgr {
				b.WriteString(q)
			}
		}
		b.WriteString(line)
		sgr = inForce(sgr, line)
	}
}

// inForce is sgr, the SGR sequences in force, after line: a reset clears
// them, any other adds to them. line holds whole escape sequences.
func inForce(sgr []string, line string) []string {
	for i := strings.Index(line, "\x1b["); i >= 0; {
		j := escapeEnd(line, i)
		if q := line[i:j]; strings.HasSuffix(q, "m") {
			switch p := q[2 : len(q)-1]; {
			case p == "" || p == "0":
				sgr = sgr[:0]
			case strings.HasPrefix(p, "0;"):
				sgr = append(sgr[:0], q)
			default:
				sgr = append(sgr, q)
			}
		}
		k := strings.Index(line[j:], "\x1b[")
		if k < 0 {
			break
		}
		i = j + k
	}
	return sgr
}
