package config

import (
	"path/filepath"
	"runtime"
	"testing"
)

func TestDirs(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Setenv("AppData", `C:\Users\me\AppData\Roaming`)
		t.Setenv("LocalAppData", `C:\Users\me\AppData\Local`)
	} else {
		t.Setenv("HOME", "/home/me")
	}
	wantConfig := filepath.Join("/home/me", ".config", "myclaw")
	wantState := filepath.Join("/home/me", ".local", "state", "myclaw")
	if runtime.GOOS == "windows" {
		wantConfig, wantState = `C:\Users\me\AppData\Roaming\myclaw`, `C:\Users\me\AppData\Local\myclaw`
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_STATE_HOME", "")
	if d := Dir(); d != wantConfig {
		t.Errorf("Dir() = %q; want %q", d, wantConfig)
	}
	if d, err := StateDir(); err != nil || d != wantState {
		t.Errorf("StateDir() = %q, %v; want %q", d, err, wantState)
	}
	if p := DefaultPath(); p != filepath.Join(wantConfig, "config.toml") {
		t.Errorf("DefaultPath() = %q; want config.toml in %q", p, wantConfig)
	}

	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(xdg, "c"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(xdg, "s"))
	if d := Dir(); d != filepath.Join(xdg, "c", "myclaw") {
		t.Errorf("Dir() with XDG_CONFIG_HOME = %q", d)
	}
	if d, _ := StateDir(); d != filepath.Join(xdg, "s", "myclaw") {
		t.Errorf("StateDir() with XDG_STATE_HOME = %q", d)
	}
}

// TestNoHomeNoConfig: without a home directory there is no config file,
// never one relative to the current directory.
func TestNoHomeNoConfig(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Setenv("AppData", "")
	} else {
		t.Setenv("HOME", "")
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	if p, f := DefaultPath(), File("AGENTS.md"); p != "" || f != "" {
		t.Errorf("without a home: DefaultPath() = %q, File(AGENTS.md) = %q; want both \"\"", p, f)
	}
}
