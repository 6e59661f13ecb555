package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// vt is a small terminal emulator with a scrollback, for the inline
// screen's tests (the full-screen one is internal/termframe's): printable
// graphemes with autowrap, CR, LF, CUU, CUD, CUP, EL, ED; a line that
// scrolls off the top joins the history. Styles and modes are ignored
// (tests draw without colours).
type vt struct {
	rows, cols  int
	history     []string
	screen      [][]string
	row, col    int
	wrapPending bool
}

func newVT(rows, cols int) *vt {
	v := &vt{rows: rows, cols: cols, screen: make([][]string, rows)}
	for i := range v.screen {
		v.screen[i] = v.blank()
	}
	return v
}

func (v *vt) blank() []string {
	r := make([]string, v.cols)
	for i := range r {
		r[i] = " "
	}
	return r
}

func (v *vt) lineFeed() {
	if v.row < v.rows-1 {
		v.row++
		return
	}
	v.history = append(v.history, rowText(v.screen[0]))
	copy(v.screen, v.screen[1:])
	v.screen[v.rows-1] = v.blank()
}

func (v *vt) put(g string, w int) {
	if w == 0 {
		return
	}
	if v.wrapPending || v.col+w > v.cols {
		v.col, v.wrapPending = 0, false
		v.lineFeed()
	}
	v.screen[v.row][v.col] = g
	for i := 1; i < w; i++ {
		v.screen[v.row][v.col+i] = ""
	}
	v.col += w
	if v.col >= v.cols {
		v.col, v.wrapPending = v.cols-1, true
	}
}

func (v *vt) csi(seq string) {
	if len(seq) > 2 && (seq[2] == '?' || seq[2] == '>' || seq[2] == '=') {
		return // modes and queries
	}
	final := seq[len(seq)-1]
	var ps []int
	for p := range strings.SplitSeq(seq[2:len(seq)-1], ";") {
		n, _ := strconv.Atoi(p)
		ps = append(ps, n)
	}
	arg := func(i, def int) int {
		if i < len(ps) && ps[i] > 0 {
			return ps[i]
		}
		return def
	}
	switch final {
	case 'A':
		v.row = max(v.row-arg(0, 1), 0)
		v.wrapPending = false
	case 'B':
		v.row = min(v.row+arg(0, 1), v.rows-1)
		v.wrapPending = false
	case 'H':
		v.row, v.col = min(arg(0, 1), v.rows)-1, min(arg(1, 1), v.cols)-1
		v.wrapPending = false
	case 'K':
		from, to := v.col, v.cols
		switch arg(0, 0) {
		case 1:
			from, to = 0, v.col+1
		case 2:
			from = 0
		}
		for i := from; i < to; i++ {
			v.screen[v.row][i] = " "
		}
	case 'J':
		if arg(0, 0) == 2 {
			for r := range v.screen {
				v.screen[r] = v.blank()
			}
			return
		}
		for i := v.col; i < v.cols; i++ {
			v.screen[v.row][i] = " "
		}
		for r := v.row + 1; r < v.rows; r++ {
			v.screen[r] = v.blank()
		}
	}
}

func (v *vt) write(s string) {
	var state byte
	for len(s) > 0 {
		seq, w, n, next := ansi.DecodeSequence(s, state, nil)
		state = next
		s = s[n:]
		switch {
		case seq == "\r":
			v.col, v.wrapPending = 0, false
		case seq == "\n":
			v.lineFeed()
		case strings.HasPrefix(seq, "\x1b["):
			v.csi(seq)
		case strings.HasPrefix(seq, "\x1b"), w == 0:
		default:
			v.put(seq, w)
		}
	}
}

func rowText(r []string) string { return strings.TrimRight(strings.Join(r, ""), " ") }

// lines is the history, then the screen, each line without trailing
// spaces; blank lines at the end of the screen are left out.
func (v *vt) lines() []string {
	out := append([]string(nil), v.history...)
	for _, r := range v.screen {
		out = append(out, rowText(r))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}
