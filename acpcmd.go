package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"myclaw/acp"
	"myclaw/app"
)

// runACP serves the Agent Client Protocol on stdio for an editor. The
// protocol owns stdout, so it gets the real one, not the sanitising writer
// the other modes print through: JSON escapes every control character.
func runACP(ctx context.Context, args []string, secrets map[string]string, stderr io.Writer) error {
	o := app.Options{Version: shortVersion()}
	fs := flag.NewFlagSet("myclaw acp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	// No --workspace or --session: each session's come from the editor.
	fs.StringVar(&o.Model, "model", "", "model `name` (overrides the config)")
	fs.StringVar(&o.ConfigPath, "config", "", "config `file` (default $XDG_CONFIG_HOME/myclaw/config.toml)")
	fs.StringVar(&o.Autonomy, "autonomy", "", "starting autonomy `level` of new sessions: readonly, ask (default), auto-edit, or full (the editor's mode picker changes it)")
	fs.StringVar(&o.Sandbox, "sandbox", "", "`off` runs shell commands unsandboxed; on (default) overrides [shell.sandbox] enabled = false")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, "Usage: myclaw acp [flags]\n\nServes the Agent Client Protocol on stdin and stdout, for an editor (Zed and others).\nEach session's workspace is the folder the editor opens it in.\n\nFlags:\n")
			printFlags(stderr, fs)
			return errHelp
		}
		return &app.UsageError{Msg: err.Error()}
	}
	if rest := fs.Args(); len(rest) > 0 {
		return &app.UsageError{Msg: fmt.Sprintf("unexpected argument %q", strings.Join(rest, " "))}
	}
	return acp.Run(ctx, acp.Options{App: o, Secrets: secrets}, os.Stdin, os.Stdout)
}
