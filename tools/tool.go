package tools

import (
	"context"
	"encoding/json"
	"time"
)

// Risk grades how much harm a call could do if it went wrong.
type Risk string

// Risk levels, from the seed's ToolMeta.
const (
	RiskLow    Risk = "low"
	RiskMedium Risk = "medium"
	RiskHigh   Risk = "high"
)

// Source says where a tool comes from.
type Source string

// Tool sources.
const (
	SourceBuiltin Source = "builtin"
	SourceMCP     Source = "mcp"
	SourceCommand Source = "command"
)

// DefaultTimeout bounds a call whose tool declares no timeout.
const DefaultTimeout = 300 * time.Second

// Meta describes a tool to the registry, the policy and the model.
//
// The zero value is the safe one: a tool that declares nothing is treated as
// side-effecting, of high risk, returning untrusted content is not assumed, and
// it gets no faithful dry run, so every call asks for approval.
type Meta struct {
	// Name is the display name: lowercase_snake for builtins, "namespace/short"
	// for MCP and config tools. The registry maps it to a wire name.
	Name string
	// Description tells the model when to use the tool and when not to.
	Description string
	// Schema is the JSON Schema of the arguments object.
	Schema json.RawMessage
	// ReadOnly is true when the tool has no side effects. Side-effecting is the
	// default so that forgetting to declare it asks rather than acts.
	ReadOnly bool
	// Risk grades the harm of a call; empty counts as high for side-effecting
	// tools and low for read-only ones (see EffectiveRisk).
	Risk Risk
	// ReturnsUntrusted means the output comes from outside (files, the web, a
	// command) and is fenced before it enters the prompt.
	ReturnsUntrusted bool
	// Idempotent means repeating a call with the same arguments is harmless.
	Idempotent bool
	// SupportsDryRun means DryRun faithfully predicts the effect, so the call
	// may be auto-approved under auto-edit.
	SupportsDryRun bool
	// Capability is the static capability pattern, e.g. "fs:write". A call's
	// concrete capability (e.g. "fs:write:notes/a.txt") comes in Result.Capability.
	Capability string
	// Timeout bounds one call; zero means DefaultTimeout.
	Timeout time.Duration
	// Source says where the tool comes from.
	Source Source
	// AlwaysAsk means every call needs a person's approval, whatever the
	// autonomy level, allow rules or session grants say (the tool domain
	// model's human_approval_required).
	AlwaysAsk bool
	// Shell means the call's "command" argument is a bash command line: the
	// policy judges it command by command, and the pane edits it as text.
	Shell bool
	// Persists means a call's effect is read back into later sessions (a
	// long-term note replayed into every prompt): auto-edit never
	// approves it on its own, since it would carry planted text forward.
	// Allow rules and session grants still can.
	Persists bool
	// Definition is a digest of what the tool declares (name, description,
	// input schema), for tools whose declaration comes from elsewhere and
	// can change while myclaw runs (MCP). Their calls' capabilities carry
	// it, so a grant or a saved rule covers only the definition approved.
	Definition string
	// Changed says since when and how the definition differs from the one
	// seen before ("since it was first listed: new parameters: key"), when
	// it changed while running or since myclaw last ran in the workspace.
	Changed string
	// Claims is what the tool's provider says about it that myclaw does
	// not rely on, e.g. an untrusted MCP server's read-only hint.
	Claims string
	// HintServer names the MCP server, not trusted, that claims the tool
	// is read-only (readOnlyHint). Such a tool asks like any other unless
	// the user trusts that server's read-only hints in the project.
	HintServer string
	// PlanMode means the tool is offered only in plan mode (plan_submit).
	PlanMode bool
}

// HasSideEffects reports whether calls of the tool change anything.
func (m Meta) HasSideEffects() bool { return !m.ReadOnly }

// EffectiveRisk is Risk with the safe default filled in.
func (m Meta) EffectiveRisk() Risk {
	switch {
	case m.Risk != "":
		return m.Risk
	case m.ReadOnly:
		return RiskLow
	default:
		return RiskHigh
	}
}

// EffectiveTimeout is Timeout with the default filled in.
func (m Meta) EffectiveTimeout() time.Duration {
	if m.Timeout <= 0 {
		return DefaultTimeout
	}
	return m.Timeout
}

