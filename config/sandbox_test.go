package config

import (
	"strings"
	"testing"
)

func TestShellSandbox(t *testing.T) {
	cfg, err := Parse("c.toml", []byte("[shell.sandbox]\nenabled = false\nwritable = [\"~/.cache\", \"/opt/cache\"]\nnetwork = true\nalways = true\n\n[[approval.rules]]\ntool = \"shell_run\"\nmatch = \"npm i*\"\ndecision = \"allow\"\nnetwork = true\n"))
	if err != nil {
		t.Fatal(err)
	}
	sb := cfg.Shell.Sandbox
	if sb.On() || len(sb.Writable) != 2 || !sb.Network {
		t.Errorf("sandbox = %+v", sb)
	}
	if d := sb.Deprecated(); !strings.Contains(d, "always is no longer used") || !strings.Contains(d, "--sandbox off") {
		t.Errorf("Deprecated() = %q; want always named with what replaces it", d)
	}
	if r := cfg.Approval.Rules[0]; r.Network == nil || !*r.Network {
		t.Errorf("rule network = %v; want true", r.Network)
	}
	if def, _ := Parse("c.toml", []byte("")); !def.Shell.Sandbox.On() {
		t.Error("the sandbox is off by default; want on")
	}
	cfg, err = Parse("c.toml", []byte("[shell.sandbox]\nhidden = [\"~/.vault-token\"]\nvisible = [\"~/.npmrc\"]\n"))
	if err != nil || len(cfg.Shell.Sandbox.Hidden) != 1 || len(cfg.Shell.Sandbox.Visible) != 1 {
		t.Errorf("hidden/visible: %+v, %v", cfg.Shell.Sandbox, err)
	}
	if _, err := Parse("c.toml", []byte("[shell.sandbox]\nvisible = [\".ssh\"]\n")); err == nil || !strings.Contains(err.Error(), "shell.sandbox.visible") {
		t.Errorf("relative visible: err = %v; want it named", err)
	}
	_, err = Parse("c.toml", []byte("[shell.sandbox]\nwritable = [\"cache\"]\n"))
	if err == nil || !strings.Contains(err.Error(), "shell.sandbox.writable") || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("relative writable: err = %v; want it named", err)
	}
}

func TestProjectCannotTouchTheSandbox(t *testing.T) {
	for _, src := range []string{"[shell.sandbox]\nwritable = [\"/\"]\n", "[shell.sandbox]\nvisible = [\"~/.ssh\"]\n", "[shell.sandbox]\nhidden = [\"~/x\"]\n", "[shell.sandbox]\nenabled = false\n", "[shell.sandbox]\nnetwork = true\n"} {
		cfg, err := Parse(".myclaw.toml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if err := cfg.CheckProjectScope(); err == nil {
			t.Errorf("a project config set %q", src)
		}
	}
}
