package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/internal/apptest"
	"myclaw/ui"
)

// A workspace's skill is listed but not loaded until the folder is
// trusted; then the next request lists it in the system prompt.
func TestUntrustedSkillListedThenLoadedByTrust(t *testing.T) {
	e := apptest.NewEnv(t, apptest.WriteNote)
	e.Setenv(t)
	d := filepath.Join(e.WS, ".agents", "skills", "release-notes")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(d, "SKILL.md"), []byte("---\nname: release-notes\ndescription: Drafts release notes.\nlicense: Apache-2.0\n---\n# Steps\n"), 0o644)
	a, ag := openApp(t, e)
	if !strings.Contains(noticeText(a.notices), "Found 1 skill in this folder, not loaded because it is not trusted") {
		t.Fatalf("notices %+v", a.notices)
	}
	b := &tuiBackend{Agent: ag, app: a, notices: make(chan ui.Notice, 4)}
	if r := b.SkillsReport(); !strings.Contains(r, "release-notes — Drafts release notes.") || !strings.Contains(r, "from .agents/skills/release-notes (not loaded: this folder is not trusted") {
		t.Fatalf("/skills:\n%s", r)
	}
	if err := ag.Run(context.Background(), "hello", func(agent.Event) {}, approval.Headless{}); err != nil {
		t.Fatal(err)
	}
	if sys := e.Srv.LastSystem(t); strings.Contains(sys, "release-notes") {
		t.Fatalf("an untrusted skill is in the prompt:\n%s", sys)
	}
	if out, err := b.TrustProject(context.Background()); err != nil || !strings.Contains(out, "its 1 skill can be loaded") {
		t.Fatalf("TrustProject: %q, %v", out, err)
	}
	if err := ag.Run(context.Background(), "again", func(agent.Event) {}, approval.Headless{}); err != nil {
		t.Fatal(err)
	}
	if sys := e.Srv.LastSystem(t); !strings.Contains(sys, "- release-notes: Drafts release notes.") {
		t.Fatalf("after /trust the system prompt is:\n%s", sys)
	}
	if _, ok := a.registry.Lookup("skill"); !ok {
		t.Fatal("the skill tool is not registered")
	}
}
