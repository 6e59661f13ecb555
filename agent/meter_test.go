package agent

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"myclaw/approval"
)

// The meter counts what every request carries from the start, as /context
// does, so it does not jump at the first answer.
func TestStatusCountsSystemPromptAndTools(t *testing.T) {
	h := newHarness(t, approval.Ask, newFakeServer(t))
	st, r := h.agent.Status(), h.agent.Context()
	want := r.System + r.Catalog + r.Conversation + r.Attached
	if st.TokensUsed != want || want < r.Catalog || r.Catalog == 0 || !st.TokensEstimated {
		t.Fatalf("Status().TokensUsed = %d (estimated %v); want /context's %d, tools included", st.TokensUsed, st.TokensEstimated, want)
	}
}

// Once the start-up check finds the server down, a request tries once:
// no retries to wait through, and nothing counted as used.
func TestServerFoundDownIsNotRetried(t *testing.T) {
	gone := httptest.NewServer(nil)
	url := gone.URL + "/v1"
	gone.Close()
	var h *harness
	h = newHarness(t, approval.Ask, newFakeServer(t), func(o *Options) {
		o.Client = NewClient(ClientConfig{BaseURL: url, Sleep: func(ctx context.Context, d time.Duration) error {
			h.mu.Lock()
			h.sleeps = append(h.sleeps, d)
			h.mu.Unlock()
			return nil
		}})
	})
	if err := h.agent.CheckServer(context.Background()); err == nil {
		t.Fatal("CheckServer found a closed server up")
	}
	before := h.agent.Status().TokensUsed
	if err := h.run(context.Background(), "hello", nil); err == nil {
		t.Fatal("a turn against a closed server succeeded")
	}
	if len(h.sleeps) != 0 || len(h.eventsOf("retry")) != 0 {
		t.Fatalf("retried %d times against a server found down", len(h.sleeps))
	}
	if n := len(h.eventsOf("usage")); n != 0 || h.agent.Cost().Requests != 0 {
		t.Fatalf("%d usage events, %d requests counted for a request that was never sent", n, h.agent.Cost().Requests)
	}
	if after := h.agent.Status().TokensUsed; after > before+20 {
		t.Fatalf("the meter went from %d to %d for an unsent request", before, after)
	}
}
