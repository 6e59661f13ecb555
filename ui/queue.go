package ui

import "strings"

// queuedView shows the prompts waiting for the running turn, above the
// input.
func (m Model) queuedView() []string {
	if len(m.queued) == 0 {
		return nil
	}
	st := &m.c.styles
	w := m.c.contentWidth()
	var out []string
	for _, q := range m.queued {
		out = append(out, truncate(st.Dim.Render("  ⧗ queued: ")+oneLine(q), w))
	}
	hint := "  sent when the turn ends · " + m.c.keys.HistoryPrev.Help().Key + " on an empty prompt takes the last one back"
	return append(out, truncate(st.Dim.Render(hint), w))
}

// unqueue takes the newest queued prompt back into the input, to edit or
// drop it.
func (m Model) unqueue() Model {
	n := len(m.queued)
	m.input.restore(m.asShown(m.queued[n-1]))
	m.queued = m.queued[:n-1]
	return m
}

// nextQueued returns the prompt to send now that a turn ended. After a
// cancel nothing is sent unasked: the queued prompts go back to the input,
// after what it holds, so none is left waiting for a turn that will not
// end on its own.
func (m Model) nextQueued(cancelled bool) (Model, string, bool) {
	if len(m.queued) == 0 {
		return m, "", false
	}
	if cancelled {
		// Chips of the same label stand for their pastes in order, so
		// the draft's pastes go first.
		back := sentText{pastes: m.input.pastes}
		var parts []string
		if draft := m.input.ta.value(); draft != "" {
			parts = append(parts, draft)
		}
		for _, q := range m.queued {
			s := m.asShown(q)
			parts = append(parts, s.shown)
			back.pastes = append(back.pastes, s.pastes...)
		}
		back.shown = strings.Join(parts, "\n\n")
		m.input.restore(back)
		m.queued = nil
		return m, "", false
	}
	next := m.queued[0]
	m.queued = m.queued[1:]
	return m, next, true
}
