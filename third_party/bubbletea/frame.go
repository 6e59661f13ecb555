package tea

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Drawing a full-screen frame as the difference from the last one: rows
// that moved up are scrolled by the terminal (a scroll region and SU)
// instead of being written again, and a changed row is written from its
// first changed cell, not from its start. A model typing into a transcript
// that follows the bottom then costs about the text it adds.

const (
	syncBegin = "\x1b[?2026h"
	syncEnd   = "\x1b[?2026l"
	sgrReset  = "\x1b[m"
)

// minScrollGain is how many rows a scroll must save before it is used:
// below that, writing the rows costs less than the sequences.
const minScrollGain = 2

// altFrame writes newLines (one per screen row, already cut to the
// screen's height) over the last frame, old (nil: nothing known, paint
// all). Rows below the frame, up to height, are cleared.
func altFrame(b *strings.Builder, old, newLines []string, width, height int, t *termState) {
	if width > 0 {
		// Most rows are the last frame's: their cut is remembered.
		cut := make(map[string]string, len(newLines))
		for i, l := range newLines {
			c, ok := t.cut[l]
			if !ok || t.cutWidth != width {
				c = ansi.Truncate(l, width, "")
			}
			cut[l] = c
			newLines[i] = c
		}
		t.cut, t.cutWidth = cut, width
	}
	if old == nil {
		t.forget()
		b.WriteString(ansi.CursorHomePosition)
		for i, l := range newLines {
			b.WriteString(l)
			if ansi.StringWidth(l) < width || width <= 0 {
				b.WriteString(ansi.EraseLineRight)
			}
			if i < len(newLines)-1 {
				b.WriteString("\r\n")
			}
		}
		// Not after a full last row: with the cursor waiting to wrap,
		// the erase would take that row's last cell.
		if len(newLines) < height {
			b.WriteString(ansi.CursorPosition(1, len(newLines)+1))
			b.WriteString(ansi.EraseScreenBelow)
		}
		return
	}
	cur := make([]string, len(newLines))
	copy(cur, old)
	if top, bottom, n := bestScroll(cur, newLines); n > 0 {
		// Rows top+n..bottom move to top..bottom-n; the n rows left at
		// the bottom of the region are blank.
		// Reset first: the rows scrolled in take the pen's background.
		t.set(b, "")
		b.WriteString(ansi.SetTopBottomMargins(top+1, bottom+1))
		b.WriteString(ansi.ScrollUp(n))
		b.WriteString(ansi.SetTopBottomMargins(0, 0))
		// Setting the margins took the cursor home.
		t.curKnown, t.row, t.col = true, 0, 0
		copy(cur[top:bottom-n+1], cur[top+n:bottom+1])
		for i := bottom - n + 1; i <= bottom; i++ {
			cur[i] = ""
		}
	}
	// Rows that only grew go last: the next frame's text most often
	// follows theirs, where the cursor and the pen then already are.
	var grown []int
	for i, l := range newLines {
		switch {
		case cur[i] == l:
		case cur[i] != "" && movedRow(cur[i], l):
			grown = append(grown, i)
		default:
			writeRowChange(b, i, cur[i], l, width, t)
		}
	}
	for _, i := range grown {
		writeRowChange(b, i, cur[i], newLines[i], width, t)
	}
	if len(old) > len(newLines) {
		t.moveTo(b, len(newLines), 0)
		t.set(b, "")
		b.WriteString(ansi.EraseScreenBelow)
	}
}

// bestScroll finds the upward shift of a run of rows that saves the most
// rewritten rows: rows top..bottom of the screen scroll up by n. n is 0
// when no shift saves at least minScrollGain rows.
func bestScroll(old, newLines []string) (top, bottom, n int) {
	rows := min(len(old), len(newLines))
	// Each old row is tried against every new row: its typed part is
	// worked out once.
	typed := make([]string, rows)
	for i := range typed {
		typed[i] = typedPart(old[i])
	}
	best := 0
	for shift := 1; shift < rows; shift++ {
		runStart, gain := -1, 0
		for i := 0; i+shift <= rows; i++ {
			if i+shift < rows && movedTyped(old[i+shift], typed[i+shift], newLines[i]) {
				if runStart < 0 {
					runStart, gain = i, 0
				}
				if newLines[i] != old[i] {
					gain++
				}
				continue
			}
			if runStart >= 0 {
				// The rows the scroll blanks must be written again,
				// even those that needed nothing before.
				end := i - 1 + shift
				g := gain
				for j := end - shift + 1; j <= end; j++ {
					if newLines[j] == old[j] {
						g--
					}
				}
				if g > best {
					best, top, bottom, n = g, runStart, end, shift
				}
			}
			runStart = -1
		}
	}
	if best < minScrollGain {
		return 0, 0, 0
	}
	return top, bottom, n
}

// movedRow reports whether the row was, moved, becomes now or the start of
// it (a line still being typed when it scrolled).
func movedRow(was, now string) bool {
	return was == now || movedTyped(was, typedPart(was), now)
}

// movedTyped is movedRow with was's typedPart already worked out.
func movedTyped(was, typed, now string) bool {
	return was == now || typed != "" && strings.HasPrefix(now, typed)
}

// typedPart is row without the style sequences at its end: the typed
// line's end may close its style, where the longer one goes on.
func typedPart(row string) string {
	for strings.HasSuffix(row, "m") {
		i := strings.LastIndex(row, "\x1b[")
		if i < 0 || !isSGR(row[i:]) {
			break
		}
		row = row[:i]
	}
	return row
}

// cell is one screen cell as a row draws it: its grapheme ("" for the
// right half of a wide one) and the style in force, as the parameters of
// the style sequences since the last reset ("1;38;5;252").
type cell struct {
	text string
	pen  string
}

