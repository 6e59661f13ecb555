package ui

import (
	"fmt"
	"strconv"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/agent"
	"myclaw/tools/termtext"
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
		if r.Uncounted {
			return []string{"  " + st.Dim.Render("no requests counted in this session yet: its earlier runs predate usage records")}
		}
		return []string{"  " + st.Dim.Render("no requests to the model yet in this session")}
	}
	mark := ""
	if r.Estimated {
		mark = "~"
	}
	row := func(k, v string) string { return truncate("  "+pad(k, 20)+v, c.contentWidth()) }
	var out []string
	earlier := r.Run.Requests != r.Requests
	if earlier {
		out = append(out, "  "+st.Dim.Render("the whole session, its earlier runs included"))
	}
	out = append(out,
		row("requests", strconv.Itoa(r.Requests)),
		row("prompt tokens", mark+shortCount(r.PromptTokens)),
		row("completion tokens", mark+shortCount(r.CompletionTokens)),
		row("total", mark+shortCount(r.PromptTokens+r.CompletionTokens)),
	)
	switch {
	case r.CostKnown && r.ServerCost:
		out = append(out, row("cost", formatUSD(r.Cost)+st.Dim.Render("  as the server reported it")))
	case r.CostKnown:
		out = append(out, row("cost", mark+formatUSD(r.Cost)+st.Dim.Render(fmt.Sprintf("  at $%g / $%g per million prompt / completion tokens", r.Prices.Input, r.Prices.Output))))
	default:
		out = append(out, row("cost", st.Dim.Render("unknown: set price_input, price_output (USD per M tokens)")))
	}
	if len(r.Kinds) > 1 || earlier {
		out = append(out, "", truncate("  "+pad("", 20)+st.Dim.Render(fmt.Sprintf("%8s%10s%10s", "requests", "tokens", "cost")), c.contentWidth()))
		if len(r.Kinds) > 1 {
			for _, k := range r.Kinds {
				out = append(out, splitRow(c, kindLabel(k.Kind), k.Usage))
			}
		}
		if earlier {
			out = append(out, splitRow(c, "this run", r.Run))
		}
	}
	if r.Estimated {
		out = append(out, "  "+st.Dim.Render("~ estimated at 4 bytes a token: the server sent no usage for some requests"))
	}
	if r.Uncounted {
		out = append(out, "  "+st.Dim.Render("earlier runs of this session predate usage records: not counted"))
	}
	return out
}

// kindLabel names a kind of request in /cost.
func kindLabel(kind string) string {
	switch kind {
	case agent.RequestTurn:
		return "turns"
	case agent.RequestCompaction:
		return "compaction"
	case agent.RequestSampling:
		return "MCP sampling"
	case agent.RequestSubagent:
		return "sub-agents"
	}
	return termtext.OneLine(kind, 18)
}

// splitRow is one line of /cost's split: requests, tokens and cost.
func splitRow(c *common, label string, u agent.Usage) string {
	mark := ""
	if u.Estimated {
		mark = "~"
	}
	cost := "?"
	switch {
	case u.Requests == 0:
		cost = formatUSD(0)
	case u.CostKnown:
		cost = formatUSD(u.Cost)
		if !u.ServerCost {
			cost = mark + cost
		}
	}
	return truncate("  "+pad(label, 20)+fmt.Sprintf("%8d%10s%10s", u.Requests, mark+shortCount(u.PromptTokens+u.CompletionTokens), cost), c.contentWidth())
}
