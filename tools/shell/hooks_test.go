package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/tools"
)

// TestCredentialStoreMovedByTheEnvironment: a store under
// $XDG_CONFIG_HOME is named as one, by its path or the variable.
func TestCredentialStoreMovedByTheEnvironment(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/tmp/x/cfg")
	t.Setenv("GH_CONFIG_DIR", "/o/gh")
	for _, line := range []string{"cat /tmp/x/cfg/gh/hosts.yml /tmp/x/cfg/git/credentials", "cat $XDG_CONFIG_HOME/gh/hosts.yml",
		"cat < /o/gh/hosts.yml", "cp -r ${GH_CONFIG_DIR} out"} {
		cl, err := Parse(line, "/home/dev/project")
		if err != nil {
			t.Fatal(err)
		}
		if cl.Risk != tools.RiskHigh || !strings.Contains(cl.RiskWhy, "credential store") {
			t.Errorf("Parse(%q): %s (%q); want high, a credential store", line, cl.Risk, cl.RiskWhy)
		}
	}
}

// TestWriteToTheHooksFolderIsHigh: writing in the folder core.hooksPath
// names is rated as writing .git/hooks is.
func TestWriteToTheHooksFolderIsHigh(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(ws, "none"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n\thooksPath = .husky\n"), 0o644)
	tools.SetWorkspace(ws)
	t.Cleanup(func() { tools.SetWorkspace("") })
	cl, err := Parse(`printf '#!/bin/sh\ntouch /tmp/marker\n' > .husky/pre-commit`, ws)
	if err != nil {
		t.Fatal(err)
	}
	if cl.Risk != tools.RiskHigh || !strings.Contains(cl.RiskWhy, "core.hooksPath") {
		t.Errorf("risk %s (%q); want high, naming core.hooksPath", cl.Risk, cl.RiskWhy)
	}
	if cl, _ := Parse("echo x > notes/a.txt", ws); cl.Risk != tools.RiskMedium {
		t.Errorf("an ordinary write: %s (%q)", cl.Risk, cl.RiskWhy)
	}
}
