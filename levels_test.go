package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/sandbox"
)

// TestFullStaysSandboxed: under full a command runs without asking but
// confined, so a write outside the workspace fails; only --sandbox off
// lets it through, and the run says so on stderr.
func TestFullStaysSandboxed(t *testing.T) {
	outside := t.TempDir()
	if st := sandbox.New(sandbox.Options{Workspace: t.TempDir()}).Check(context.Background()); !st.Active {
		t.Skip("no sandbox here: " + st.Why)
	}
	target := filepath.Join(outside, "escaped.txt")
	e := newEnv(t, func(first string, round int) (string, []scriptCall) {
		if round == 0 {
			return "", []scriptCall{{Name: "shell_run", Args: `{"command":"echo x > ` + target + `"}`}}
		}
		return "Done.", nil
	})
	_, errOut, _ := e.myclaw(nil, "-p", "write outside", "--model", "test-model", "--autonomy", "full")
	if _, err := os.Stat(target); err == nil {
		t.Fatalf("full wrote outside the workspace; stderr %q", errOut)
	}
	res := e.Srv.ToolResults()
	if len(res) != 1 || !strings.Contains(res[0], "sandbox") {
		t.Fatalf("full: tool results %q; want the sandbox named", res)
	}
	if strings.Contains(errOut, "unsandboxed") {
		t.Errorf("full, sandboxed: stderr %q speaks of unsandboxed", errOut)
	}

	_, errOut, code := e.myclaw(nil, "-p", "write outside", "--model", "test-model", "--autonomy", "full", "--sandbox", "off")
	if _, err := os.Stat(target); err != nil || code != 0 {
		t.Fatalf("--sandbox off: code %d, %v; stderr %q", code, err, errOut)
	}
	if !strings.Contains(errOut, "warning: autonomy full, unsandboxed: every call runs without asking, and shell commands run with your full rights (--sandbox off)") {
		t.Errorf("--sandbox off: stderr %q; want the warning", errOut)
	}
}
