package approval

import (
	"myclaw/tools/builtin"
	"strings"
	"testing"
)

// A command line with raw control or invisible characters is not what the
// rule or the grant was made for: neither covers it, so it asks.
func TestHiddenCharactersDefeatRulesAndGrants(t *testing.T) {
	for _, cmd := range []string{
		"rm -rf ./build \x1b] ./victim \x07",
		"rm -rf ./bu\u200bild",
		"rm -rf ./build\u202e",
	} {
		p := mustPolicy(t, Ask, Rule{Tool: "shell_run", Match: "rm *", Decision: "allow"})
		if v := p.Evaluate(shellReq("rm -rf ./build")); v.Outcome != OutcomeAllow {
			t.Fatalf("plain rm: got %+v; want the rule to allow it", v)
		}
		v := p.Evaluate(shellReq(cmd))
		if v.Outcome != OutcomeAsk || !strings.Contains(v.Why, "raw control or invisible characters") {
			t.Errorf("%q under an allow rule: got %+v; want ask, naming the characters", cmd, v)
		}
		g := mustPolicy(t, Ask)
		g.Remember(shellReq(cmd), Decision{Choice: ApproveSession})
		if v := g.Evaluate(shellReq(cmd)); v.Outcome != OutcomeAsk {
			t.Errorf("%q after approve-for-session: got %+v; want ask again", cmd, v)
		}
	}
}

// Writes under .git and to the project's .myclaw.toml never go through on
// auto-edit or on a grant for the tool; memory notes ask under auto-edit.
func TestSensitiveWritesAsk(t *testing.T) {
	persist := memMeta
	persist.Persists = true
	tests := []struct {
		name string
		req  Request
		why  string
	}{
		{"git hook", callReq(writeMeta, "fs:write:.git/hooks/pre-commit"), ".git"},
		{"git config", callReq(editMeta, "fs:write:.git/config"), ".git"},
		{"nested repository", callReq(writeMeta, "fs:write:vendor/lib/.git/config"), ".git"},
		{"letter case", callReq(writeMeta, "fs:write:.GIT/hooks/post-checkout"), ".git"},
		{"project config", callReq(writeMeta, "fs:write:.myclaw.toml"), ".myclaw.toml"},
		{"project commands", callReq(writeMeta, "fs:write:.myclaw/commands/x.md"), ".myclaw"},
		{"memory note", callReq(persist, "memory:write:todo"), "every later session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := mustPolicy(t, AutoEdit).Evaluate(tt.req)
			if v.Outcome != OutcomeAsk || !strings.Contains(v.Why, tt.why) {
				t.Errorf("auto-edit: got %+v; want ask, saying %q", v, tt.why)
			}
			if tt.req.Meta.Persists {
				return
			}
			g := mustPolicy(t, AutoEdit)
			g.Remember(callReq(tt.req.Meta, "fs:write:notes.md"), Decision{Choice: ApproveSession})
			if v := g.Evaluate(tt.req); v.Outcome != OutcomeAsk {
				t.Errorf("after a session grant for the tool: got %+v; want ask", v)
			}
			if v := mustPolicy(t, Full).Evaluate(tt.req); v.Outcome != OutcomeAllow {
				t.Errorf("full: got %+v; want allow", v)
			}
		})
	}
	r := mustPolicy(t, AutoEdit, Rule{Tool: "fs_write", Match: "fs:write:.git/hooks/*", Decision: "allow"})
	if v := r.Evaluate(callReq(writeMeta, "fs:write:.git/hooks/pre-commit")); v.Outcome != OutcomeAllow {
		t.Errorf("a rule for the path: got %+v; want allow", v)
	}
	if v := mustPolicy(t, AutoEdit).Evaluate(callReq(writeMeta, "fs:write:src/git.go")); v.Outcome != OutcomeAllow {
		t.Errorf("an ordinary write: got %+v; want allow", v)
	}
}

// The real memory_store declares that its notes outlive the session, so
// auto-edit asks for it.
func TestMemoryStoreAsksUnderAutoEdit(t *testing.T) {
	m := builtin.NewMemoryStore(nil).Meta()
	v := mustPolicy(t, AutoEdit).Evaluate(callReq(m, "memory:write:todo"))
	if v.Outcome != OutcomeAsk {
		t.Errorf("memory_store under auto-edit: got %+v; want ask", v)
	}
	r := mustPolicy(t, AutoEdit, Rule{Tool: "memory_store", Decision: "allow"})
	if v := r.Evaluate(callReq(m, "memory:write:todo")); v.Outcome != OutcomeAllow {
		t.Errorf("memory_store with an allow rule: got %+v; want allow", v)
	}
}
