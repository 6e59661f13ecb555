package agent

import "myclaw/tools"

// ToolInfo describes one registered tool for /tools.
type ToolInfo struct {
	Meta tools.Meta
	Wire string
	// Visible says whether the model sees the tool now; Hidden says why not
	// (autonomy level, deny rule, server down).
	Visible bool
	Hidden  string
	// Details is the tool's full description as ordered key/value pairs
	// (the tool domain model's as_cli_dict), for /tools NAME.
	Details [][2]string
}

// Status is what the status line shows.
type Status struct {
	Model     string
	Workspace string
	SessionID string
	// TokensUsed is the context the next request will carry: the server's
	// count of the last request it counted plus an estimate of what came
	// after, or all estimated before any count; ContextWindow its budget.
	TokensUsed    int
	ContextWindow int
	// TokensEstimated says TokensUsed is myclaw's estimate, not a count
	// the server reported.
	TokensEstimated bool
	// WindowSource says where ContextWindow came from ("estimated" when
	// neither the server nor the config said).
	WindowSource string
	// UndoDepth counts the calls /undo can revert.
	UndoDepth int
	// Cost is the session's cost in USD so far, when CostKnown.
	Cost      float64
	CostKnown bool
}
