// Package termframe tests the full-screen drawing of the terminal UI (the
// renderer in third_party/bubbletea): what it writes, played on a small
// terminal emulator, must leave the screen a full repaint would.
package termframe

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// cell is one screen cell: its text (a grapheme; "" continues a wide one
// on its left) and the style sequences in force when it was drawn.
type cell struct {
	text string
	pen  string
}

// emulator understands what the renderer emits: printable graphemes with
// autowrap, CR, LF, CUP, EL, ED, DECSTBM, SU and SGR; other sequences are
// ignored.
type emulator struct {
	rows, cols  int
	screen      [][]cell
	row, col    int
	wrapPending bool
	top, bottom int // scroll region, inclusive, 0-based
	pen         []string
}

func newEmulator(rows, cols int) *emulator {
	e := &emulator{rows: rows, cols: cols, bottom: rows - 1}
	e.screen = make([][]cell, rows)
	for i := range e.screen {
		e.screen[i] = e.blankRow()
	}
	return e
}

func (e *emulator) blankRow() []cell {
	r := make([]cell, e.cols)
	for i := range r {
		r[i] = cell{text: " "}
	}
	return r
}

func (e *emulator) penString() string { return strings.Join(e.pen, ";") }

func (e *emulator) scrollUp(n int) {
	for ; n > 0; n-- {
		copy(e.screen[e.top:e.bottom], e.screen[e.top+1:e.bottom+1])
		e.screen[e.bottom] = e.blankRow()
	}
}

func (e *emulator) lineFeed() {
	if e.row == e.bottom {
		e.scrollUp(1)
		return
	}
	if e.row < e.rows-1 {
		e.row++
	}
}

func (e *emulator) put(g string, w int) {
	if w == 0 {
		return
	}
	if e.wrapPending || e.col+w > e.cols {
		e.col, e.wrapPending = 0, false
		e.lineFeed()
	}
	e.screen[e.row][e.col] = cell{text: g, pen: e.penString()}
	for i := 1; i < w; i++ {
		e.screen[e.row][e.col+i] = cell{pen: e.penString()}
	}
	e.col += w
	if e.col >= e.cols {
		e.col, e.wrapPending = e.cols-1, true
	}
}

func params(seq string) []int {
	body := strings.TrimLeft(seq[2:len(seq)-1], "?")
	if body == "" {
		return nil
	}
	var out []int
	for _, p := range strings.Split(body, ";") {
		n, err := strconv.Atoi(p)
		if err != nil {
			n = 0
		}
		out = append(out, n)
	}
	return out
}

func param(ps []int, i, def int) int {
	if i < len(ps) && ps[i] > 0 {
		return ps[i]
	}
	return def
}

func (e *emulator) csi(seq string) {
	final := seq[len(seq)-1]
	private := len(seq) > 2 && seq[2] == '?'
	ps := params(seq)
	switch {
	case private:
		return // modes
	case final == 'H':
		e.row = min(param(ps, 0, 1), e.rows) - 1
		e.col = min(param(ps, 1, 1), e.cols) - 1
		e.wrapPending = false
	case final == 'K':
		from, to := e.col, e.cols
		if param(ps, 0, 0) == 2 {
			from = 0
		}
		for i := from; i < to; i++ {
			e.screen[e.row][i] = cell{text: " ", pen: e.penString()}
		}
	case final == 'J':
		for i := e.col; i < e.cols; i++ {
			e.screen[e.row][i] = cell{text: " ", pen: e.penString()}
		}
		for r := e.row + 1; r < e.rows; r++ {
			e.screen[r] = e.blankRow()
		}
	case final == 'r':
		e.top, e.bottom = param(ps, 0, 1)-1, param(ps, 1, e.rows)-1
		e.row, e.col, e.wrapPending = 0, 0, false
	case final == 'S':
		e.scrollUp(param(ps, 0, 1))
	case final == 'm':
		body := seq[2 : len(seq)-1]
		switch {
		case body == "" || body == "0":
			e.pen = nil
		case strings.HasPrefix(body, "0;"):
			e.pen = []string{body[2:]}
		default:
			e.pen = append(e.pen, body)
		}
	}
}

func (e *emulator) write(s string) {
	var state byte
	for len(s) > 0 {
		seq, w, n, next := ansi.DecodeSequence(s, state, nil)
		state = next
		s = s[n:]
		switch {
		case seq == "\r":
			e.col, e.wrapPending = 0, false
		case seq == "\n":
			e.lineFeed()
		case strings.HasPrefix(seq, "\x1b["):
			e.csi(seq)
		case strings.HasPrefix(seq, "\x1b"):
		default:
			e.put(seq, w)
		}
	}
}

// text is the screen's characters, rows joined by newlines.
func (e *emulator) text() string {
	var b strings.Builder
	for i, r := range e.screen {
		for _, c := range r {
			b.WriteString(c.text)
		}
		if i < len(e.screen)-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
