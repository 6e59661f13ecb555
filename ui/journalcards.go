package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"myclaw/history"
)

// journalMsg brings the journal's entries, so that the cards of the calls
// say where their changes stand (undone, redone) after /undo, /redo or a
// resume.
type journalMsg struct{ entries []history.Entry }

// loadJournal reads the journal behind the frame; a journal that cannot be
// read leaves the cards as they are (/history says why).
func loadJournal(b Backend) tea.Cmd {
	return func() tea.Msg {
		entries, err := b.History()
		if err != nil {
			return journalMsg{} // read, if in vain: the inline screen prints the cards
		}
		return journalMsg{entries: entries}
	}
}

// hasPastCards reports whether the transcript shows calls of a resumed
// session, whose state the journal knows better than the record.
func (m Model) hasPastCards() bool {
	for _, b := range m.tr.blocks {
		if t, ok := b.(*toolCard); ok && t.past {
			return true
		}
	}
	return false
}

// markJournal gives every card the state of its call in the journal. A
// server may reuse call ids: the newest entry of an id speaks for it.
func (m Model) markJournal(entries []history.Entry) Model {
	byID := make(map[string]history.Entry, len(entries))
	for _, e := range entries {
		if e.CallID != "" {
			byID[e.CallID] = e
		}
	}
	for _, b := range m.tr.blocks {
		t, ok := b.(*toolCard)
		if !ok {
			continue
		}
		if e, ok := byID[t.call.ID]; ok {
			t.setJournal(e)
		}
	}
	return m
}

// setJournal records where the call's change stands.
func (t *toolCard) setJournal(e history.Entry) {
	state, redone, reversible := e.State, false, t.reversible
	switch e.State {
	case history.StateUndone:
	case history.StateApplied, history.StatePending:
		redone = e.Redone
		// A resumed card learns only here that /undo can still revert it.
		reversible = reversible || e.Reversible
	default:
		return
	}
	if state == t.journal && redone == t.redone && reversible == t.reversible {
		return
	}
	t.update(func(t *toolCard) { t.journal, t.redone, t.reversible = state, redone, reversible })
}
