package ui

import (
	"fmt"
	"strconv"

	tea "github.com/charmbracelet/bubbletea"
	"myclaw/approval"
)

// runWalk runs /undo [N] [--force] and /redo [N].
func runWalk(m Model, cmd command, args []string) (Model, tea.Cmd) {
	n, force := 1, false
	for _, a := range args {
		switch v, err := strconv.Atoi(a); {
		case a == "--force" && cmd.name == "undo":
			force = true
		case err == nil && v > 0:
			n = v
		default:
			return m.usageError(cmd)
		}
	}
	b, ctx := m.backend, m.shared.base
	return m, func() tea.Msg {
		var out string
		var err error
		if cmd.name == "undo" {
			out, err = b.Undo(ctx, n, force)
		} else {
			out, err = b.Redo(ctx, n)
		}
		entries, _ := b.History()
		return commandResultMsg{draw: textDraw(out), err: err, refresh: true, journal: entries}
	}
}

func (m Model) historyCommand() (Model, tea.Cmd) {
	b := m.backend
	return m, func() tea.Msg {
		entries, err := b.History()
		return commandResultMsg{draw: func(c *common) []string { return drawHistory(c, entries) }, err: err}
	}
}

// runTools runs /tools and /tools NAME.
func runTools(m Model, cmd command, args []string) (Model, tea.Cmd) {
	b := m.backend
	switch len(args) {
	case 0:
		return m, func() tea.Msg {
			list := b.Tools()
			return commandResultMsg{draw: func(c *common) []string { return drawTools(c, list) }}
		}
	case 1:
		name := args[0]
		return m, func() tea.Msg {
			for _, t := range b.Tools() {
				if t.Meta.Name == name || t.Wire == name {
					return commandResultMsg{draw: func(c *common) []string { return drawToolDetails(c, t) }}
				}
			}
			return commandResultMsg{err: fmt.Errorf("no tool named %q; /tools lists them", name)}
		}
	}
	return m.usageError(cmd)
}

// runAutonomy shows the levels, or sets one.
func runAutonomy(m Model, cmd command, args []string) (Model, tea.Cmd) {
	b := m.backend
	switch len(args) {
	case 0:
		return m, func() tea.Msg {
			cur := b.Autonomy()
			return commandResultMsg{draw: func(c *common) []string { return drawLevels(c, cur) }}
		}
	case 1:
		level, err := approval.ParseLevel(args[0])
		if err != nil {
			m = m.addBlock(errorBlock(err.Error(), "/autonomy with no argument lists the levels"))
			return m, nil
		}
		return m, func() tea.Msg {
			b.SetAutonomy(level)
			return commandResultMsg{draw: textDraw("autonomy set to " + string(level) + ": " + levelHelp[level]), refresh: true}
		}
	}
	return m.usageError(cmd)
}

// runMouse toggles mouse capture, or sets it on or off.
func runMouse(m Model, cmd command, args []string) (Model, tea.Cmd) {
	switch {
	case len(args) == 0:
		return m.setMouse(m.c.mouseOff)
	case len(args) == 1 && (args[0] == "on" || args[0] == "off"):
		return m.setMouse(args[0] == "on")
	}
	return m.usageError(cmd)
}

// clearCommand starts a new conversation and says where the old one's
// undo history is.
func (m Model) clearCommand() (Model, tea.Cmd) {
	b := m.backend
	return m, func() tea.Msg {
		old := b.Status().SessionID
		if err := b.NewConversation(); err != nil {
			return commandResultMsg{err: err}
		}
		return commandResultMsg{draw: textDraw(clearedNote(old)), refresh: true, cleared: true}
	}
}
