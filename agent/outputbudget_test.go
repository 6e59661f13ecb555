package agent

import (
	"testing"

	"myclaw/approval"
)

func TestOutputBudgetShrinksAsTheWindowFills(t *testing.T) {
	srv := newFakeServer(t)
	h := newHarness(t, approval.Ask, srv, func(o *Options) { o.ContextWindow = 32768 })
	empty := h.agent.OutputBudget()
	h.agent.mu.Lock()
	h.agent.lastCount = counted{prompt: 30000, upTo: len(h.agent.messages), ok: true}
	h.agent.mu.Unlock()
	full := h.agent.OutputBudget()
	if empty > 8<<10 || full >= empty || full > 1024 {
		t.Fatalf("budget %d bytes with an empty 32k window, %d nearly full; want it small and shrinking", empty, full)
	}
}
