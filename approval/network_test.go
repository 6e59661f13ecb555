package approval

import "testing"

// A cloud's metadata service is asked about at every level, full too, and
// no grant covers it: it hands out the machine's credentials.
func TestMetadataServiceIsAskedAboutAtEveryLevel(t *testing.T) {
	for _, hp := range []string{"169.254.169.254:80", "[fd00:ec2::254]:80", "169.254.170.2:80"} {
		req := NetworkRequest("c1", "curl http://"+hp, hp)
		for _, level := range []Level{Ask, AutoEdit, Full} {
			p, err := NewPolicy(level, []Rule{{Tool: NetworkTool, Match: req.Capability, Decision: "allow"}})
			if err != nil {
				t.Fatal(err)
			}
			p.Remember(req, Decision{Choice: ApproveSession})
			if v := p.Evaluate(req); v.Outcome != OutcomeAsk {
				t.Errorf("%s at %s: %s by %s; want ask", hp, level, v.Outcome, v.By)
			}
		}
		if ok, _ := Grantable(req); ok {
			t.Errorf("%s is grantable", hp)
		}
	}
	full, _ := NewPolicy(Full, nil)
	if v := full.Evaluate(NetworkRequest("c1", "curl", "example.com:443")); v.Outcome != OutcomeAllow {
		t.Errorf("an ordinary host at full: %s; want allow", v.Outcome)
	}
}
