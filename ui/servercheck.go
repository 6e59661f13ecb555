package ui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"
)

// serverStatusMsg is the start-up check's outcome with the status line's
// figures read after it.
type serverStatusMsg struct {
	checked serverCheckedMsg
	status  statusRefreshMsg
}

// checkServerStatus runs the start-up check behind the first frame, then
// reads the status: the check learns the model's window, and its outcome
// and the window reach the screen in one frame rather than two.
func checkServerStatus(base context.Context, b Backend) tea.Cmd {
	check, status := checkServer(base, b), refreshStatus(b)
	return func() tea.Msg {
		return serverStatusMsg{checked: check().(serverCheckedMsg), status: status().(statusRefreshMsg)}
	}
}

func (m Model) handleServerStatus(msg serverStatusMsg) (Model, tea.Cmd) {
	m, _ = m.update(msg.checked) // its refresh is msg.status
	return m.update(msg.status)
}
