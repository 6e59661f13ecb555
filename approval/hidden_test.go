package approval

import (
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
