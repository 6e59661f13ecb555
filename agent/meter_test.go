package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"myclaw/agent/chat"
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
		o.Client = chat.NewClient(chat.ClientConfig{BaseURL: url, Sleep: func(ctx context.Context, d time.Duration) error {
			h.mu.Lock()
			h.sleeps = append(h.sleeps, d)
			h.mu.Unlock()
			return nil
		}})
	})
	h.agent.opts.BaseURLOrigin = "base_url of [providers.vllm] in c.toml"
	err := h.agent.CheckServer(context.Background())
	var ue *UserError
	if !errors.As(err, &ue) || ue.Msg != "No model server at "+url+"." || !strings.Contains(ue.Hint, "[providers.vllm]") || strings.Contains(ue.Hint, "OPENAI_BASE_URL") {
		t.Fatalf("CheckServer = %#v; want one sentence and the setting that chose the URL, not OPENAI_BASE_URL", err)
	}
	before := h.agent.Status().TokensUsed
	if err := h.run(context.Background(), "hello", nil); !errors.As(err, &ue) || !strings.HasPrefix(ue.Msg, "No model server at") || !strings.Contains(ue.Hint, "[providers.vllm]") {
		t.Fatalf("a turn against a closed server: %v", err)
	}
	if len(h.sleeps) != 0 || len(h.eventsOf("retry")) != 0 {
		t.Fatalf("retried %d times against a server found down", len(h.sleeps))
	}
	if n := len(h.eventsOf("usage")); n != 0 || h.agent.Cost().Requests != 0 {
		t.Fatalf("%d usage events, %d requests counted for a request that was never sent", n, h.agent.Cost().Requests)
	}
	// The prompt and the date and level notes ahead of it are kept.
	if after := h.agent.Status().TokensUsed; after > before+100 {
		t.Fatalf("the meter went from %d to %d for an unsent request", before, after)
	}
}

// An answer with several calls reports them all as queued first, so the
// person sees what waits behind the one being asked about.
func TestSeveralCallsAreQueuedFirst(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"q1", "fs_write", `{"path":"a.txt","content":"1"}`}, call{"q2", "fs_write", `{"path":"b.txt","content":"2"}`}),
		openAIStyle("done"),
	)
	h := newHarness(t, approval.Ask, srv)
	if err := h.run(context.Background(), "write two", &recordingApprover{d: approval.Decision{Choice: approval.Deny}}); err != nil {
		t.Fatal(err)
	}
	var phases []string
	for _, e := range h.eventsOf("tool_call") {
		ev := e.(ToolCallEvent)
		phases = append(phases, fmt.Sprintf("%s %s %d/%d", ev.Call.ID, ev.Phase, ev.Position, ev.Count))
	}
	want := []string{"q1 queued 1/2", "q2 queued 2/2", "q1 proposed 0/0", "q2 proposed 0/0"}
	if !slices.Equal(phases, want) {
		t.Fatalf("tool_call events %q; want %q", phases, want)
	}
}
