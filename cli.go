package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"myclaw/app"
	"os"
	"strconv"
	"strings"
)

const usageText = `myclaw — a terminal agent that asks before it acts and can undo what it did.

Usage:
  myclaw [flags]                 open the TUI
  myclaw -p "prompt" [flags]     run one task headless (-p - reads the prompt from stdin)
  myclaw --goal TEXT --check CMD work toward TEXT headless until CMD passes
  myclaw undo [N] [--force]      revert the newest N reversible calls of this
                                 workspace, whichever session made them
  myclaw redo [N]                re-apply the newest N undone calls
  myclaw history [--approvals [--all]]
                                 list the calls of the session (or the approval
                                 decisions of this workspace, or of all)
  myclaw version, --version      print the version, commit and Go version
  myclaw completion SHELL        print the completion script for bash, zsh or fish
  myclaw acp                     serve the Agent Client Protocol on stdio, for
                                 editors (Zed and others)
  myclaw sandbox-check           self-test the shell sandbox and say what it enforces here
  myclaw mcp list|add|remove|login|logout
                                 manage MCP servers and their logins
                                 (myclaw mcp --help says more)
  myclaw sessions                list the stored sessions of this workspace (resume one
                                 with --session ID, the newest with --continue; add
                                 --fork to go on in a copy)

Environment:
  OPENAI_BASE_URL                the model server (default http://localhost:11434/v1, Ollama)
  OPENAI_API_KEY                 its key, if it needs one (never put in a prompt)

Flags:
`

func newFlagSet(name string, o *app.Options) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// Errors are reported once, by run; the usage only on --help.
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.Model, "model", "", "model `name` (overrides the config)")
	fs.StringVar(&o.ConfigPath, "config", "", "config `file` (default $XDG_CONFIG_HOME/myclaw/config.toml)")
	fs.StringVar(&o.Workspace, "workspace", "", "workspace `dir` the file tools are confined to (default: the current directory)")
	fs.StringVar(&o.Session, "session", "", "use the session with this `id`")
	return fs
}

