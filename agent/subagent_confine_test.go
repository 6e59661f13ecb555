package agent

import (
	"context"
	"strings"
	"testing"

	"myclaw/approval"
)

// An explore agent's shell command is asked about as it really runs: a
// scratch copy whose writes are discarded, without network, even where
// other commands may reach allowed hosts; an approval with network does
// not give it any.
func TestSubagentExploreShellConfinementIsTheTruth(t *testing.T) {
	shell := &fakePreviewShell{}
	ro, why := NewReadOnlyShell(shell)
	if ro == nil {
		t.Fatal(why)
	}
	h, _ := subHarness(t, approval.Ask, func(r routedRequest) reply {
		switch {
		case r.sub() && !strings.Contains(r.raw, `"role":"tool"`):
			return openAIStyle("", call{id: "s1", name: "shell_run", args: `{"command":"curl -o page.html https://example.com"}`})
		case r.sub():
			return openAIStyle("looked")
		case r.Messages[len(r.Messages)-1]["role"] == "tool":
			return openAIStyle("done")
		}
		return openAIStyle("", agentCall("c1", "look around", "explore", "Fetch the page."))
	}, SubagentOptions{ExploreShell: ro})
	h.policy.SetSandbox(approval.Sandbox{Active: true, HostProxy: true})
	ap := &recordingApprover{d: approval.Decision{Choice: approval.ApproveOnce, Network: true}}
	if err := h.run(context.Background(), "go", ap); err != nil {
		t.Fatal(err)
	}
	var asked *approval.Request
	for i, r := range ap.requests {
		if r.Meta.Name == "shell_run" {
			asked = &ap.requests[i]
		}
	}
	if asked == nil {
		t.Fatalf("the explore agent's command was not asked about: %v", ap.requests)
	}
	c := asked.Confinement
	if c == nil || !c.Sandboxed || !c.Discarded || c.Network || c.HostProxy || c.Tool().Network {
		t.Fatalf("confinement %+v; want sandboxed, discarded, no network", c)
	}
	if s := c.String(); strings.Contains(s, "hosts") || !strings.Contains(s, "discarded") || !strings.Contains(s, "no network") {
		t.Errorf("the confinement line %q does not say what happens", s)
	}
	for _, e := range h.subEvents("") {
		if ae, ok := e.(ApprovalEvent); ok && ae.Phase == "decided" && strings.Contains(ae.Sandbox, "network") && !strings.Contains(ae.Sandbox, "no network") {
			t.Errorf("the decided command is said to run with network: %q", ae.Sandbox)
		}
	}
	if got := withNetwork(c, true); got.Network {
		t.Error("approving with network grants the scratch run network")
	}
}
