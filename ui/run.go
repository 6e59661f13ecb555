package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	stdlog "log"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/term"

	"myclaw/agent"
)

// Options configures Run.
type Options struct {
	Workspace string    // shown in the status line, with ~ for the home directory
	LogPath   string    // where the TUI logs (never to the terminal)
	Input     io.Reader // nil -> os.Stdin   (for tests)
	Output    io.Writer // nil -> os.Stdout
	Banner    []Notice  // lines shown at the top on start (e.g. "ignored .myclaw.toml: folder not trusted")
	// Notices carries lines from outside a turn (MCP servers starting or
	// failing) to show in the transcript; nil when there are none.
	Notices <-chan Notice
	// Forms carries MCP servers' requests for input (elicitation); nil
	// when there are none.
	Forms <-chan FormRequest
	// Earlier is the conversation so far when a session is resumed, shown
	// above the new input (rendered lazily, like every block).
	Earlier []Earlier
	// Rest, when set, loads the conversation before Earlier (a long
	// session resumed from its last turns): the TUI calls it behind the
	// first frame and puts what it returns above them.
	Rest func() Rest
	// Commands loads the custom slash commands (nil: none), at start,
	// after /trust, and when CommandsStamp changes.
	Commands CommandLoader
	// CommandsStamp describes the commands' folders cheaply (see
	// CommandsStamp); typing "/" or completing a command checks it, so a
	// file added, changed or removed is picked up without a restart (nil:
	// loaded at start only).
	CommandsStamp func() string
	// Files is the tree @ completion lists (nil: the Workspace folder).
	Files fs.FS
	// EditorKey replaces Ctrl+G, which opens the external editor.
	EditorKey string
	// Notify is how to call for attention while the terminal is not
	// focused: NotifyOff (or ""), NotifyBell, NotifyOSC.
	Notify string
	// Scrollback writes the conversation to the normal screen on exit,
	// where the terminal's own scrollback, search and selection reach it.
	Scrollback bool
	// Inline keeps the session on the normal screen (inline.go): finished
	// blocks are printed into the terminal's scrollback as they finish,
	// above a live region; no mouse capture. Scrollback is then moot.
	Inline bool
	// Version and Server are named in the welcome line.
	Version, Server string
	// Unsandboxed is set when the person chose to run shell commands
	// without the sandbox (--sandbox off): the status line and the
	// welcome line say so in red.
	Unsandboxed bool
	// HistoryPath keeps the prompts for recall across restarts ("" keeps
	// them for the run only).
	HistoryPath string
	// Theme names the palette: ThemeAuto (or ""), "dark", "light" or
	// one of Themes.
	Theme  string
	Themes map[string]ThemeSpec
	// Keys rebinds actions of the KeyMap: action name → keys ([keys]).
	Keys map[string][]string
	// StatusLine picks and orders the status line's segments (nil: the
	// standard line); StatusCommand is a command whose output is the
	// line instead. Both come from the user's own config only.
	StatusLine    []string
	StatusCommand string
	// StatusConfine readies each run of the status command: in a folder
	// not trusted it runs confined, read-only and without network, since
	// what it runs (git, say) obeys the folder's own files; done ends the
	// confinement once the command ended. An error says why it cannot run.
	// Nil runs it as it is.
	StatusConfine func(cmd *exec.Cmd) (done func(), err error)
}

// Earlier is one message of a resumed conversation.
type Earlier struct {
	// Role is "user", "assistant" or "tool" (a one-line account of a call).
	Role string
	Text string
	// Call is how a "tool" call ended, when the session recorded it: it is
	// then drawn as a card, like a live one.
	Call *agent.CallRecord
}

// shutdownWait bounds how long quitting waits for a cancelled turn to
// return (and save the session) before giving up on it.
const shutdownWait = 5 * time.Second

// Run runs the TUI (alternate screen and mouse wheel, or inline) until the
// user quits or ctx ends. A running turn is cancelled and waited for before Run returns.
// Logs go to opts.LogPath; if it cannot be opened, the TUI says so and
// runs without logs.
func Run(ctx context.Context, b Backend, opts Options) error {
	log, closeLog, logErr := openLog(opts.LogPath)
	defer closeLog()
	m := newModel(ctx, b, opts, log)
	if logErr != nil {
		m.tr.add(warnBlock("logging is off: " + logErr.Error()))
	}

	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if !opts.Inline {
		popts = append(popts, tea.WithAltScreen(), tea.WithMouseCellMotion())
	}
	if opts.Notify != "" && opts.Notify != NotifyOff {
		popts = append(popts, tea.WithReportFocus())
	}
	if in := ttyInput(opts.Input); in != nil {
		pr := newPasteReader(in)
		m.pastes = pr.q
		popts = append(popts, tea.WithInput(pr.input()))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	} else if opts.Input == nil && terminalHasSync() {
		popts = append(popts, tea.WithSynchronizedOutput())
	}
	p := tea.NewProgram(m, popts...)
	log.Info("tui started", "workspace", opts.Workspace)
	final, err := p.Run()
	if !m.shared.shutdown(shutdownWait) {
		log.Warn("a turn did not stop within the shutdown wait", "wait", shutdownWait)
	}
	log.Info("tui stopped", "err", err)
	switch {
	case err == nil:
		// On the normal screen, so it stays in the scrollback.
		width := 0
		if fm, ok := final.(Model); ok {
			width = fm.c.width
		}
		out := opts.Output
		if out == nil {
			out = os.Stdout
		}
		if fm, ok := final.(Model); ok && fm.inl != nil {
			// Below the last frame, which was left empty.
			fmt.Fprint(out, fm.finishRest().inlineRest())
		} else if ok && opts.Scrollback {
			fmt.Fprint(out, fm.finishRest().scrollbackText())
		}
		if s := quitSummary(b, width); s != "" {
			fmt.Fprint(out, s)
		}
		return nil
	case errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil:
		return ctx.Err()
	}
	return fmt.Errorf("terminal UI: %w", err)
}

// ttyInput is the input to read: opts.Input, or standard input when it is
// a terminal (otherwise Bubble Tea opens one). Windows reads its console
// with its own API, so standard input is left to Bubble Tea there.
func ttyInput(in io.Reader) io.Reader {
	if in == nil && runtime.GOOS != "windows" && term.IsTerminal(os.Stdin.Fd()) {
		return os.Stdin
	}
	return in
}

// openLog opens the log file for appending, creating its directory. The
// standard logger goes there too, so that nothing a library logs reaches
// the screen behind Bubble Tea. With no path, logs are discarded.
func openLog(path string) (*slog.Logger, func(), error) {
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))
	prev := stdlog.Writer()
	if path == "" {
		stdlog.SetOutput(io.Discard)
		return discard, func() { stdlog.SetOutput(prev) }, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		stdlog.SetOutput(io.Discard)
		return discard, func() { stdlog.SetOutput(prev) }, fmt.Errorf("create log directory: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		stdlog.SetOutput(io.Discard)
		return discard, func() { stdlog.SetOutput(prev) }, fmt.Errorf("open log: %w", err)
	}
	stdlog.SetOutput(f)
	return slog.New(slog.NewTextHandler(f, nil)), func() {
		stdlog.SetOutput(prev)
		_ = f.Close()
	}, nil
}

// Notice is a line from outside a turn: a warning (drawn as one: "!"), or
// news (an MCP server running, a session resumed).
type Notice struct {
	Text    string
	Warning bool
	// Resumed marks the notice of a session resumed from its end: once
	// the earlier turns are in, Rest.Notice takes its place.
	Resumed bool
}
