package ui

import (
	"fmt"
	"slices"
	"strings"
)

// scrollbackLines bounds what goes to the terminal's scrollback on exit:
// about what terminals keep (tmux 2,000 lines, many terminals 10,000). A
// long resumed session is tens of thousands of lines, seconds to draw
// again whole and more than the scrollback holds; its earlier turns are
// in the session (--continue).
const scrollbackLines = 5000

// scrollbackText is the end of the conversation as the transcript draws
// it at the screen's width, at most scrollbackLines of it in whole
// blocks, for the normal screen on exit: the alternate screen leaves
// nothing behind, so this is how finished turns reach the terminal's own
// scrollback.
func (m Model) scrollbackText() string {
	if m.c == nil || m.c.width <= 0 {
		return ""
	}
	var tail [][]string // blocks' lines, last first
	n, first := 0, len(m.tr.blocks)
	for first > 0 && n < scrollbackLines {
		first--
		ls := m.tr.blocks[first].lines(m.c)
		tail = append(tail, ls)
		n += len(ls)
	}
	var b strings.Builder
	if first > 0 {
		b.WriteString(m.c.styles.Dim.Render(fmt.Sprintf("⋯ %d earlier blocks of this session are not repeated here: myclaw --continue shows them", first)))
		b.WriteString("\n")
	}
	for _, ls := range slices.Backward(tail) {
		for _, l := range ls {
			b.WriteString(l)
			b.WriteString("\n")
		}
	}
	return b.String()
}
