package tools

import "time"

// JobInfo describes one job for people and the model.
type JobInfo struct {
	ID          string    `json:"id"`
	Command     string    `json:"command"`
	Running     bool      `json:"running"`
	ExitCode    *int      `json:"exit_code,omitempty"`
	Stopped     bool      `json:"stopped,omitempty"` // ended by a stop, not on its own
	Started     time.Time `json:"started"`
	OutputBytes int64     `json:"output_bytes"`
	UnreadBytes int64     `json:"unread_bytes"`
	// SandboxNote is what the sandbox undid once the job ended (a
	// protected path it created, a repository it made inert), or "".
	SandboxNote string `json:"sandbox_note,omitempty"`
}
