package ui

import tea "github.com/charmbracelet/bubbletea"

// SkillsReporter is a backend that knows the session's Agent Skills;
// /skills needs it.
type SkillsReporter interface {
	// SkillsReport lists every skill found, where it came from, and why
	// one is not loaded.
	SkillsReport() string
}

// skillsCommand runs /skills.
func (m Model) skillsCommand() (Model, tea.Cmd) {
	r, ok := m.backend.(SkillsReporter)
	if !ok {
		m = m.addBlock(errorBlock("skills are not available here", ""))
		return m, nil
	}
	return m, func() tea.Msg { return commandResultMsg{draw: textDraw(r.SkillsReport())} }
}
