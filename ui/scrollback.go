package ui

import "strings"

// scrollbackText is the conversation as the transcript draws it at the
// screen's width, for the normal screen on exit: the alternate screen
// leaves nothing behind, so this is how finished turns reach the
// terminal's own scrollback.
func (m Model) scrollbackText() string {
	if m.c == nil || m.c.width <= 0 {
		return ""
	}
	var b strings.Builder
	for _, bl := range m.tr.blocks {
		for _, l := range bl.lines(m.c) {
			b.WriteString(l)
			b.WriteString("\n")
		}
	}
	return b.String()
}
