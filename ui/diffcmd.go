package ui

import (
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/tools/termtext"
)

// diffCommand runs /diff [N]: the session's changes from the journal, or
// the change of call #N.
func (m Model) diffCommand(args []string, usage func() (Model, tea.Cmd)) (Model, tea.Cmd) {
	seq := 0
	switch len(args) {
	case 0:
	case 1:
		n, err := strconv.Atoi(strings.TrimPrefix(args[0], "#"))
		if err != nil || n < 1 {
			return usage()
		}
		seq = n
	default:
		return usage()
	}
	b := m.backend
	return m, func() tea.Msg {
		d, err := b.Diff(seq)
		if err != nil {
			return commandResultMsg{err: err}
		}
		return commandResultMsg{draw: diffDraw(d)}
	}
}

// diffDraw shows a unified diff coloured like the approval preview.
func diffDraw(d string) func(c *common) []string {
	// Escaped as the approval pane shows a diff, names included.
	d = strings.TrimRight(termtext.Visible(d), "\n")
	return func(c *common) []string {
		st := &c.styles
		if d == "" {
			return []string{"  " + st.Dim.Render("no changes in place: nothing this session wrote is applied now")}
		}
		var out []string
		for l := range strings.SplitSeq(d, "\n") {
			style := diffStyle(st, l)
			for _, w := range wrapPlain(expandTabs(l), c.contentWidth()-2) {
				out = append(out, "  "+style(w))
			}
		}
		return out
	}
}
