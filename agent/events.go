package agent

import (
	"encoding/json"
	"time"

	"myclaw/approval"
	"myclaw/tools"
)

// Event is one thing that happened during a turn. The loop emits events in
// order through the sink it was given; a consumer may coalesce TextDelta and
// ReasoningDelta values but must never drop the others.
type Event interface {
	// Type is the event's name in `--output json`: text, reasoning,
	// tool_call, tool_result, approval, usage, retry, notice, error, done,
	// plan.
	Type() string
}

// Call is one tool call the model made.
type Call struct {
	// ID is the call id (generated when the server sent none).
	ID string `json:"id"`
	// Tool is the display name; Wire the name the model used.
	Tool string `json:"tool"`
	Wire string `json:"wire_name"`
	// Args are the arguments as the model sent them (canonical once valid).
	Args json.RawMessage `json:"args"`
	// FromText is set when the model wrote the call as text instead of as a
	// real tool call and myclaw recognised it.
	FromText bool `json:"from_text,omitempty"`
	// Edited is set when the person edited the arguments before approving:
	// Args are then the edited ones.
	Edited bool `json:"edited,omitempty"`
	// Attached is set on a read the user asked for with an @mention: its
	// result goes with their next message, not to a call of the model.
	Attached bool `json:"attached,omitempty"`
	// Typed is set on a command the user typed themselves (`!command`):
	// its output still reaches the model fenced, but on screen it is
	// theirs, not a stranger's.
	Typed bool `json:"typed,omitempty"`
}

// TextDelta is a piece of the assistant's answer.
type TextDelta struct {
	Text string `json:"text"`
}

// ReasoningDelta is a piece of the model's reasoning, kept out of the answer.
type ReasoningDelta struct {
	Text string `json:"text"`
}

// ToolCallEvent reports a call as proposed by the model, then as started.
// Of an answer with several calls, each is first reported "queued", so
// they all show while the first waits for approval.
type ToolCallEvent struct {
	Call Call `json:"call"`
	// Phase is "queued", "proposed" or "started".
	Phase string `json:"phase"`
	// Position and Count place a queued call among its answer's calls.
	Position int `json:"position,omitempty"`
	Count    int `json:"count,omitempty"`
	// Summary is the dry-run summary, when there is one.
	Summary string `json:"summary,omitempty"`
	// OutsidePlan lists, once a plan was accepted, the files the call
	// touches that no step of the plan names.
	OutsidePlan []string `json:"outside_plan,omitempty"`
}

// Tool result statuses.
const (
	StatusOK        = "ok"
	StatusError     = "error"
	StatusDenied    = "denied"
	StatusCancelled = "cancelled"
)

