package ui

import tea "github.com/charmbracelet/bubbletea"

// SandboxReporter is a backend that can say what the shell sandbox
// enforces here; /sandbox needs it.
type SandboxReporter interface {
	// SandboxReport describes the sandbox: active or why not, where
	// commands may write, network, and what it does not cover.
	SandboxReport() string
}

// sandboxCommand runs /sandbox.
func (m Model) sandboxCommand() (Model, tea.Cmd) {
	r, ok := m.backend.(SandboxReporter)
	if !ok {
		m = m.addBlock(errorBlock("the sandbox is not available here", ""))
		return m, nil
	}
	return m, func() tea.Msg { return commandResultMsg{draw: textDraw(r.SandboxReport())} }
}
