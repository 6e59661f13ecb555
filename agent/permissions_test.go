package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/approval"
	"myclaw/config"
	"myclaw/tools"
)

func TestPermissionsListAndRevoke(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.toml")
	srv := newFakeServer(t)
	h := newHarness(t, approval.Ask, srv, func(o *Options) { o.ConfigPath = cfg })
	here := approval.Rule{Tool: "fs_write", Decision: "allow", Workspace: h.ws}
	other := approval.Rule{Tool: "fs_edit", Decision: "allow", Workspace: filepath.Join(h.ws, "elsewhere")}
	user := approval.Rule{Tool: "shell_run", Match: "git push*", Decision: "deny"}
	for _, r := range []approval.Rule{user, here, other} {
		if _, err := config.SaveRule(cfg, r, approval.CheckRule); err != nil {
			t.Fatal(err)
		}
	}
	// The rule is in force as app.go builds the policy, and its grant too.
	p, err := approval.NewPolicy(approval.Ask, approval.ForWorkspace([]approval.Rule{user, here, other}, h.ws))
	if err != nil {
		t.Fatal(err)
	}
	h.agent.opts.Policy = p
	write := approval.Request{Tool: "fs_write", Meta: tools.Meta{Name: "fs_write", Risk: tools.RiskMedium}, Capability: "fs:write:a.txt", Args: []byte(`{}`)}
	p.Remember(write, approval.Decision{Choice: approval.ApproveSession})

	list, others, err := h.agent.Permissions()
	if err != nil || others != 1 || len(list) != 3 {
		t.Fatalf("Permissions = %+v, %d, %v; want a grant, this project's rule, the user's, and 1 other", list, others, err)
	}
	if list[0].Scope != "session" || list[1].Scope != "project" || !list[1].Same(here) || list[2].Scope != "user" || !list[2].Same(user) ||
		!strings.HasPrefix(list[1].Where, cfg+":") {
		t.Fatalf("Permissions = %+v", list)
	}
	if err := h.agent.RevokePermission(list[1]); err != nil {
		t.Fatal(err)
	}
	if v := p.Evaluate(write); v.Outcome != approval.OutcomeAsk {
		t.Fatalf("after removing the saved rule, fs_write is %+v; want it to ask again", v)
	}
	data, _ := os.ReadFile(cfg)
	if strings.Contains(string(data), `tool = "fs_write"`) || !strings.Contains(string(data), "git push*") || !strings.Contains(string(data), "fs_edit") {
		t.Fatalf("config after removal:\n%s", data)
	}
	if list, _, _ := h.agent.Permissions(); len(list) != 1 || list[0].Scope != "user" {
		t.Fatalf("after removal: %+v", list)
	}
}

// A saved trust of an MCP server's read-only hints is a permission too:
// listed with its file, and removable.
func TestPermissionsListHintGrants(t *testing.T) {
	hints := filepath.Join(t.TempDir(), approval.HintGrantsFile)
	h := newHarness(t, approval.Ask, newFakeServer(t), func(o *Options) { o.HintGrants = hints })
	g := approval.HintGrant{Server: "docs", Tools: map[string]string{"docs/search": "d1", "docs/read": "d2"}}
	if err := approval.SaveHintGrant(hints, h.ws, g); err != nil {
		t.Fatal(err)
	}
	h.agent.opts.Policy.TrustHints(g)
	list, _, err := h.agent.Permissions()
	if err != nil || len(list) != 1 || list[0].Server != "docs" || list[0].Where != hints || strings.Join(list[0].Tools, ",") != "docs/read,docs/search" {
		t.Fatalf("Permissions = %+v, %v", list, err)
	}
	if err := h.agent.RevokePermission(list[0]); err != nil {
		t.Fatal(err)
	}
	if left, _ := approval.LoadHintGrants(hints, h.ws); len(left) != 0 {
		t.Fatalf("the grant is still saved: %+v", left)
	}
	m := tools.Meta{Name: "docs/search", HintServer: "docs", Definition: "d1"}
	if st := h.agent.opts.Policy.HintStatus(m); !strings.Contains(st, "not trusted") {
		t.Fatalf("after removal the hints still count: %q", st)
	}
}
