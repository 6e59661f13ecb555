package agent

import (
	"context"
	"math"
	"strings"
	"testing"

	"myclaw/approval"
)

// withCost is openAIStyle with the cost OpenRouter adds to usage.
func withCost(r reply, cost string) reply {
	r.body = strings.Replace(r.body, `"usage":{`, `"usage":{"cost":`+cost+`,`, 1)
	return r
}

func TestCostFromServer(t *testing.T) {
	t.Parallel()
	srv := newFakeServer(t, withCost(openAIStyle("a"), "0.0015"), withCost(openAIStyle("b"), "0.0025"))
	h := newHarness(t, approval.Ask, srv, func(o *Options) { o.Prices = Prices{Input: 100, Output: 100} })
	for _, p := range []string{"one", "two"} {
		if err := h.run(context.Background(), p, approveAll()); err != nil {
			t.Fatal(err)
		}
	}
	r := h.agent.Cost()
	u0, u1 := h.eventsOf("usage")[0].(UsageEvent), h.eventsOf("usage")[1].(UsageEvent)
	if r.Requests != 2 || r.PromptTokens != u0.PromptTokens+u1.PromptTokens || r.CompletionTokens != 40 || r.Estimated {
		t.Fatalf("totals %+v", r)
	}
	if !r.CostKnown || !r.ServerCost || math.Abs(r.Cost-0.004) > 1e-12 {
		t.Fatalf("cost %+v; want the server's 0.004, not the configured prices", r)
	}
	u := h.eventsOf("usage")[0].(UsageEvent)
	if u.Cost == nil || *u.Cost != 0.0015 {
		t.Fatalf("usage event cost %v", u.Cost)
	}
	if st := h.agent.Status(); !st.CostKnown || st.Cost != r.Cost {
		t.Fatalf("status %+v", st)
	}
}

func TestCostFromPrices(t *testing.T) {
	t.Parallel()
	srv := newFakeServer(t, openAIStyle("a"))
	h := newHarness(t, approval.Ask, srv, func(o *Options) { o.Prices = Prices{Input: 3, Output: 15} })
	if err := h.run(context.Background(), "one", approveAll()); err != nil {
		t.Fatal(err)
	}
	// The server's counts at $3/M prompt and $15/M completion tokens.
	u := h.eventsOf("usage")[0].(UsageEvent)
	want := float64(u.PromptTokens*3+u.CompletionTokens*15) / 1e6
	if r := h.agent.Cost(); !r.CostKnown || r.ServerCost || r.Estimated || math.Abs(r.Cost-want) > 1e-12 {
		t.Fatalf("cost %+v", r)
	}
	// Without prices nor a server figure the cost is unknown.
	srv2 := newFakeServer(t, openAIStyle("a"))
	h2 := newHarness(t, approval.Ask, srv2)
	h2.run(context.Background(), "one", approveAll())
	if r := h2.agent.Cost(); r.CostKnown || r.Requests != 1 {
		t.Fatalf("cost %+v; want unknown", r)
	}
}
