//go:build !windows

package ui

// statusShell runs a command line through the user's POSIX shell.
func statusShell(line string) (string, []string) { return "/bin/sh", []string{"-c", line} }
