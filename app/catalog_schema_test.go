package app

import (
	"testing"

	"myclaw/internal/apptest"
	"myclaw/tools"
	"myclaw/tools/builtin"
)

// TestBuiltinSchemasCompile: the registry compiles a builtin tool's schema
// at its first call, not at registration (see tools.prepareSchema), so
// this is where a builtin schema that does not compile is caught: every
// builtin of the catalog, the optional ones included.
func TestBuiltinSchemasCompile(t *testing.T) {
	e := apptest.NewEnv(t, apptest.WriteNote)
	e.Setenv(t)
	a, _ := openApp(t, e)
	metas := []tools.Meta{
		builtin.NewWebSearch("http://127.0.0.1:1/search", builtin.WebOptions{}).Meta(),
		builtin.NewSupraLLM(builtin.SupraOptions{BaseURL: "http://127.0.0.1:1/v1", Model: "m"}).Meta(),
		builtin.NewSkill(a.skills).Meta(),
	}
	for _, tl := range a.registry.List() {
		metas = append(metas, tl.Meta())
	}
	n := 0
	for _, m := range metas {
		if m.Source != tools.SourceBuiltin {
			continue
		}
		n++
		if err := tools.CompileSchema(m.Name, m.Schema); err != nil {
			t.Errorf("%s: %v", m.Name, err)
		}
	}
	if n < 15 {
		t.Fatalf("only %d builtin tools looked at", n)
	}
}
