package approval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"myclaw/tools"
)

func TestHintGrantsAreSavedPerProject(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", HintGrantsFile)
	if got, err := LoadHintGrants(path, "/a"); err != nil || len(got) != 0 {
		t.Fatalf("no file: %v, %v", got, err)
	}
	listed := []tools.Meta{
		{Name: "docs/lookup", Definition: "d1", HintServer: "docs"},
		{Name: "docs/save", Definition: "d2"},
		{Name: "wiki/read", Definition: "d3", HintServer: "wiki"},
	}
	g := NewHintGrant("docs", listed, time.Now())
	if len(g.Tools) != 1 || g.Tools["docs/lookup"] != "d1" {
		t.Fatalf("grant %v", g.Tools)
	}
	if err := SaveHintGrant(path, "/a", g); err != nil {
		t.Fatal(err)
	}
	if err := SaveHintGrant(path, "/b", NewHintGrant("wiki", listed, time.Now())); err != nil {
		t.Fatal(err)
	}
	a, err := LoadHintGrants(path, "/a")
	if err != nil || len(a) != 1 || a[0].Server != "docs" || a[0].Tools["docs/lookup"] != "d1" {
		t.Fatalf("/a: %+v, %v", a, err)
	}
	if c, _ := LoadHintGrants(path, "/c"); len(c) != 0 {
		t.Fatalf("another project sees %+v", c)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode: %v, %v", fi, err)
	}
	// A grant given later replaces the server's earlier one.
	listed[0].Definition = "d9"
	if err := SaveHintGrant(path, "/a", NewHintGrant("docs", listed, time.Now())); err != nil {
		t.Fatal(err)
	}
	if a, _ := LoadHintGrants(path, "/a"); len(a) != 1 || a[0].Tools["docs/lookup"] != "d9" {
		t.Fatalf("after a new grant: %+v", a)
	}
	os.WriteFile(path, []byte("{not json"), 0o600)
	if _, err := LoadHintGrants(path, "/a"); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("corrupt file: %v", err)
	}
	if err := SaveHintGrant(path, "/a", g); err == nil {
		t.Fatal("saving over a corrupt file should refuse, not lose it")
	}
}

func TestHintGrantDoesNotOutrankDenyOrReadonly(t *testing.T) {
	m := tools.Meta{Name: "docs/lookup", Capability: "mcp:docs/lookup", Definition: "d1", HintServer: "docs", Source: tools.SourceMCP}
	req := Request{Tool: m.Name, Meta: m, Capability: "mcp:docs/lookup@d1"}
	g := NewHintGrant("docs", []tools.Meta{m}, time.Now())
	p, _ := NewPolicy(Ask, []Rule{{Tool: "docs/lookup", Decision: "deny"}})
	p.TrustHints(g)
	if v := p.Evaluate(req); v.Outcome != OutcomeDeny {
		t.Fatalf("deny rule: %+v", v)
	}
	p, _ = NewPolicy(ReadOnly, nil)
	p.TrustHints(g)
	if v := p.Evaluate(req); v.Outcome != OutcomeDeny {
		t.Fatalf("readonly: %+v", v)
	}
	p, _ = NewPolicy(Ask, nil)
	if v := p.Evaluate(req); v.Outcome != OutcomeAsk || !strings.Contains(v.Why, "not trusted in this project") {
		t.Fatalf("without the grant: %+v", v)
	}
	p.TrustHints(g)
	if v := p.Evaluate(req); v.Outcome != OutcomeAllow {
		t.Fatalf("with the grant: %+v", v)
	}
}
