package ui

import (
	"github.com/charmbracelet/lipgloss"
)

// pickTheme resolves the configured theme. Only auto asks the terminal
// for its background: termenv sends an OSC 11 query followed by a cursor
// report every terminal answers, so a terminal without OSC 11 costs one
// round trip; with no answer at all it gives up after its own time limit.
// No answer (and tmux or screen, which termenv does not ask through,
// without COLORFGBG) means dark. An unknown theme is reported and auto
// is used.
func pickTheme(name string, user map[string]ThemeSpec) (Theme, error) {
	dark := true
	if name == "" || name == ThemeAuto {
		dark = lipgloss.HasDarkBackground()
	}
	t, err := ResolveTheme(name, user, dark)
	if err != nil {
		t, _ = ResolveTheme(ThemeAuto, nil, lipgloss.HasDarkBackground())
	}
	return t, err
}
