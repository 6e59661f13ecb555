package agent

import "errors"

// ErrBusy is returned when a turn or an undo is requested while a turn runs.
var ErrBusy = errors.New("a turn is already running")

// ErrNothingToCompact is returned when the conversation has no older part
// to summarise.
var ErrNothingToCompact = errors.New("nothing to compact: the conversation is only its newest turns")

// UserError is a failure shown to the user: a short reason and what to do.
// The agent makes most of them; app and ui make the rest (a bad config, a
// command typed wrong), and main maps any of them to its exit code. It
// lives here because all of those already import agent.
type UserError struct {
	Msg  string
	Hint string
	Err  error
}

// Error implements error.
func (e *UserError) Error() string {
	if e.Err != nil {
		return e.Msg + " " + e.Err.Error()
	}
	return e.Msg
}

// Unwrap returns the cause, if any.
func (e *UserError) Unwrap() error { return e.Err }
