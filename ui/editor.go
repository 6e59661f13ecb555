package ui

import (
	"strings"
	"unicode"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"myclaw/tools/termtext"
)

// Cursor drawing: reverse video is not a colour, so it stays under NO_COLOR.
const (
	cursorOn  = "\x1b[7m"
	cursorOff = "\x1b[27m"
)

// editor is a small multi-line text editor: soft-wrapped lines, a cursor
// that does not blink (nothing ticks when idle), Emacs-style keys, paste.
// Enter is left to the caller; the KeyMap's Newline inserts a newline.
//
// Every change goes through a method that ends with scrollToCursor, which
// lays the text out once and keeps the result: view reuses it, so a key
// costs one layout.
type editor struct {
	c           *common
	lines       [][]rune
	row, col    int
	width       int // columns for the text, the prompt excluded
	maxRows     int
	offset      int // first visual row shown
	prompt      func(row int) string
	promptWidth int
	placeholder string
	phView      string // the placeholder rendered for width
	focused     bool
	rev         int // counts changes of the text

	// The layout of the text as of the last scrollToCursor.
	rows   []vrow
	cursor int
}

func newEditor(c *common, placeholder string, maxRows int) editor {
	e := editor{c: c, lines: [][]rune{nil}, placeholder: placeholder, maxRows: maxRows, focused: true}
	e.setWidth(c.width)
	return e
}

func (e *editor) setPrompt(width int, fn func(row int) string) {
	total := e.width + e.promptWidth
	e.prompt, e.promptWidth = fn, width
	e.setWidth(total)
}

// setWidth sets the total width, the prompt included.
func (e *editor) setWidth(w int) {
	e.width = max(w-e.promptWidth, 1)
	e.phView = ""
	if e.placeholder != "" {
		e.phView = e.c.styles.Dim.Render(truncate(e.placeholder, e.width-1))
	}
	e.scrollToCursor()
}

func (e *editor) focus() { e.focused = true }
func (e *editor) blur()  { e.focused = false }

func (e *editor) value() string {
	parts := make([]string, len(e.lines))
	for i, l := range e.lines {
		parts[i] = string(l)
	}
	return strings.Join(parts, "\n")
}

// setValue replaces the text and puts the cursor at its end.
func (e *editor) setValue(s string) {
	e.lines = [][]rune{nil}
	e.row, e.col, e.offset = 0, 0, 0
	e.rev++
	e.insert(s)
	e.scrollToCursor()
}

func (e *editor) reset() { e.setValue("") }

// line is the cursor's line; lineCount the number of lines.
func (e *editor) line() int      { return e.row }
func (e *editor) lineCount() int { return len(e.lines) }

// insert types s at the cursor: line breaks ("\r\n", "\r" too) split
// lines, tabs become spaces, escape sequences and other controls are
// dropped (termtext.Strip), and so are invisible characters: what is typed
// is what shows. Text that must keep them goes in as termtext.Editable.
// The caller scrolls to the cursor.
func (e *editor) insert(s string) {
	s = strings.Map(func(r rune) rune {
		if r == '\u2028' || r == '\u2029' {
			return '\n'
		}
		if termtext.Invisible(r) {
			return -1
		}
		return r
	}, termtext.Strip(s))
	if strings.Contains(s, "\t") {
		s = strings.ReplaceAll(s, "\t", strings.Repeat(" ", tabWidth))
	}
	if s != "" {
		e.rev++
	}
	for i, part := range strings.Split(s, "\n") {
		if i > 0 {
			e.newline()
		}
		if part == "" {
			continue
		}
		r := []rune(part)
		l := e.lines[e.row]
		nl := make([]rune, 0, len(l)+len(r))
		nl = append(append(append(nl, l[:e.col]...), r...), l[e.col:]...)
		e.lines[e.row] = nl
		e.col += len(r)
	}
}