// dispatch picks the mode from the arguments and runs it.
func dispatch(ctx context.Context, args []string, secrets map[string]string, stdin io.Reader, stdout, stderr io.Writer) error {
	o := app.Options{Version: shortVersion()}
	mode := "main"
	if len(args) > 0 {
		switch args[0] {
		case "version", "--version", "-version":
			return runVersion(args[1:], stdout)
		case "completion":
			return runCompletion(args[1:], stdout)
		case "mcp":
			return runMCP(ctx, args[1:], secrets, stdin, stdout, stderr)
		case "acp":
			return runACP(ctx, args[1:], secrets, stderr)
		case "undo", "redo", "history", "sandbox-check", "sessions":
			mode, args = args[0], args[1:]
		}
	}
	fs := newFlagSet("myclaw", &o)
	switch mode {
	case "main":
		fs.Func("p", "run one `prompt` headless and exit (- reads stdin)", func(s string) error { o.Prompt, o.HasPrompt = s, true; return nil })
		fs.StringVar(&o.Autonomy, "autonomy", "", "autonomy `level`: readonly, ask (default), auto-edit, or full (no prompts, commands still sandboxed)")
		fs.StringVar(&o.Sandbox, "sandbox", "", "`off` runs shell commands unsandboxed, with your full rights (under full without asking); on (default) overrides [shell.sandbox] enabled = false")
		fs.StringVar(&o.Output, "output", "text", "headless output `format`: text or json")
		fs.StringVar(&o.Screen, "screen", "", "screen `mode` of the session: auto, alternate or inline (overrides [ui] screen)")
		fs.BoolVar(&o.Continue, "continue", false, "resume the newest session of the workspace")
		fs.BoolVar(&o.Fork, "fork", false, "with --continue or --session: go on in a new session copied from it (it stays as it was)")
		fs.BoolVar(&o.Trust, "trust", false, "trust the workspace's .myclaw.toml (it can run commands) and remember it")
		fs.BoolVar(&o.SandboxCheck, "sandbox-check", false, "self-test the shell sandbox, say what it enforces here, and exit")
		goalFlags(fs, &o)
		fs.BoolVar(&o.Plan, "plan", false, "start in plan mode: the model explores read-only and submits a plan; with -p, print the plan and exit without acting")
	case "undo":
		fs.BoolVar(&o.Force, "force", false, "undo even if the files changed since (the current version is kept for redo)")
	case "history":
		fs.BoolVar(&o.Approvals, "approvals", false, "list the approval decisions made in this workspace instead of the calls")
		fs.BoolVar(&o.All, "all", false, "with --approvals: the decisions of every workspace")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, usageText)
			printFlags(stderr, fs)
			return errHelp
		}
		return &app.UsageError{Msg: err.Error() + flagHint(err)}
	}
	rest := fs.Args()
	switch mode {
	case "undo", "redo":
		o.Count = 1
		if len(rest) > 0 {
			n, err := strconv.Atoi(rest[0])
			if err != nil || n < 1 {
				return &app.UsageError{Msg: fmt.Sprintf("%s takes a positive count, not %q", mode, rest[0])}
			}
			o.Count, rest = n, rest[1:]
			// Flags may follow the count.
			if err := fs.Parse(rest); err != nil {
				return &app.UsageError{Msg: err.Error()}
			}
			rest = fs.Args()
		}
	}
	if len(rest) > 0 {
		return &app.UsageError{Msg: fmt.Sprintf("unexpected argument %q", strings.Join(rest, " "))}
	}
	if mode == "main" && o.Output != "text" && o.Output != "json" {
		return &app.UsageError{Msg: fmt.Sprintf("--output %q: want text or json", o.Output)}
	}
	if o.Continue && o.Session != "" {
		return &app.UsageError{Msg: "use --continue or --session, not both"}
	}
	if o.Fork && !o.Continue && o.Session == "" {
		return &app.UsageError{Msg: "--fork needs --continue or --session ID: the session to fork"}
	}
	switch mode {
	case "undo", "redo", "history":
		return app.RunJournal(ctx, mode, o, secrets, stdout, stderr)
	case "sessions":
		return app.RunSessions(o, secrets, stdout)
	case "sandbox-check":
		return app.RunSandboxCheck(ctx, o, secrets, stdout)
	}
	if o.SandboxCheck {
		return app.RunSandboxCheck(ctx, o, secrets, stdout)
	}
	if err := goalUsage(o); err != nil {
		return err
	}
	if o.Goal.Text != "" {
		return app.RunHeadless(ctx, o, secrets, stdout, stderr)
	}
	if o.HasPrompt {
		if o.Prompt == "-" {
			b, err := io.ReadAll(stdin)
			if err != nil {
				return fmt.Errorf("read the prompt from stdin: %w", err)
			}
			o.Prompt = string(b)
		}
		if strings.TrimSpace(o.Prompt) == "" {
			return &app.UsageError{Msg: "-p needs a prompt"}
		}
		return app.RunHeadless(ctx, o, secrets, stdout, stderr)
	}
	if f, ok := stdin.(*os.File); ok && !isTerminal(f) {
		return &app.UsageError{Msg: "stdin is not a terminal, and myclaw without -p opens the terminal UI; to send a prompt from a pipe, use: myclaw -p -"}
	}
	return app.RunTUI(ctx, o, secrets)
}

// isTerminal reports whether f is a character device (a terminal; also
// /dev/null, which the TUI reads as no input).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// printFlags lists the flags GNU style, as the README writes them:
// "--model name", and "-p prompt" for the one-letter flag.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		head := "  " + dash + f.Name
		if arg != "" {
			head += " " + arg
		}
		if f.DefValue != "" && f.DefValue != "false" {
			usage += fmt.Sprintf(" (default %q)", f.DefValue)
		}
		if len(head) < 32 {
			fmt.Fprintf(w, "%-33s%s\n", head, usage)
		} else {
			fmt.Fprintf(w, "%s\n%33s%s\n", head, "", usage)
		}
	})
}

// flagHint names myclaw's way of doing what an unknown flag other agents
// have asks for.
func flagHint(err error) string {
	if strings.HasSuffix(err.Error(), "not defined: -resume") {
		return " (--continue resumes the newest session of this workspace, --session ID a given one; /sessions in myclaw lists them)"
	}
	return ""
}
