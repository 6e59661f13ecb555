package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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

// The meter is the server's count of the last request plus what came
// after, and a session resumed (--continue) shows what it showed live: the
// count is in the transcript's usage records, not replaced by an estimate.
func TestMeterIsTheSameResumed(t *testing.T) {
	t.Parallel()
	// Counts far from the four-bytes-a-token estimate, as a tokenizer's are.
	srv := newFakeServer(t,
		countedReply("", 9000, call{"w1", "fs_write", `{"path":"a.txt","content":"x"}`}),
		countedReply("written", 9100),
		countedReply("fine", 9200),
		countedReply("", 9300, call{"w2", "fs_write", `{"path":"b.txt","content":"y"}`}),
		countedReply("written too", 9400),
	)
	h := newHarness(t, approval.Ask, srv)
	for _, p := range []string{"write a.txt", "how is it", "write b.txt"} {
		if err := h.run(context.Background(), p, approveAll()); err != nil {
			t.Fatal(err)
		}
	}
	live := h.agent.Status()
	msgs := h.agent.Messages()
	want := 9400 + estimateMessage(msgs[len(msgs)-1])
	if live.TokensUsed != want || live.TokensEstimated {
		t.Fatalf("live meter %d (estimated %v); want the server's 9400 and the answer after it, %d", live.TokensUsed, live.TokensEstimated, want)
	}
	usages := h.eventsOf("usage")
	if ev := usages[len(usages)-1].(UsageEvent); ev.Context != want || ev.ContextEstimated {
		t.Fatalf("the usage event's meter %d (estimated %v); want %d, as the status line shows after the turn", ev.Context, ev.ContextEstimated, want)
	}
	resumed, err := New(h.agent.opts)
	if err != nil {
		t.Fatal(err)
	}
	if st := resumed.Status(); st.TokensUsed != live.TokensUsed || st.TokensEstimated {
		t.Fatalf("resumed meter %d (estimated %v); want the live %d", st.TokensUsed, st.TokensEstimated, live.TokensUsed)
	}
	// A compaction changes what was counted: both go back to the estimate.
	srv.fallback = func(int) reply { return countedReply("## Goal\nwrite", 50) }
	if _, err := resumed.Compact(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	again, err := New(h.agent.opts)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := resumed.Status(), again.Status(); a.TokensUsed != b.TokensUsed || !a.TokensEstimated || !b.TokensEstimated {
		t.Fatalf("after compaction: live %+v, resumed %+v; want the same estimate", a, b)
	}
}

// A turn cancelled while the answer streams (Esc) keeps the server's last
// count and adds the prompt and the partial answer: the meter never drops
// below what the conversation holds, as it did when the cancelled
// request's estimate replaced the server's count.
func TestMeterDoesNotDropOnCancel(t *testing.T) {
	t.Parallel()
	srv := newFakeServer(t, countedReply("first answer", 9000))
	h := newHarness(t, approval.Ask, srv)
	if err := h.run(context.Background(), "one", nil); err != nil {
		t.Fatal(err)
	}
	before := h.agent.Status().TokensUsed
	// The next answer streams a word and waits: the user cancels it.
	first := chunk(map[string]any{"role": "assistant", "content": "partial words"}, nil)
	srv.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\n\n", mustJSON(t, first))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := h.agent.Run(ctx, "two", func(e Event) {
		if _, ok := e.(TextDelta); ok {
			cancel()
		}
	}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v; want cancelled", err)
	}
	msgs := h.agent.Messages()
	if last := msgs[len(msgs)-1]; !strings.Contains(last.Content, "partial words") {
		t.Fatalf("the partial answer is not kept: %+v", last)
	}
	after := h.agent.Status()
	if after.TokensUsed < before+estimateMessages(msgs[len(msgs)-2:]) || after.TokensEstimated {
		t.Fatalf("meter %d (estimated %v) after the cancel; was %d, and the prompt and partial answer came since", after.TokensUsed, after.TokensEstimated, before)
	}
}

// countedReply is an answer whose usage counts promptTokens and 20 more
// for the answer.
func countedReply(text string, promptTokens int, calls ...call) reply {
	r := usageReply(text, promptTokens, calls...)
	r.body = strings.Replace(r.body, `"total_tokens":4020`, fmt.Sprintf(`"total_tokens":%d`, promptTokens+20), 1)
	return r
}
