//go:build windows

package ui

// statusShell runs a command line through cmd.exe.
func statusShell(line string) (string, []string) { return "cmd.exe", []string{"/C", line} }
