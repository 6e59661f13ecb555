// Command myclaw is an interactive terminal agent: a Bubble Tea TUI by
// default, one headless task with -p. See README.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"myclaw/agent"
	"myclaw/app"
	"myclaw/sandbox"
	"myclaw/tools/proc"
	"myclaw/tools/termtext"
)

func main() {
	// Started as the shell sandbox's launcher: confine and exec, nothing else.
	sandbox.Launch()
	secrets, err := hideSecrets()
	if err != nil {
		// The secrets are unset for children either way; only the start-up
		// copy in /proc may still show them.
		fmt.Fprintln(os.Stderr, "myclaw: warning:", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals...)
	// The TUI's own handler turns SIGTERM into a plain quit, which would
	// exit 0: this copy of each signal says it was one. Its channel gets
	// the signal as the others do, before anything can act on it.
	seen := make(chan os.Signal, 1)
	signal.Notify(seen, stopSignals...)
	go func() {
		// A signal cancels everything; should the way out hang, the
		// processes still go and myclaw exits anyway.
		<-ctx.Done()
		time.Sleep(shutdownWait)
		proc.KillProcesses()
		os.Exit(app.ExitCancelled)
	}()
	code := run(ctx, os.Args[1:], secrets, os.Stdin, os.Stdout, os.Stderr)
	stop()
	select {
	case <-seen:
		// Interrupted, whatever the way out reported: as headless does.
		code = app.ExitCancelled
	default:
	}
	// Nothing myclaw started outlives it: commands still running, background
	// jobs, MCP servers and everything they started.
	proc.KillProcesses()
	os.Exit(code)
}

// stopSignals end myclaw: it winds down, saves the session and exits
// app.ExitCancelled.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// shutdownWait bounds how long myclaw takes to wind down after a signal.
const shutdownWait = 10 * time.Second

// run parses the command line, runs what it asks and maps the outcome to an
// exit code. This is the one place that turns errors into exit codes.
func run(ctx context.Context, args []string, secrets map[string]string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Everything printed for a shell goes through one sanitiser, so that a
	// file name, an error or a model's answer cannot drive the terminal.
	// (The TUI writes to the terminal itself.)
	out, errOut := termtext.NewWriter(stdout), termtext.NewWriter(stderr)
	defer out.Flush()
	defer errOut.Flush()
	stdout, stderr = out, errOut
	err := dispatch(ctx, args, secrets, stdin, stdout, stderr)
	if err == nil {
		return app.ExitOK
	}
	var ue *app.UsageError
	var ae *agent.UserError
	switch {
	case errors.As(err, &ue):
		help := "myclaw --help"
		if len(args) > 0 && args[0] == "mcp" {
			help = "myclaw mcp --help"
		}
		fmt.Fprintf(stderr, "myclaw: %s\nRun '%s' for usage.\n", ue.Msg, help)
		return app.ExitUsage
	case errors.Is(err, errHelp):
		return app.ExitOK
	case errors.Is(err, context.Canceled):
		return app.ExitCancelled
	case errors.Is(err, app.ErrReported):
		return app.ExitFailed
	case errors.As(err, &ae):
		fmt.Fprintf(stderr, "myclaw: %s\n", ae.Msg)
		if ae.Hint != "" {
			fmt.Fprintf(stderr, "hint: %s\n", ae.Hint)
		}
		return app.ExitFailed
	default:
		fmt.Fprintf(stderr, "myclaw: %v\n", err)
		return app.ExitFailed
	}
}

var (
	// errHelp means usage was printed on request.
	errHelp = errors.New("help shown")
)
