package tools

import (
	"context"
	"errors"
	"fmt"
)

// Kind classifies a tool error for the model (seed tool-protocol §4).
type Kind string

// The error kinds the model may see.
const (
	KindInvalidArgs      Kind = "invalid_args"
	KindNotFound         Kind = "not_found"
	KindPermissionDenied Kind = "permission_denied"
	KindNetworkError     Kind = "network_error"
	KindExternalError    Kind = "external_error"
	KindQuotaExceeded    Kind = "quota_exceeded"
	KindUnsupported      Kind = "unsupported"
	KindUnknown          Kind = "unknown"
)

// Error is a failure the model can read and act on. Message is short and for
// people too; Hint offers the model a menu of next steps.
type Error struct {
	Kind    Kind           `json:"kind"`
	Message string         `json:"message"`
	Hint    string         `json:"llm_hint"`
	Details map[string]any `json:"details,omitempty"`
	// Quoted is text from outside that explains the failure, such as a
	// server's own error message: the model reads it fenced after the
	// JSON line, from QuotedSource (see Quote), never in Message.
	Quoted       string `json:"-"`
	QuotedSource string `json:"-"`
}

// Error implements error.
func (e *Error) Error() string { return string(e.Kind) + ": " + e.Text() }

// Quote returns e with text from source quoted: fenced for the model, after
// Message for people.
func (e *Error) Quote(source, text string) *Error {
	e.Quoted, e.QuotedSource = text, source
	return e
}

// Text is the error for people: Message, then the quoted text if any. It
// is raw: a screen sanitises it like any text from outside.
func (e *Error) Text() string {
	if e.Quoted == "" {
		return e.Message
	}
	return e.Message + ": " + e.Quoted
}

// Errorf builds an *Error with a formatted message.
func Errorf(kind Kind, hint string, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...), Hint: hint}
}

// With returns e with one more detail.
func (e *Error) With(key string, value any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = value
	return e
}

// AsError turns any error from a tool into the *Error the model sees: an
// *Error passes through, a cancelled or expired context says so, anything
// else becomes kind unknown.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var te *Error
	if errors.As(err, &te) {
		return te
	}
	var ce *Conflict
	if errors.As(err, &ce) {
		return &Error{Kind: KindUnsupported, Message: ce.Error(), Hint: "The state changed since the call; read it again before acting."}
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Kind: KindNetworkError, Message: "the call timed out", Hint: "Try a smaller request, or a longer timeout if the tool takes one."}
	case errors.Is(err, context.Canceled):
		return &Error{Kind: KindUnknown, Message: "the call was cancelled by the user", Hint: "The user stopped this call. Do not retry it unless asked."}
	}
	return &Error{Kind: KindUnknown, Message: err.Error(), Hint: "An unexpected error occurred. Report it to the user rather than retrying blindly."}
}

// Conflict is returned by Reverter.Revert when the current state is neither
// what the change left nor what it replaced: someone changed it since.
type Conflict struct {
	// What names the thing that changed, e.g. a workspace path.
	What string
	// Detail says what differs, e.g. "its contents differ from what the
	// call left".
	Detail string
	// Diff is, when it can be told, what changed since as a short unified
	// diff (bounded, its controls made visible); "" otherwise.
	Diff string
}

// Error implements error.
func (c *Conflict) Error() string {
	return fmt.Sprintf("%s changed since the call: %s", c.What, c.Detail)
}

// ErrToolTimeout is the cause (context.Cause) of a call's context when the
// tool's own timeout, which Call sets, expires: a tool tells it apart from a
// deadline or cancellation of the caller with TimedOut.
var ErrToolTimeout = errors.New("tool timeout")

// TimedOut reports whether ctx ended because the tool's own timeout expired.
func TimedOut(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), ErrToolTimeout)
}

// ErrCorruptUndo is returned by Revert when undo data cannot be understood.
var ErrCorruptUndo = errors.New("undo data is corrupt")
