package app

import "errors"

// Exit statuses of myclaw.
const (
	ExitOK        = 0
	ExitFailed    = 1
	ExitUsage     = 2
	ExitCancelled = 130
)

// ErrReported means the failure was already reported to the user: exit
// with ExitFailed and say nothing more.
var ErrReported = errors.New("failure reported")

// Options are the command-line settings shared by every mode.
type Options struct {
	Prompt     string
	HasPrompt  bool
	Model      string
	ConfigPath string
	Workspace  string
	Autonomy   string
	Output     string
	Continue   bool
	Fork       bool
	Session    string
	Trust      bool
	Force      bool
	Approvals  bool
	All        bool
	Count      int
	// Version is myclaw's version, for the TUI's welcome line.
	Version string
	// SandboxCheck runs the sandbox self-test and exits.
	SandboxCheck bool
	// Sandbox is "on", "off" (run shell commands unsandboxed, the person's
	// explicit choice) or "" (as the config says: on unless
	// [shell.sandbox] enabled = false).
	Sandbox string
	// Screen overrides [ui] screen: auto, alternate or inline ("": as
	// the config says).
	Screen string
	// Goal, when its Text is set, runs a goal headless (--goal, --check).
	Goal GoalOptions
	// Plan starts in plan mode; headless, the task ends with the plan.
	Plan bool
}

// UsageError is bad usage: the command line asks for something that
// cannot be (exit status 2).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }
