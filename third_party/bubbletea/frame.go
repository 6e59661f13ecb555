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
func altFrame(b *strings.Builder, old, newLines []string, width, height int) {
	if width > 0 {
		for i, l := range newLines {
			newLines[i] = ansi.Truncate(l, width, "")
		}
	}
	if old == nil {
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
		b.WriteString(sgrReset)
		b.WriteString(ansi.SetTopBottomMargins(top+1, bottom+1))
		b.WriteString(ansi.ScrollUp(n))
		b.WriteString(ansi.SetTopBottomMargins(0, 0))
		copy(cur[top:bottom-n+1], cur[top+n:bottom+1])
		for i := bottom - n + 1; i <= bottom; i++ {
			cur[i] = ""
		}
	}
	clean := false // the pen's state is unknown until a row is written
	for i, l := range newLines {
		if cur[i] == l {
			continue
		}
		clean = writeRowChange(b, i, cur[i], l, width, clean)
	}
	if len(old) > len(newLines) {
		b.WriteString(ansi.CursorPosition(1, len(newLines)+1))
		b.WriteString(ansi.EraseScreenBelow)
	}
}

// bestScroll finds the upward shift of a run of rows that saves the most
// rewritten rows: rows top..bottom of the screen scroll up by n. n is 0
// when no shift saves at least minScrollGain rows.
func bestScroll(old, newLines []string) (top, bottom, n int) {
	rows := min(len(old), len(newLines))
	best := 0
	for shift := 1; shift < rows; shift++ {
		runStart, gain := -1, 0
		for i := 0; i+shift <= rows; i++ {
			if i+shift < rows && movedRow(old[i+shift], newLines[i]) {
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
	return was == now || was != "" && strings.HasPrefix(now, was)
}

// writeRowChange rewrites row (0-based) from the first cell where was and
// now differ: the pen is reset (unless clean says it is) and the styles in
// force there replayed, so the rest draws as it would from the row's
// start. It returns whether the pen is left reset.
func writeRowChange(b *strings.Builder, row int, was, now string, width int, clean bool) bool {
	keep, col, styles, ok := commonCells(was, now)
	if !ok {
		keep, col, styles = 0, 0, ""
	}
	b.WriteString(ansi.CursorPosition(col+1, row+1))
	if !clean {
		b.WriteString(sgrReset)
	}
	b.WriteString(styles)
	b.WriteString(now[keep:])
	nowWidth := ansi.StringWidth(now)
	endsClean := endsReset(now)
	// Past was's end the row is blank already, erased by a pen that was
	// reset as this one is: only a shorter row needs the erase.
	if (width <= 0 || nowWidth < width) && !(endsClean && endsReset(was) && ansi.StringWidth(was) <= nowWidth) {
		b.WriteString(ansi.EraseLineRight)
	}
	return endsClean
}

// endsReset reports whether s leaves the pen reset: its last style
// sequence is a reset, or it has none.
func endsReset(s string) bool {
	for end := len(s); end > 0; {
		i := strings.LastIndex(s[:end], "\x1b[")
		if i < 0 {
			return true
		}
		j := i + 2
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';' || s[j] == ':') {
			j++
		}
		if j < len(s) && s[j] == 'm' {
			p := s[i+2 : j]
			return p == "" || p == "0"
		}
		end = i
	}
	return true
}

// commonCells is how much of now's start was already drawn by was: the
// byte offset and cell column of the last boundary between sequences or
// graphemes inside their common prefix, and the style sequences (SGR) of
// now before it. ok is false when the kept part holds a sequence other
// than SGR (a link, a title): then the row is written whole.
func commonCells(was, now string) (keep, col int, styles string, ok bool) {
	limit := 0
	for limit < len(was) && limit < len(now) && was[limit] == now[limit] {
		limit++
	}
	if limit == len(now) && limit == len(was) {
		return len(now), ansi.StringWidth(now), "", false
	}
	var sgr strings.Builder
	var state byte
	off, width := 0, 0
	for off < len(now) {
		seq, w, n, next := ansi.DecodeSequence(now[off:], state, nil)
		if n <= 0 || off+n > limit {
			break
		}
		if w == 0 && len(seq) > 0 && seq[0] == '\x1b' {
			switch {
			case seq == "\x1b[m" || seq == "\x1b[0m":
				sgr.Reset() // what came before no longer counts
			case isSGR(seq):
				sgr.WriteString(seq)
			default:
				return 0, 0, "", false
			}
		}
		off += n
		width += w
		state = next
	}
	// A boundary is safe only in the ground state (not inside a sequence).
	if state != 0 {
		return 0, 0, "", false
	}
	return off, width, sgr.String(), true
}

func isSGR(seq string) bool {
	return strings.HasPrefix(seq, "\x1b[") && strings.HasSuffix(seq, "m") &&
		strings.Trim(seq[2:len(seq)-1], "0123456789;:") == ""
}

// DiffFrame is what the full-screen renderer writes to turn the screen
// showing old into one showing newLines (old nil: the screen is unknown),
// for tests and benchmarks of the drawing outside this package.
func DiffFrame(old, newLines []string, width, height int) string {
	var b strings.Builder
	n := append([]string(nil), newLines...)
	altFrame(&b, old, n, width, height)
	return b.String()
}
