package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/skills"
	"myclaw/tools"
)

func skillFixture(t *testing.T, trusted bool) tools.Tool {
	t.Helper()
	ws := t.TempDir()
	d := filepath.Join(ws, ".claude", "skills", "notes")
	if err := os.MkdirAll(filepath.Join(d, "references"), 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(d, "SKILL.md"), []byte("---\nname: notes\ndescription: Writes notes.\n---\n# Notes\nRead references/form.md.\n"), 0o644)
	_ = os.WriteFile(filepath.Join(d, "references", "form.md"), []byte("Use dashes.\n"), 0o644)
	root, err := os.OpenRoot(ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return NewSkill(skills.Discover(skills.Options{Root: root, Trusted: trusted}))
}

func TestSkillToolLoadsBodyAndFiles(t *testing.T) {
	tool := skillFixture(t, true)
	if !tool.Meta().ReadOnly || tool.Meta().ReturnsUntrusted {
		t.Fatal("skill must be read-only and its body trusted instructions")
	}
	res, err := tool.Execute(context.Background(), json.RawMessage(`{"name":"notes"}`))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(res.Output)
	if !strings.HasPrefix(res.Body, "# Notes\n") || !strings.Contains(string(out), `"files":["references/form.md"]`) {
		t.Fatalf("body %q output %s", res.Body, out)
	}
	res, err = tool.Execute(context.Background(), json.RawMessage(`{"name":"notes","file":"references/form.md"}`))
	if err != nil || res.Body != "Use dashes.\n" {
		t.Fatalf("file: %q %v", res.Body, err)
	}
	if _, err := tool.Execute(context.Background(), json.RawMessage(`{"name":"notes","file":"../../../x"}`)); err == nil {
		t.Error("read outside the skill's folder")
	}
	if _, err := tool.Execute(context.Background(), json.RawMessage(`{"name":"nope"}`)); err == nil || !strings.Contains(err.Error(), "no skill") {
		t.Errorf("unknown skill: %v", err)
	}
}

func TestSkillToolRefusesUntrustedSkill(t *testing.T) {
	tool := skillFixture(t, false)
	_, err := tool.Execute(context.Background(), json.RawMessage(`{"name":"notes"}`))
	if err == nil || !strings.Contains(err.Error(), "not trusted") {
		t.Fatalf("err = %v", err)
	}
}
