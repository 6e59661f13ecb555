package main

import (
	"context"
	"path/filepath"
	"strings"

	"myclaw/ui"
)

// runTUI opens the interactive program.
func runTUI(ctx context.Context, o options, secrets map[string]string) error {
	a, err := newApp(o, secrets)
	if err != nil {
		return err
	}
	defer a.close()
	ag, err := a.buildAgent(true)
	if err != nil {
		return err
	}
	return ui.Run(ctx, ag, ui.Options{
		Workspace: shortenHome(a.workspace.Dir()),
		LogPath:   filepath.Join(a.stateDir, "myclaw.log"),
		Banner:    strings.Join(a.notices, "\n"),
	})
}
