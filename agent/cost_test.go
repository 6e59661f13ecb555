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
	r.body = strings.Replace(r.body, `"total_tokens":120}`, `"total_tokens":120,"cost":`+cost+`}`, 1)
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
	if r.Requests != 2 || r.PromptTokens != 200 || r.CompletionTokens != 40 || r.Estimated {
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
	// 100 prompt tokens at $3/M and 20 completion tokens at $15/M.
	if r := h.agent.Cost(); !r.CostKnown || r.ServerCost || math.Abs(r.Cost-(100*3+20*15)/1e6) > 1e-12 {
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
