package agent

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

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

// kinds maps each kind of request in a report to its count.
func kinds(r CostReport) map[string]int {
	out := map[string]int{}
	for _, k := range r.Kinds {
		out[k.Kind] = k.Requests
	}
	return out
}

// Every request to the model is counted, by what it was for: the turns,
// the summary /compact asks for, an MCP server's sampling request.
func TestCompactionAndSamplingAreCounted(t *testing.T) {
	t.Parallel()
	srv := newFakeServer(t, openAIStyle("a"), openAIStyle("b"), openAIStyle("c"), openAIStyle("## Goal\nsay a and b"), openAIStyle("It renames a field."))
	h := newHarness(t, approval.Ask, srv, func(o *Options) { o.Prices = Prices{Input: 3, Output: 15} })
	ctx := context.Background()
	for _, p := range []string{"one", "two", "three"} {
		if err := h.run(ctx, p, approveAll()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.agent.Compact(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.agent.Sample(ctx, "", []SampleMessage{{Role: "user", Text: "Summarise this diff."}}, 100); err != nil {
		t.Fatal(err)
	}
	r := h.agent.Cost()
	// Each answer of the fake server: 4000 prompt and 20 completion tokens.
	want := 5 * (4000*3 + 20*15) / 1e6
	if r.Requests != 5 || r.PromptTokens != 20000 || r.CompletionTokens != 100 || !r.CostKnown || math.Abs(r.Cost-want) > 1e-12 {
		t.Fatalf("totals %+v; want 5 requests at $%g", r.Usage, want)
	}
	if got := kinds(r); !reflect.DeepEqual(got, map[string]int{RequestTurn: 3, RequestCompaction: 1, RequestSampling: 1}) || r.Kinds[0].Kind != RequestTurn {
		t.Fatalf("by kind %v (%+v)", got, r.Kinds)
	}
	if r.Run != r.Usage {
		t.Fatalf("this run %+v; want the whole of a new session", r.Run)
	}
	if st := h.agent.Status(); math.Abs(st.Cost-want) > 1e-12 {
		t.Fatalf("the status line's cost %v; want %v", st.Cost, want)
	}
}

// A compaction in the middle of a turn reports its usage with the turn's,
// marked as such: a script's totals include it, the meter does not count it.
func TestAutoCompactionReportsItsUsage(t *testing.T) {
	t.Parallel()
	srv := newFakeServer(t, openAIStyle("a"), openAIStyle("b"), openAIStyle("## Goal\nsay a and b"), openAIStyle("c"))
	h := newHarness(t, approval.Ask, srv, func(o *Options) { o.ContextWindow = 4000 })
	ctx := context.Background()
	for _, p := range []string{"one " + strings.Repeat("word ", 3000), "two", "three"} {
		if err := h.run(ctx, p, approveAll()); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(h.eventsOf("compaction")); n != 1 {
		t.Fatalf("%d compactions; want one", n)
	}
	var got []string
	for _, e := range h.eventsOf("usage") {
		got = append(got, e.(UsageEvent).Kind)
	}
	if strings.Join(got, ",") != "turn,turn,compaction,turn" {
		t.Fatalf("usage events by kind %v", got)
	}
	if k := kinds(h.agent.Cost()); k[RequestCompaction] != 1 || k[RequestTurn] != 3 {
		t.Fatalf("by kind %v", k)
	}
}

// The cost is the session's: resumed, it goes on from the total its
// transcript records, and says which part is this run's.
func TestCostGoesOnAfterResume(t *testing.T) {
	t.Parallel()
	srv := newFakeServer(t, withCost(openAIStyle("a"), "0.0015"), withCost(openAIStyle("b"), "0.0025"), withCost(openAIStyle("c"), "0.0005"),
		withCost(openAIStyle("## Goal\nsay a"), "0.0010"), withCost(openAIStyle("d"), "0.0020"))
	h := newHarness(t, approval.Ask, srv)
	ctx := context.Background()
	for _, p := range []string{"one", "two", "three"} {
		if err := h.run(ctx, p, approveAll()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.agent.Compact(ctx, ""); err != nil {
		t.Fatal(err)
	}
	first := h.agent.Cost()
	// --continue: a new agent over the same session.
	resumed, err := New(h.agent.opts)
	if err != nil {
		t.Fatal(err)
	}
	r := resumed.Cost()
	if r.Usage != first.Usage || r.Run.Requests != 0 || r.Uncounted || !reflect.DeepEqual(r.Kinds, first.Kinds) {
		t.Fatalf("resumed %+v; want the session's %+v, none of it this run's", r, first)
	}
	if st := resumed.Status(); !st.CostKnown || math.Abs(st.Cost-0.0055) > 1e-12 {
		t.Fatalf("the status line's cost after resume: %v (%v); want $0.0055", st.Cost, st.CostKnown)
	}
	h.agent = resumed
	if err := h.run(ctx, "four", approveAll()); err != nil {
		t.Fatal(err)
	}
	r = resumed.Cost()
	if r.Requests != 5 || math.Abs(r.Cost-0.0075) > 1e-12 || !r.ServerCost || r.Run.Requests != 1 || math.Abs(r.Run.Cost-0.002) > 1e-12 {
		t.Fatalf("after one more turn %+v; want 5 requests at $0.0075, this run 1 at $0.002", r)
	}
	if k := kinds(r); k[RequestTurn] != 4 || k[RequestCompaction] != 1 {
		t.Fatalf("by kind %v", k)
	}
}

// A session from before usage was recorded still loads: its totals start
// empty and say that its earlier requests were not counted.
func TestSessionWithoutUsageRecordsLoads(t *testing.T) {
	t.Parallel()
	h := newHarness(t, approval.Ask, newFakeServer(t))
	s := h.agent.Session()
	for _, m := range []openai.ChatCompletionMessage{{Role: "user", Content: "one"}, {Role: "assistant", Content: "a"}} {
		if err := s.Append("message", m); err != nil {
			t.Fatal(err)
		}
	}
	// A usage record that does not decode is passed over.
	if err := s.Append("usage", map[string]any{"prompt_tokens": "many"}); err != nil {
		t.Fatal(err)
	}
	a, err := New(h.agent.opts)
	if err != nil {
		t.Fatal(err)
	}
	if r := a.Cost(); r.Requests != 0 || !r.Uncounted || len(a.Messages()) != 2 {
		t.Fatalf("cost %+v, %d messages; want none counted, said so, and the conversation", r, len(a.Messages()))
	}
}

// A fork's cost is its own: the parent's requests stay the parent's.
func TestForkCountsItsOwnRequests(t *testing.T) {
	t.Parallel()
	srv := newFakeServer(t, openAIStyle("a"), openAIStyle("b"))
	h := newHarness(t, approval.Ask, srv)
	ctx := context.Background()
	if err := h.run(ctx, "one", approveAll()); err != nil {
		t.Fatal(err)
	}
	if _, err := h.agent.Fork(0); err != nil {
		t.Fatal(err)
	}
	if r := h.agent.Cost(); r.Requests != 0 || r.Uncounted {
		t.Fatalf("fork %+v; want nothing counted yet", r)
	}
	if err := h.run(ctx, "two", approveAll()); err != nil {
		t.Fatal(err)
	}
	if r := h.agent.Cost(); r.Requests != 1 {
		t.Fatalf("fork %+v; want its one request", r)
	}
}