// Result is what one call produced.
//
// Output and Body reach the model (through the envelope, Body fenced when the
// tool returns untrusted content); Summary, Preview and UndoPlan are for people;
// Undo is private data for Revert that is journaled and never sent to the model.
type Result struct {
	// Output holds the structured fields for the model: a struct or map that
	// marshals to a JSON object (its keys follow "ok":true in the envelope).
	Output any
	// Body is the bulk text (file content, page text, command output). For a
	// tool that returns untrusted content it is fenced; otherwise it is added
	// to the envelope as "content".
	Body string
	// Source names where Body came from, for the fence: "file:src/a.go",
	// "web:example.com/path", "shell:go test ./...".
	Source string
	// Summary is one line for people: "Create notes/a.txt (1.2 KB)".
	Summary string
	// Preview shows what would change: a unified diff, a parsed command.
	Preview string
	// Capability is the concrete capability of this call, e.g.
	// "fs:write:notes/a.txt", "net:http:example.com", "shell:exec".
	Capability string
	// Command is the parsed command line, for tools that run one.
	Command *CommandLine
	// UndoPlan says how /undo would walk the call back; empty if it cannot.
	UndoPlan string
	// Undo is the private undo data handed to Reverter.Revert.
	Undo json.RawMessage
	// Plan, when not nil, is the model's plan as the call left it (the
	// checklist shown above the input).
	Plan []PlanItem
	// Proposal, when not nil, is a plan submitted in plan mode for the
	// person to accept, edit or reject.
	Proposal *Proposal
	// Unchanged is set when the call changes nothing (a write of the
	// content already there): it is not journaled and takes no undo step.
	Unchanged bool
	// Images are pictures the call returned (an MCP tool's screenshot),
	// for a model that takes images; Body carries a placeholder for each,
	// which is all other models read.
	Images []Image
}

// Image is one picture of a result: its detected type and bytes.
type Image struct {
	MIME string
	Data []byte
}

// Tool is one capability the reasoning loop can invoke.
//
// Args are the registry-validated, canonical JSON of the call; a tool still
// checks what matters for safety (paths, URLs) itself. Execute and DryRun must
// honour ctx. A failure the model can act on is returned as *Error; any other
// error, and any panic, reaches the model as kind "unknown".
type Tool interface {
	Meta() Meta
	// Execute does the work.
	Execute(ctx context.Context, args json.RawMessage) (Result, error)
}

// DryRunner is implemented by side-effecting tools that can say what
// Execute would do without doing it: a Summary, a Preview where it fits, the
// call's Capability, and for reversible tools the Undo data Execute would
// produce. Call asks a read-only tool's Execute instead, and describes a
// call of any other tool by its arguments alone.
type DryRunner interface {
	DryRun(ctx context.Context, args json.RawMessage) (Result, error)
}

// Reverter is implemented by tools whose effects can be walked back.
//
// Undo data describes a change from one state to another. Revert restores the
// state before the change if the current state is the one the change left; if
// the current state already is the one before, it does nothing (so an
// interrupted undo can simply be run again); otherwise it refuses with a
// *Conflict error, unless force is set, in which case it first keeps the
// current state (in the BlobStore) so that the forced revert can be redone.
// It returns the redo data: undo data for the inverse change, so redo is a
// Revert of it.
type Reverter interface {
	Revert(ctx context.Context, undo json.RawMessage, force bool) (redo json.RawMessage, err error)
}

// BlobStore keeps file contents addressed by their SHA-256, so undo data can
// name prior contents without carrying them.
type BlobStore interface {
	// Put stores data durably and returns its hex SHA-256.
	Put(data []byte) (string, error)
	// Get returns the data stored under a hex SHA-256.
	Get(sum string) ([]byte, error)
}

// Func adapts plain functions to a read-only Tool, for small tools and tests.
type Func struct {
	M Meta
	F func(ctx context.Context, args json.RawMessage) (Result, error)
}

// Meta implements Tool.
func (f Func) Meta() Meta { return f.M }

// Execute implements Tool.
func (f Func) Execute(ctx context.Context, args json.RawMessage) (Result, error) {
	return f.F(ctx, args)
}
