package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/approval"
	"myclaw/skills"
)

// The skills' names and descriptions, and nothing of their bodies, are in
// the system prompt, the same bytes on every request.
func TestSkillsInSystemPrompt(t *testing.T) {
	srv := newFakeServer(t, openAIStyle("one"), openAIStyle("two"))
	user := t.TempDir()
	d := filepath.Join(user, "notes")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "SKILL.md"), []byte("---\nname: notes\ndescription: Writes meeting notes.\n---\nSECRET-BODY\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set := skills.Discover(skills.Options{UserDir: user})
	h := newHarness(t, approval.Ask, srv, func(o *Options) { o.Skills = set })
	for _, p := range []string{"a", "b"} {
		if err := h.run(context.Background(), p, nil); err != nil {
			t.Fatal(err)
		}
	}
	sys0, sys1 := srv.messages(0)[0]["content"].(string), srv.messages(1)[0]["content"].(string)
	if sys0 != sys1 {
		t.Fatal("the system prompt changed between turns")
	}
	if !strings.Contains(sys0, "# Skills\n") || !strings.Contains(sys0, "- notes: Writes meeting notes.") || strings.Contains(sys0, "SECRET-BODY") {
		t.Fatalf("system prompt:\n%s", sys0)
	}
}