func (e *editor) newline() {
	l := e.lines[e.row]
	head := append([]rune(nil), l[:e.col]...)
	tail := append([]rune(nil), l[e.col:]...)
	e.lines[e.row] = head
	e.lines = append(e.lines[:e.row+1], append([][]rune{tail}, e.lines[e.row+1:]...)...)
	e.row++
	e.col = 0
}

// update handles a key; it reports whether the text changed.
func (e *editor) update(msg tea.KeyMsg) bool {
	if !e.focused {
		return false
	}
	before := e.rev
	defer e.scrollToCursor()
	if msg.Paste {
		e.insert(string(msg.Runes))
		return e.rev != before
	}
	if key.Matches(msg, e.c.keys.Newline) {
		e.newline()
		e.rev++
		return true
	}
	l := e.lines[e.row]
	edited := false // by the cases below; insert counts its own changes
	ek := &e.c.keys.Editor
	// key.Matches names the key anew for each binding; name it once.
	name := msg.String()
	is := func(b key.Binding) bool { return nameMatches(name, b) }
	switch {
	case is(ek.DeleteBack):
		switch {
		case e.col > 0:
			e.lines[e.row] = append(l[:e.col-1:e.col-1], l[e.col:]...)
			e.col--
			edited = true
		case e.row > 0:
			prev := e.lines[e.row-1]
			e.col = len(prev)
			e.lines[e.row-1] = append(prev[:len(prev):len(prev)], l...)
			e.lines = append(e.lines[:e.row], e.lines[e.row+1:]...)
			e.row--
			edited = true
		}
	case is(ek.DeleteForward):
		switch {
		case e.col < len(l):
			e.lines[e.row] = append(l[:e.col:e.col], l[e.col+1:]...)
			edited = true
		case e.row < len(e.lines)-1:
			e.lines[e.row] = append(l[:len(l):len(l)], e.lines[e.row+1]...)
			e.lines = append(e.lines[:e.row+1], e.lines[e.row+2:]...)
			edited = true
		}
	case is(ek.Left):
		switch {
		case e.col > 0:
			e.col--
		case e.row > 0:
			e.row--
			e.col = len(e.lines[e.row])
		}
	case is(ek.Right):
		switch {
		case e.col < len(l):
			e.col++
		case e.row < len(e.lines)-1:
			e.row++
			e.col = 0
		}
	case is(ek.Up):
		if e.row > 0 {
			e.row--
			e.col = min(e.col, len(e.lines[e.row]))
		}
	case is(ek.Down):
		if e.row < len(e.lines)-1 {
			e.row++
			e.col = min(e.col, len(e.lines[e.row]))
		}
	case is(ek.LineStart):
		e.col = 0
	case is(ek.LineEnd):
		e.col = len(l)
	case is(ek.WordLeft):
		e.col = wordLeft(l, e.col)
	case is(ek.WordRight):
		e.col = wordRight(l, e.col)
	case is(ek.DeleteWordBack):
		to := wordLeft(l, e.col)
		e.lines[e.row] = append(l[:to:to], l[e.col:]...)
		e.col, edited = to, to < e.col
	case is(ek.DeleteWordForward):
		to := wordRight(l, e.col)
		e.lines[e.row] = append(l[:e.col:e.col], l[to:]...)
		edited = to > e.col
	case is(ek.DeleteToStart):
		e.lines[e.row] = append([]rune(nil), l[e.col:]...)
		e.col, edited = 0, e.col > 0
	case is(ek.DeleteToEnd):
		e.lines[e.row] = l[:e.col:e.col]
		edited = e.col < len(l)
	case is(ek.Indent):
		e.insert(strings.Repeat(" ", tabWidth))
	case name == " ":
		e.insert(" ")
	default:
		if msg.Type == tea.KeyRunes && !msg.Alt {
			e.insert(string(msg.Runes))
		}
	}
	if edited {
		e.rev++
	}
	return e.rev != before
}