// ToolResultEvent reports how a call ended. Every call gets exactly one.
type ToolResultEvent struct {
	Call   Call   `json:"call"`
	Status string `json:"status"`
	// Kind, Message and Hint describe an error, denial or cancellation.
	Kind    string `json:"kind,omitempty"`
	Message string `json:"message,omitempty"`
	Hint    string `json:"hint,omitempty"`
	// Summary is the one-line human summary of what the call did.
	Summary  string        `json:"summary,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	// Content is exactly what the model reads: the envelope, fenced when
	// untrusted.
	Content string `json:"content"`
	// Untrusted is set when Body came from outside; Source and RetrievedAt
	// label its frame on screen. Body is the raw text for display: sanitise
	// it before drawing.
	Untrusted   bool      `json:"untrusted,omitempty"`
	Source      string    `json:"source,omitempty"`
	RetrievedAt time.Time `json:"retrieved_at,omitzero"`
	Body        string    `json:"-"`
	// Reversible is set when the call was journaled and /undo can revert it.
	Reversible bool `json:"reversible,omitempty"`
	// UndoPlan says what /undo would restore, for calls whose undo data
	// came from running them (a shell command's workspace changes).
	UndoPlan string `json:"undo_plan,omitempty"`
	// ExitCode is the exit status of a command the call ran, when it
	// reported one: a non-zero one is a failure even though the call is ok.
	ExitCode *int `json:"exit_code,omitempty"`
	// Diff is the unified diff of what a journaled write or edit applied.
	Diff string `json:"diff,omitempty"`
}

// Failed reports whether the call failed, including a command that ran and
// exited non-zero.
func (e ToolResultEvent) Failed() bool {
	return e.Status == StatusError || e.Status == StatusOK && e.ExitCode != nil && *e.ExitCode != 0
}

// PlanEvent carries the model's plan as it now stands (todo_write): the
// whole checklist, in order. A plan submitted in plan mode (plan_submit)
// also carries its rationale and steps, and is for the person to accept,
// edit or reject: Items are then its steps, all pending.
type PlanEvent struct {
	Items []tools.PlanItem `json:"items"`
	*tools.Proposal
}

// ApprovalEvent reports a question put to the approver and its answer.
type ApprovalEvent struct {
	Request approval.Request `json:"-"`
	CallID  string           `json:"call_id"`
	Tool    string           `json:"tool"`
	Summary string           `json:"summary,omitempty"`
	// Phase is "asked" or "decided".
	Phase    string             `json:"phase"`
	Decision *approval.Decision `json:"decision,omitempty"`
	// Sandbox says how a shell command runs: "sandbox: writes in
	// workspace + temp, no network" or "not sandboxed: <why>".
	Sandbox string `json:"sandbox,omitempty"`
}

// UsageEvent reports token use after a model response.
type UsageEvent struct {
	// Kind says what the request was for: RequestTurn, or
	// RequestCompaction when the turn compacted the conversation first.
	// Only a turn's request measures the conversation.
	Kind             string `json:"kind"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
	TotalTokens      int    `json:"total_tokens"`
	ContextWindow    int    `json:"context_window"`
	Estimated        bool   `json:"estimated,omitempty"`
	// CachedTokens is how many of the prompt's tokens the server took from
	// its prompt cache, when it said; nil when it did not.
	CachedTokens *int `json:"cached_tokens,omitempty"`
	// Cost is what the server said the request cost, in USD (OpenRouter).
	Cost *float64 `json:"cost,omitempty"`
	// WindowSource says where ContextWindow came from: the server's own
	// figure ("Ollama /api/ps (loaded)", "llama.cpp /props n_ctx" …),
	// "config", or "estimated".
	WindowSource string `json:"window_source,omitempty"`
	// Context is what the status line's meter shows after this request
	// (see Status.TokensUsed), its answer included; ContextEstimated says
	// no server count is in it. Only a turn's request sets it.
	Context          int  `json:"-"`
	ContextEstimated bool `json:"-"`
}

// RetryEvent reports a wait before trying the model server again.
type RetryEvent struct {
	Attempt int           `json:"attempt"`
	Max     int           `json:"max"`
	Wait    time.Duration `json:"wait_ns"`
	Reason  string        `json:"reason"`
}

// NoticeEvent tells the user something worth knowing that is not an error:
// old tool output elided, a text tool call recognised, a repeated call
// stopped.
type NoticeEvent struct {
	Text string `json:"text"`
	// Warning marks a notice about something that went wrong or needs
	// the person (a rule not saved, a limit reached), apart from the
	// informational ones.
	Warning bool `json:"warning,omitempty"`
	// TextCalls marks the notice that the model wrote tool calls as text;
	// Answer is then the round's answer as the conversation keeps it,
	// without those calls, for a screen that showed them as they streamed.
	TextCalls bool   `json:"-"`
	Answer    string `json:"-"`
}

// ErrorEvent reports a failure that stops the turn.
type ErrorEvent struct {
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// Done reasons.
const (
	DoneStop      = "stop"
	DoneCancelled = "cancelled"
	DoneError     = "error"
	DoneLimit     = "limit"
)

// DoneEvent ends a turn.
type DoneEvent struct {
	Reason string `json:"reason"`
	// Rounds counts the model requests of the turn.
	Rounds int `json:"rounds"`
}

// Type implements Event.
func (TextDelta) Type() string { return "text" }

// Type implements Event.
func (ReasoningDelta) Type() string { return "reasoning" }

// Type implements Event.
func (ToolCallEvent) Type() string { return "tool_call" }

// Type implements Event.
func (ToolResultEvent) Type() string { return "tool_result" }

// Type implements Event.
func (ApprovalEvent) Type() string { return "approval" }

// Type implements Event.
func (UsageEvent) Type() string { return "usage" }

// Type implements Event.
func (RetryEvent) Type() string { return "retry" }

// Type implements Event.
func (NoticeEvent) Type() string { return "notice" }

// Type implements Event.
func (ErrorEvent) Type() string { return "error" }

// Type implements Event.
func (DoneEvent) Type() string { return "done" }

// Type implements Event.
func (PlanEvent) Type() string { return "plan" }
