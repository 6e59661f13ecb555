package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/agent"
	"myclaw/approval"
)

func (s *scriptServer) lastSystem(t *testing.T) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bodies) == 0 {
		t.Fatal("no request reached the server")
	}
	msgs := s.bodies[len(s.bodies)-1]["messages"].([]any)
	return msgs[0].(map[string]any)["content"].(string)
}

// An untrusted folder's AGENTS.md reaches the model fenced as notes, and
// the user is told; --trust makes it instructions; the user's own file
// is always an instruction.
func TestHeadlessAgentsMDTrust(t *testing.T) {
	e := newEnv(t, writeNote)
	os.WriteFile(filepath.Join(e.ws, "AGENTS.md"), []byte(strings.Repeat("Use tabs.\n", 215)), 0o644) // 2150 B
	os.MkdirAll(filepath.Join(e.config, "myclaw"), 0o755)
	os.WriteFile(filepath.Join(e.config, "myclaw", "AGENTS.md"), []byte("Be brief.\n"), 0o644)

	_, errOut, code := e.myclaw(nil, "-p", "say hello", "--model", "test-model")
	if code != 0 || !strings.Contains(errOut, "AGENTS.md found (2.1 KB) — loaded as untrusted notes; --trust to follow it") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	sys := e.srv.lastSystem(t)
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
	sys = e.srv.lastSystem(t)
	if !strings.Contains(sys, "# Project instructions") || strings.Contains(sys, `<untrusted source="file:AGENTS.md"`) {
		t.Fatalf("trusted AGENTS.md is not an instruction:\n%s", sys)
	}
	// Remembered, without a .myclaw.toml.
	e.myclaw(nil, "-p", "say hello", "--model", "test-model")
	if sys := e.srv.lastSystem(t); !strings.Contains(sys, "# Project instructions") {
		t.Fatalf("the trust was not remembered")
	}
	// A .myclaw.toml that appears later is not trusted, and neither is the
	// folder's AGENTS.md any more.
	os.WriteFile(filepath.Join(e.ws, ".myclaw.toml"), []byte("[[tools]]\nname = \"proj/x\"\ncommand = [\"true\"]\n"), 0o644)
	_, errOut, _ = e.myclaw(nil, "-p", "say hello", "--model", "test-model")
	if !strings.Contains(errOut, "Ignored .myclaw.toml") || !strings.Contains(errOut, "untrusted notes") {
		t.Fatalf("stderr %q", errOut)
	}
}

// /trust in a folder without .myclaw.toml trusts the folder: AGENTS.md is
// followed from the next request.
func TestTrustFolderWithoutProjectConfig(t *testing.T) {
	e := newEnv(t, writeNote)
	for _, kv := range e.vars() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	os.WriteFile(filepath.Join(e.ws, "AGENTS.md"), []byte("Run make check.\n"), 0o644)
	a, err := newApp(options{workspace: e.ws, model: "test-model"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	ag, err := a.buildAgent(true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(a.notices, "\n"), "AGENTS.md found (16 B) — loaded as untrusted notes; /trust to follow it") {
		t.Fatalf("notices %q", a.notices)
	}
	b := &tuiBackend{Agent: ag, app: a, notices: make(chan string, 4)}
	out, err := b.TrustProject(context.Background())
	if err != nil || !strings.Contains(out, "AGENTS.md is followed as instructions") {
		t.Fatalf("TrustProject: %q, %v", out, err)
	}
	if err := ag.Run(context.Background(), "say hello", func(agent.Event) {}, approval.Headless{}); err != nil {
		t.Fatal(err)
	}
	if sys := e.srv.lastSystem(t); !strings.Contains(sys, "## AGENTS.md\n\nRun make check.") {
		t.Fatalf("after /trust the system prompt is:\n%s", sys)
	}
	if out, _ := b.TrustProject(context.Background()); !strings.Contains(out, "already trusted") {
		t.Fatalf("second /trust: %q", out)
	}
}
