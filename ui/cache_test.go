package ui

import (
	"strings"
	"testing"

	"myclaw/agent"
)

// The status line shows the share of the prompt the server served from
// its cache when it said, and nothing when it did not.
func TestStatusShowsPromptCache(t *testing.T) {
	m := startFakeTurn(t, newTestModel(t, newFake()), "go")
	cached := 9_200
	m = events(m, agent.UsageEvent{PromptTokens: 10_000, CompletionTokens: 300, TotalTokens: 10_300, ContextWindow: 32_768, CachedTokens: &cached})
	if last := lines(screen(m))[testHeight-1]; !strings.Contains(last, "cache 92%") {
		t.Errorf("got status line %q; want cache 92%% in it", last)
	}
	m = events(m, agent.UsageEvent{PromptTokens: 10_500, CompletionTokens: 300, TotalTokens: 10_800, ContextWindow: 32_768})
	if last := lines(screen(m))[testHeight-1]; strings.Contains(last, "cache") {
		t.Errorf("got status line %q after a request without a cache figure; want none", last)
	}
}
