package tools

import "time"

// Fence wraps untrusted content for the prompt. (Implementation pending.)
func Fence(source string, retrievedAt time.Time, content string) string { panic("todo") }

// StripControls removes terminal control sequences. (Implementation pending.)
func StripControls(s string) string { panic("todo") }
