package app

import (
	"myclaw/approval"
	"myclaw/config"
	"myclaw/ui"
)

// uiThemes turns the config's [themes.NAME] into the TUI's.
func uiThemes(in map[string]config.ThemeSpec) map[string]ui.ThemeSpec {
	out := map[string]ui.ThemeSpec{}
	for name, t := range in {
		out[name] = ui.ThemeSpec{Base: t.Base, Background: t.Background, Colours: t.Colours()}
	}
	return out
}

// SandboxState implements ui.SandboxStater, for the status line.
func (b *tuiBackend) SandboxState() approval.Sandbox { return b.app.sandboxStatus() }