// rowCells splits a row into cells, appended to cells, and says the style
// in force at its end (the rest of the screen row is erased with it). ok
// is false when the row holds a sequence other than a style (a link, a
// title): such a row is written whole.
func rowCells(cells []cell, row string) (_ []cell, end string, ok bool) {
	pen := ""
	var state byte
	for len(row) > 0 {
		seq, w, n, next := ansi.DecodeSequence(row, state, nil)
		if n <= 0 {
			return nil, "", false
		}
		row, state = row[n:], next
		switch {
		case w > 0:
			cells = append(cells, cell{text: seq, pen: pen})
			for i := 1; i < w; i++ {
				cells = append(cells, cell{pen: pen})
			}
		case isSGR(seq):
			pen = addStyle(pen, seq[2:len(seq)-1])
		default:
			return nil, "", false // another sequence, or a control character
		}
	}
	return cells, pen, state == 0
}

// addStyle is pen after a style sequence with parameters params: a
// leading 0 (or nothing) resets what came before.
func addStyle(pen, params string) string {
	switch {
	case params == "" || params == "0":
		return ""
	case strings.HasPrefix(params, "0;"):
		return params[2:]
	case pen == "":
		return params
	}
	return pen + ";" + params
}

// termState is what the terminal's pen and cursor are known to be, kept
// from frame to frame so that a change next to the last one needs neither
// a move nor a style.
type termState struct {
	penKnown bool
	pen      string
	curKnown bool
	row, col int
	// cut maps the last frame's rows to them cut to cutWidth.
	cut      map[string]string
	cutWidth int
	// oldCells and newCells are writeRowChange's buffers.
	oldCells, newCells []cell
}

func (t *termState) set(b *strings.Builder, pen string) {
	if t.penKnown && t.pen == pen {
		return
	}
	if pen == "" {
		b.WriteString(sgrReset)
	} else {
		b.WriteString("\x1b[0;" + pen + "m")
	}
	t.penKnown, t.pen = true, pen
}

func (t *termState) moveTo(b *strings.Builder, row, col int) {
	if t.curKnown && t.row == row && t.col == col {
		return
	}
	b.WriteString(ansi.CursorPosition(col+1, row+1))
	t.curKnown, t.row, t.col = true, row, col
}

// advance follows the cursor over w cells written; at the last column it
// waits to wrap, a state not worth modelling.
func (t *termState) advance(w, width int) {
	t.col += w
	if width > 0 && t.col >= width {
		t.curKnown = false
	}
}

// forget drops what is known of the terminal (not the rows' cuts, nor
// the buffers).
func (t *termState) forget() {
	*t = termState{cut: t.cut, cutWidth: t.cutWidth, oldCells: t.oldCells, newCells: t.newCells}
}

// writeRowChange turns row (0-based) from was into now, writing only the
// runs of cells that differ, each with its own style, and erasing what
// was left past now's end.
func writeRowChange(b *strings.Builder, row int, was, now string, width int, t *termState) {
	// The cells are split into buffers kept from row to row: a frame
	// changes a row or two, each its hundred-odd cells.
	oldCells, oldEnd, okOld := rowCells(t.oldCells[:0], was)
	newCells, newEnd, okNew := rowCells(t.newCells[:0], now)
	t.oldCells, t.newCells = oldCells, newCells
	if !okOld || !okNew {
		t.moveTo(b, row, 0)
		t.set(b, "")
		b.WriteString(now)
		t.forget()
		if width <= 0 || ansi.StringWidth(now) < width {
			b.WriteString(ansi.EraseLineRight)
		}
		return
	}
	// Past a row's end its cells are blank, erased in its end style.
	oldAt := func(i int) cell {
		if i < len(oldCells) {
			return oldCells[i]
		}
		return cell{text: " ", pen: oldEnd}
	}
	same := func(i int) bool { return oldAt(i) == newCells[i] }
	for i := 0; i < len(newCells); {
		if same(i) {
			i++
			continue
		}
		// A wide grapheme is written from its left half.
		for i > 0 && newCells[i].text == "" {
			i--
		}
		t.moveTo(b, row, i)
		for i < len(newCells) && (!same(i) || newCells[i].text == "") {
			if c := newCells[i]; c.text != "" {
				t.set(b, c.pen)
				b.WriteString(c.text)
				t.advance(ansi.StringWidth(c.text), width)
			}
			i++
		}
	}
	if width > 0 && len(newCells) >= width {
		return
	}
	if len(oldCells) > len(newCells) || oldEnd != newEnd {
		t.moveTo(b, row, len(newCells))
		t.set(b, newEnd)
		b.WriteString(ansi.EraseLineRight)
	}
}

func isSGR(seq string) bool {
	return strings.HasPrefix(seq, "\x1b[") && strings.HasSuffix(seq, "m") &&
		strings.Trim(seq[2:len(seq)-1], "0123456789;:") == ""
}

// FrameWriter is the full-screen renderer's drawing on its own, for tests
// and benchmarks outside this package: each Frame is what the renderer
// writes to turn the screen showing the last frame into this one.
type FrameWriter struct {
	width, height int
	old           []string
	t             termState
}

// NewFrameWriter draws on a screen of width × height cells.
func NewFrameWriter(width, height int) *FrameWriter {
	return &FrameWriter{width: width, height: height}
}

// Frame returns the bytes that draw lines (one per row).
func (f *FrameWriter) Frame(lines []string) string {
	var b strings.Builder
	n := append([]string(nil), lines...)
	altFrame(&b, f.old, n, f.width, f.height, &f.t)
	if f.old == nil {
		b.WriteString(ansi.CursorPosition(0, len(n)))
		f.t.curKnown, f.t.row, f.t.col = true, len(n)-1, 0
	}
	f.old = n
	return b.String()
}
