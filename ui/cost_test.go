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

func TestCostGolden(t *testing.T) {
	for name, rep := range map[string]agent.CostReport{
		"server":  {Requests: 7, PromptTokens: 48200, CompletionTokens: 3100, Cost: 0.0421, CostKnown: true, ServerCost: true},
		"prices":  {Requests: 3, PromptTokens: 12000, CompletionTokens: 900, Estimated: true, Cost: 0.0495, CostKnown: true, Prices: agent.Prices{Input: 3, Output: 15}},
		"unknown": {Requests: 1, PromptTokens: 900, CompletionTokens: 40},
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
