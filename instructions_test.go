package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An untrusted folder's AGENTS.md reaches the model fenced as notes, and
// the user is told; --trust makes it instructions; the user's own file
// is always an instruction.
func TestHeadlessAgentsMDTrust(t *testing.T) {
	e := newEnv(t, writeNote)
	os.WriteFile(filepath.Join(e.WS, "AGENTS.md"), []byte(strings.Repeat("Use tabs.\n", 215)), 0o644) // 2150 B
	os.MkdirAll(filepath.Join(e.Config, "myclaw"), 0o755)
	os.WriteFile(filepath.Join(e.Config, "myclaw", "AGENTS.md"), []byte("Be brief.\n"), 0o644)

	_, errOut, code := e.myclaw(nil, "-p", "say hello", "--model", "test-model")
	if code != 0 || !strings.Contains(errOut, "AGENTS.md found (2.1 KB) — loaded as untrusted notes; --trust to follow it") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	sys := e.Srv.LastSystem(t)
	if !strings.Contains(sys, `<untrusted source="file:AGENTS.md"`) || strings.Contains(sys, "# Project instructions") {
		t.Fatalf("untrusted AGENTS.md is not fenced as notes:\n%s", sys)
	}
	if !strings.Contains(sys, "# The user's own instructions") || !strings.Contains(sys, "Be brief.") {
		t.Fatalf("the user's AGENTS.md is missing:\n%s", sys)
	}

	_, errOut, code = e.myclaw(nil, "-p", "say hello", "--model", "test-model", "--trust")
	if code != 0 || !strings.Contains(errOut, "followed as instructions") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	sys = e.Srv.LastSystem(t)
	if !strings.Contains(sys, "# Project instructions") || strings.Contains(sys, `<untrusted source="file:AGENTS.md"`) {
		t.Fatalf("trusted AGENTS.md is not an instruction:\n%s", sys)
	}
	// Remembered, without a .myclaw.toml.
	e.myclaw(nil, "-p", "say hello", "--model", "test-model")
	if sys := e.Srv.LastSystem(t); !strings.Contains(sys, "# Project instructions") {
		t.Fatalf("the trust was not remembered")
	}
	// A .myclaw.toml that appears later is not trusted, and neither is the
	// folder's AGENTS.md any more.
	os.WriteFile(filepath.Join(e.WS, ".myclaw.toml"), []byte("[[tools]]\nname = \"proj/x\"\ncommand = [\"true\"]\n"), 0o644)
	_, errOut, _ = e.myclaw(nil, "-p", "say hello", "--model", "test-model")
	if !strings.Contains(errOut, "Ignored .myclaw.toml") || !strings.Contains(errOut, "untrusted notes") {
		t.Fatalf("stderr %q", errOut)
	}
}
