// Package history keeps what must survive a restart: the undo journal of
// each session (with content-addressed blobs of prior file contents) and the
// session transcripts, all under $XDG_STATE_HOME/myclaw.
package history

import (
	"encoding/json"
	"time"
)

// State is where a journaled call stands.
type State string

// Entry states.
const (
	// StatePending: journaled before it ran, and no result was recorded
	// (myclaw stopped in between). Undo treats it as applied; reverting a
	// change that never happened is a no-op.
	StatePending State = "pending"
	// StateApplied: ran; /undo can revert it.
	StateApplied State = "applied"
	// StateUndone: reverted; /redo can re-apply it.
	StateUndone State = "undone"
	// StateIrreversible: ran and cannot be undone (shell_run).
	StateIrreversible State = "irreversible"
	// StateFailed: journaled, then the tool reported an error, so it changed
	// nothing that can be undone.
	StateFailed State = "failed"
)

// Entry is one journaled call.
type Entry struct {
	Seq     int             `json:"seq"`
	CallID  string          `json:"call_id"`
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args,omitempty"`
	Summary string          `json:"summary"`
	Time    time.Time       `json:"time"`
	// Reversible is false for calls whose effects stay (shell_run).
	Reversible bool  `json:"reversible"`
	State      State `json:"state"`
	// Undo is the tool's private undo data for the change as it stands.
	Undo json.RawMessage `json:"undo,omitempty"`
	// Reason says why a StateFailed call failed.
	Reason string `json:"reason,omitempty"`
	// Redone is set while an applied call is applied again by /redo.
	Redone bool `json:"redone,omitempty"`
	// Group joins the calls of one step (an iteration of a goal run):
	// /undo and /redo take a group back or re-apply it whole. Empty: the
	// call is a step of its own.
	Group string `json:"group,omitempty"`
}

// SessionInfo describes one stored session.
type SessionInfo struct {
	ID        string    `json:"id"`
	Workspace string    `json:"workspace"`
	Model     string    `json:"model"`
	Created   time.Time `json:"created"`
	Updated   time.Time `json:"updated"`
	// Title is the start of the first user prompt.
	Title string `json:"title"`
	// Parent is the session this one was forked from; empty for a new one.
	Parent string `json:"parent,omitempty"`
	// Empty: its transcript holds no record yet (read from it, not kept).
	Empty bool `json:"-"`
}
