package ui

import (
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"myclaw/agent"
)

type costFake struct {
	*fakeBackend
	rep agent.CostReport
}

func (c *costFake) Cost() agent.CostReport { return c.rep }

// runOnly is the report of a session whose requests were all this run's
// and all turns.
func runOnly(u agent.Usage, prices agent.Prices) agent.CostReport {
	return agent.CostReport{Usage: u, Run: u, Kinds: []agent.KindUsage{{Kind: agent.RequestTurn, Usage: u}}, Prices: prices}
}

func TestCostGolden(t *testing.T) {
	turns := agent.Usage{Requests: 7, PromptTokens: 40200, CompletionTokens: 2600, Cost: 0.0350, CostKnown: true, ServerCost: true}
	compaction := agent.Usage{Requests: 1, PromptTokens: 6000, CompletionTokens: 400, Cost: 0.0060, CostKnown: true, ServerCost: true}
	sampling := agent.Usage{Requests: 1, PromptTokens: 2000, CompletionTokens: 100, Cost: 0.0011, CostKnown: true, ServerCost: true}
	for name, rep := range map[string]agent.CostReport{
		"server":  runOnly(agent.Usage{Requests: 7, PromptTokens: 48200, CompletionTokens: 3100, Cost: 0.0421, CostKnown: true, ServerCost: true}, agent.Prices{}),
		"prices":  runOnly(agent.Usage{Requests: 3, PromptTokens: 12000, CompletionTokens: 900, Estimated: true, Cost: 0.0495, CostKnown: true}, agent.Prices{Input: 3, Output: 15}),
		"unknown": runOnly(agent.Usage{Requests: 1, PromptTokens: 900, CompletionTokens: 40}, agent.Prices{}),
		// A resumed session that compacted and answered an MCP server:
		// the split by kind, and this run's part of the whole.
		"split": {
			Usage: agent.Usage{Requests: 9, PromptTokens: 48200, CompletionTokens: 3100, Cost: 0.0421, CostKnown: true, ServerCost: true},
			Kinds: []agent.KindUsage{{Kind: agent.RequestTurn, Usage: turns}, {Kind: agent.RequestCompaction, Usage: compaction}, {Kind: agent.RequestSampling, Usage: sampling}},
			Run:   agent.Usage{Requests: 2, PromptTokens: 8000, CompletionTokens: 500, Cost: 0.0071, CostKnown: true, ServerCost: true},
		},
		// Resumed, before this run's first request.
		"resumed": {Usage: turns, Kinds: []agent.KindUsage{{Kind: agent.RequestTurn, Usage: turns}}},
		// A session resumed from before usage was recorded.
		"uncounted": {
			Usage:     agent.Usage{Requests: 1, PromptTokens: 900, CompletionTokens: 40},
			Kinds:     []agent.KindUsage{{Kind: agent.RequestTurn, Usage: agent.Usage{Requests: 1, PromptTokens: 900, CompletionTokens: 40}}},
			Run:       agent.Usage{Requests: 1, PromptTokens: 900, CompletionTokens: 40},
			Uncounted: true,
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake()
			if rep.CostKnown {
				f.status.Cost, f.status.CostKnown = rep.Cost, true
			}
			m := newTestModel(t, &costFake{fakeBackend: f, rep: rep})
			m = typeText(m, "/cost")
			m, cmd := updateCmd(m, keyMsg("enter"))
			m = runCmd(t, m, cmd)
			golden.RequireEqual(t, []byte(screen(m)))
		})
	}
}
