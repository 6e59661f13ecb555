package ui

import "strings"

// keptWhileBusy puts a command that cannot run while a turn (or a
// compaction) runs back in the input, and says so on the status line
// until the next key. A line in the transcript would go in above the
// answer being streamed, where nobody looks, and scroll away with it; the
// input and the status line are where the person is looking. Enter sends
// it again once the turn is over.
func (m Model) keptWhileBusy(text string) Model {
	m.input.setValue(text)
	what, first := "the turn", strings.TrimSpace(text)
	if m.turn == nil && m.compactCancel != nil {
		what = "the compaction"
	}
	if f := strings.Fields(first); len(f) > 0 {
		first = f[0]
	}
	m.busyNote = truncate(oneLine(first), 24) + " waits for " + what + ": kept in the input · " +
		m.c.keys.Cancel.Help().Key + " cancels it"
	return m
}
