package approval

import (
	"strings"
	"testing"

	"myclaw/tools"
)

// An edit agent's merge is asked about each time: no session grant is
// recorded for one, and a grant of the agent tool (made for an explore
// agent, say) does not allow one.
func TestNoSessionGrantCoversAnEditAgentsMerge(t *testing.T) {
	meta := func(capability string, readOnly bool) tools.Meta {
		return tools.Meta{Name: "agent", ReadOnly: readOnly, Risk: tools.RiskMedium, Capability: capability}
	}
	edit := Request{Tool: "agent", Meta: meta("agent:edit", false), Capability: "agent:edit"}
	merge := edit
	merge.Previewed = true
	for _, req := range []Request{edit, merge, {Tool: "agent", Meta: meta("agent:edit", false)}} {
		if ok, why := Grantable(req); ok || !strings.Contains(why, "edit agent's merge") {
			t.Errorf("Grantable(%+v) = %v, %q; want no grant, saying why", req.Capability, ok, why)
		}
	}
	p := mustPolicy(t, AutoEdit)
	p.Remember(merge, Decision{Choice: ApproveSession, SaveRule: true})
	if g := p.Grants(); len(g) != 0 {
		t.Fatalf("approving a merge for the session granted %v", g)
	}
	explore := Request{Tool: "agent", Meta: meta("agent:explore", false), Capability: "agent:explore"}
	p.Remember(explore, Decision{Choice: ApproveSession})
	if g := p.Grants(); len(g) != 1 || g[0].Tool != "agent" {
		t.Fatalf("grants %v; want the agent tool granted for explore", g)
	}
	for _, level := range []Level{Ask, AutoEdit} {
		p.SetLevel(level)
		if v := p.Evaluate(edit); v.Outcome != OutcomeAsk {
			t.Errorf("at %s with the agent tool granted, an edit agent was %s by %s; want it asked about", level, v.Outcome, v.By)
		}
	}
	if v := p.Evaluate(explore); v.Outcome != OutcomeAllow {
		t.Errorf("the explore call the grant was made for is %s", v.Outcome)
	}
}
