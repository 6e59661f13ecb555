//go:build windows

package ui

// terminalHasSync is false on Windows: its console is read through its own
// API, not as a byte stream the answer could be read from.
func terminalHasSync() bool { return false }
