package ui

import (
	"context"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/history"
)

// Backend is what the TUI drives: the agent with its session, journal and
// policy. *agent.Agent implements it; tests use a fake.
type Backend interface {
	// Run runs one user turn, emitting events in order until it returns.
	// Calls that need a decision go to approver. Cancelling ctx stops the
	// stream and running tools; Run then returns an error wrapping
	// context.Canceled.
	Run(ctx context.Context, prompt string, emit func(agent.Event), approver approval.Approver) error
	// Undo reverts the newest n reversible calls (force: even if the files
	// changed since) and describes what it did, one line per call.
	Undo(ctx context.Context, n int, force bool) (string, error)
	// Redo re-applies the newest n undone calls.
	Redo(ctx context.Context, n int) (string, error)
	// Diff is what the session changed, one unified diff per file (seq
	// 0), or the change of journaled call #seq.
	Diff(seq int) (string, error)
	// History lists the calls of the session, oldest first.
	History() ([]history.Entry, error)
	// Tools lists every registered tool and whether the model sees it.
	Tools() []agent.ToolInfo
	Autonomy() approval.Level
	SetAutonomy(level approval.Level)
	Model() string
	SetModel(name string)
	// Models lists the models the server offers (for /model).
	Models(ctx context.Context) ([]string, error)
	// NewConversation starts a new session (/clear).
	NewConversation() error
	// Sessions lists the sessions of the workspace, newest first.
	Sessions() ([]history.SessionInfo, error)
	Status() agent.Status
	// CheckServer checks that the model server answers and knows the
	// model. The TUI calls it behind the first frame.
	CheckServer(ctx context.Context) error
}
