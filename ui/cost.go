package ui

import (
	"fmt"
	"strconv"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/agent"
)

// CostReporter is what a backend may offer for /cost. *agent.Agent
// implements it.
type CostReporter interface {
	Cost() agent.CostReport
}

// formatUSD writes a cost: $0.0042, $0.1234, $12.30, $1234.
func formatUSD(v float64) string {
	switch {
	case v < 1:
		return "$" + strconv.FormatFloat(v, 'f', 4, 64)
	case v < 1000:
		return "$" + strconv.FormatFloat(v, 'f', 2, 64)
	}
	return "$" + strconv.FormatFloat(v, 'f', 0, 64)
}

// costCommand runs /cost.
func (m Model) costCommand() (Model, tea.Cmd) {
	r, ok := m.backend.(CostReporter)
	if !ok {
		m = m.addBlock(errorBlock("/cost is not available here", ""))
		return m, nil
	}
	return m, func() tea.Msg {
		rep := r.Cost()
		return commandResultMsg{draw: func(c *common) []string { return drawCost(c, rep) }}
	}
}

func drawCost(c *common, r agent.CostReport) []string {
	st := &c.styles
	if r.Requests == 0 {
		return []string{"  " + st.Dim.Render("no requests to the model yet in this session")}
	}
	mark := ""
	if r.Estimated {
		mark = "~"
	}
	row := func(k, v string) string { return truncate("  "+pad(k, 20)+v, c.contentWidth()) }
	out := []string{
		row("requests", strconv.Itoa(r.Requests)),
		row("prompt tokens", mark+shortCount(r.PromptTokens)),
		row("completion tokens", mark+shortCount(r.CompletionTokens)),
		row("total", mark+shortCount(r.PromptTokens+r.CompletionTokens)),
	}
	switch {
	case r.CostKnown && r.ServerCost:
		out = append(out, row("cost", formatUSD(r.Cost)+st.Dim.Render("  as the server reported it")))
	case r.CostKnown:
		out = append(out, row("cost", mark+formatUSD(r.Cost)+st.Dim.Render(fmt.Sprintf("  at $%g / $%g per million prompt / completion tokens", r.Prices.Input, r.Prices.Output))))
	default:
		out = append(out, row("cost", st.Dim.Render("unknown: set price_input, price_output (USD per M tokens)")))
	}
	if r.Estimated {
		out = append(out, "  "+st.Dim.Render("~ marks counts estimated at 4 bytes a token: the server sent no usage for some requests"))
	}
	return out
}
