package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Where myclaw keeps its files when XDG_CONFIG_HOME and XDG_STATE_HOME are
// not set: ~/.config/myclaw and ~/.local/state/myclaw on every Unix, macOS
// included (as most developer tools do, rather than ~/Library), and
// %AppData%\myclaw and %LocalAppData%\myclaw on Windows.

// Dir returns the config directory, the home of the config, the user's
// AGENTS.md and their commands/: $XDG_CONFIG_HOME/myclaw or its default;
// "" when there is no home directory to put it in (never a relative path,
// which the workspace could provide).
func Dir() string {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "myclaw")
	}
	if runtime.GOOS == "windows" {
		d, _ := winDir("AppData")
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".config", "myclaw")
}

// File returns the path of name in Dir; "" when there is no Dir.
func File(name string) string {
	dir := Dir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, name)
}

// StateDir returns the state directory: $XDG_STATE_HOME/myclaw or its
// default.
func StateDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "myclaw"), nil
	}
	if runtime.GOOS == "windows" {
		return winDir("LocalAppData")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the state directory: set XDG_STATE_HOME: %w", err)
	}
	return filepath.Join(home, ".local", "state", "myclaw"), nil
}

func winDir(variable string) (string, error) {
	d := os.Getenv(variable)
	if d == "" {
		return "", errors.New("find myclaw's directory: %" + variable + "% is not set")
	}
	return filepath.Join(d, "myclaw"), nil
}