func wordLeft(l []rune, col int) int {
	for col > 0 && unicode.IsSpace(l[col-1]) {
		col--
	}
	for col > 0 && !unicode.IsSpace(l[col-1]) {
		col--
	}
	return col
}

func wordRight(l []rune, col int) int {
	for col < len(l) && unicode.IsSpace(l[col]) {
		col++
	}
	for col < len(l) && !unicode.IsSpace(l[col]) {
		col++
	}
	return col
}

// vrow is one visual row: runes [start, end) of line.
type vrow struct{ line, start, end int }

// runeWidth is how many columns r takes.
func runeWidth(r rune) int {
	if r < 0x80 {
		return 1
	}
	return ansi.StringWidth(string(r))
}

// layout soft-wraps the text to the width, at spaces where it can (as the
// transcript wraps) and inside a word longer than the row, and finds the
// cursor's row.
func (e *editor) layout() (rows []vrow, cursor int) {
	for i, l := range e.lines {
		start, w := 0, 0
		brk := -1 // where the row may end: just after its last space
		for j, r := range l {
			rw := runeWidth(r)
			for w+rw > e.width && j > start {
				end := j
				if brk > start && r != ' ' {
					end = brk // a space that overflows starts the next row
				}
				rows = append(rows, vrow{i, start, end})
				w = 0
				for _, x := range l[end:j] {
					w += runeWidth(x)
				}
				start, brk = end, -1
			}
			w += rw
			if r == ' ' {
				brk = j + 1
			}
		}
		rows = append(rows, vrow{i, start, len(l)})
		// A full last row leaves no room for the cursor at the line's end.
		if i == e.row && e.col == len(l) && w >= e.width && len(l) > 0 {
			rows = append(rows, vrow{i, len(l), len(l)})
		}
	}
	for k, r := range rows {
		if r.line != e.row {
			continue
		}
		if e.col >= r.start && e.col < r.end {
			return rows, k
		}
		if e.col == r.end && r.end == len(e.lines[r.line]) {
			cursor = k // the line's end: the last row that ends there
		}
	}
	return rows, cursor
}

// scrollToCursor lays the text out, keeps the layout for view, and
// scrolls so that the cursor's row is shown.
func (e *editor) scrollToCursor() {
	rows, cur := e.layout()
	e.rows, e.cursor = rows, cur
	h := min(len(rows), max(e.maxRows, 1))
	if cur < e.offset {
		e.offset = cur
	}
	if cur >= e.offset+h {
		e.offset = cur - h + 1
	}
	e.offset = max(min(e.offset, len(rows)-h), 0)
}

func (e *editor) promptFor(row int) string {
	if e.prompt == nil {
		return ""
	}
	return e.prompt(row)
}

func (e *editor) view() []string {
	if len(e.lines) == 1 && len(e.lines[0]) == 0 {
		cur := " "
		if e.focused {
			cur = cursorOn + " " + cursorOff
		}
		return []string{e.promptFor(0) + cur + e.phView}
	}
	rows, cur := e.rows, e.cursor
	h := min(len(rows), max(e.maxRows, 1))
	off := max(min(e.offset, len(rows)-h), 0)
	out := make([]string, 0, h)
	for k := off; k < off+h; k++ {
		r := rows[k]
		text := e.lines[r.line][r.start:r.end]
		var s string
		if e.focused && k == cur {
			c := e.col - r.start
			under := " "
			rest := ""
			if c < len(text) {
				under = string(text[c])
				rest = string(text[c+1:])
			}
			s = string(text[:c]) + cursorOn + under + cursorOff + rest
		} else {
			s = string(text)
		}
		out = append(out, e.promptFor(k)+s)
	}
	return out
}

// nameMatches is key.Matches for a key whose name (msg.String()) is known.
func nameMatches(name string, b key.Binding) bool {
	if !b.Enabled() {
		return false
	}
	for _, k := range b.Keys() {
		if k == name {
			return true
		}
	}
	return false
}
