package ui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// paneArmDelay is how long a new pane or form ignores keys: long enough to
// stop the keys of a sentence being typed as it opens, short enough to go
// unnoticed.
var paneArmDelay = 400 * time.Millisecond

// armAfter reports msg once paneArmDelay has passed. It is nil when there
// is no delay: then what opened is armed at once.
func armAfter(msg tea.Msg) tea.Cmd {
	if paneArmDelay <= 0 {
		return nil
	}
	return tea.Tick(paneArmDelay, func(time.Time) tea.Msg { return msg })
}

// paneArmedMsg arms the pane of p.
type paneArmedMsg struct{ p *pendingApproval }

// armPane arms the pane now open, after paneArmDelay (at once with none).
func (m Model) armPane() (Model, tea.Cmd) {
	if m.pane == nil || m.pane.armed {
		return m, nil
	}
	cmd := armAfter(paneArmedMsg{p: m.pane.p})
	m.pane.armed = cmd == nil
	return m, cmd
}

// formArmedMsg arms form f if it has stayed in view since it came into
// view for the shown-th time.
type formArmedMsg struct {
	f     *elicitForm
	shown int
}

// guardForm keeps the form's guard after every message: a form takes keys
// only paneArmDelay after it came into view, and a pane drawn over it
// hides it, so it waits again when the pane goes.
func (m Model) guardForm() (Model, tea.Cmd) {
	f := m.form
	switch {
	case f == nil:
		return m, nil
	case m.pane != nil:
		f.armed, f.arming = false, false
		return m, nil
	case f.armed || f.arming:
		return m, nil
	}
	f.shown++
	cmd := armAfter(formArmedMsg{f: f, shown: f.shown})
	f.armed, f.arming = cmd == nil, cmd != nil
	return m, cmd
}

// typeAhead puts the text typed while a form comes into view in the
// prompt, where it was going, to be sent or not once the form is done.
// Every other key, Enter first, does nothing.
func (m Model) typeAhead(msg tea.KeyMsg) Model {
	if msg.Paste || msg.Type == tea.KeyRunes || msg.Type == tea.KeySpace || msg.Type == tea.KeyBackspace {
		m.input.ta.focus()
		m.input.update(msg)
		m.input.ta.blur()
	}
	return m
}
