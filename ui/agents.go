package ui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"myclaw/agent"
	"myclaw/tools"
	"myclaw/tools/termtext"
)

// Subagents is implemented by a Backend that runs sub-agents (the agent
// tool): /agents lists them, shows one's transcript live, and cancels one.
type Subagents interface {
	// SubagentList describes them, oldest first.
	SubagentList() []agent.SubagentInfo
	// SubagentTranscript describes one with its transcript so far (raw
	// text: sanitised before it is drawn); false when there is none.
	SubagentTranscript(id string) (agent.SubagentInfo, string, bool)
	// CancelSubagent cancels a running one; false when none runs as id.
	CancelSubagent(id string) bool
	// SubagentDefinitions lists the defined agents.
	SubagentDefinitions() []agent.Definition
}

// runningAgents counts the backend's running sub-agents.
func runningAgents(b Backend) int {
	s, ok := b.(Subagents)
	if !ok {
		return 0
	}
	n := 0
	for _, i := range s.SubagentList() {
		if i.Running {
			n++
		}
	}
	return n
}

// agentsCommand runs /agents (the list), /agents ID and /agents stop ID.
func (m Model) agentsCommand(args []string) (Model, tea.Cmd) {
	s, ok := m.backend.(Subagents)
	if !ok {
		m = m.addBlock(errorBlock("sub-agents are not available here", ""))
		return m, nil
	}
	switch {
	case len(args) == 0:
		return m.openAgentList(s)
	case len(args) == 2 && args[0] == "stop":
		id := agentID(args[1])
		return m, func() tea.Msg {
			info, _, ok := s.SubagentTranscript(id)
			switch {
			case !ok:
				return commandResultMsg{err: &agent.UserError{Msg: "No sub-agent " + termtext.OneLine(id, 20) + ".", Hint: "/agents lists them and their ids"}, refresh: true}
			case !s.CancelSubagent(id):
				return commandResultMsg{draw: textDraw(id + " had already finished, nothing to stop"), refresh: true}
			}
			return commandResultMsg{draw: textDraw("stopped " + id + ": " + tools.ClipOneLine(info.Description, 80) + " (nothing it did reaches the workspace)"), refresh: true}
		}
	case len(args) == 1 && args[0] != "stop":
		m.jobSeq++
		id := agentID(args[0])
		src := agentTail{s: s}
		m.job = &jobView{c: m.c, src: src, cmd: "agents", id: id, seq: m.jobSeq}
		return m, readJobTail(src, id, m.jobSeq)
	}
	m = m.addBlock(errorBlock("usage: /agents [ID | stop ID]", "lists the sub-agents, follows one's transcript, or stops one"))
	return m, nil
}

// agentID takes "1" for "a1", as /jobs takes "1" for "job1".
func agentID(s string) string {
	if _, err := strconv.Atoi(s); err == nil {
		return "a" + s
	}
	return s
}

// agentTail shows a sub-agent's transcript in the job view.
type agentTail struct{ s Subagents }

// JobTail implements JobOutput: the newest n bytes of the transcript.
func (a agentTail) JobTail(id string, n int) (tools.JobInfo, string, error) {
	i, text, ok := a.s.SubagentTranscript(id)
	if !ok {
		return tools.JobInfo{}, "", errors.New("no sub-agent " + id)
	}
	if len(text) > n {
		text = text[len(text)-n:]
	}
	// The view's age is the agent's: a finished one stops counting.
	return tools.JobInfo{ID: id, Running: i.Running, Stopped: i.Status == "cancelled", Started: time.Now().Add(-i.Elapsed),
		Command: agentLine(i)}, text, nil
}

// agentLine is one sub-agent in a line: what it does and how far it got.
func agentLine(i agent.SubagentInfo) string {
	s := fmt.Sprintf("%s (%s) · %s · %s tokens", i.Description, i.Mode, tools.Count(i.Calls, "call"), shortTokens(i.Tokens))
	if !i.Running {
		s += " · " + i.Status
	}
	return s
}

func shortTokens(n int) string {
	if n >= 1000 {
		return strconv.FormatFloat(float64(n)/1000, 'f', 1, 64) + "k"
	}
	return strconv.Itoa(n)
}

// drawAgents lists the sub-agents one per line: id, state, elapsed, mode,
// calls, tokens, description, then the current step indented.
func drawAgents(c *common, list []agent.SubagentInfo, defs []agent.Definition) []string {
	w := c.contentWidth() - 2
	st := &c.styles
	var out []string
	if len(defs) > 0 {
		out = append(out, st.Bold.Render("  defined agents"))
		for _, d := range defs {
			line := fmt.Sprintf("  %-16s %-7s %s", termtext.OneLine(d.Name, 16), d.Mode, termtext.OneLine(d.Description, 0))
			out = append(out, truncate(line, w+2))
		}
		if len(list) > 0 {
			out = append(out, "")
		}
	}
	if len(list) == 0 {
		return append(out, textDraw("no sub-agents yet (the model starts one with the agent tool)")(c)...)
	}
	for _, i := range list {
		state := i.Status
		if i.Running {
			state = "running"
		}
		head := fmt.Sprintf("%-4s %-9s %7s  %-7s %9s %7s  ", termtext.OneLine(i.ID, 6), state, formatElapsed(i.Elapsed.Round(time.Second)), i.Mode,
			tools.Count(i.Calls, "call"), shortTokens(i.Tokens))
		hw := ansi.StringWidth(head)
		desc := truncate(termtext.OneLine(i.Description, 0), max(w-hw, 10))
		out = append(out, "  "+head+desc)
		step := i.Step
		if !i.Running && i.Message != "" {
			step = i.Message
		}
		if step != "" {
			out = append(out, st.Dim.Render(truncate("  "+strings.Repeat(" ", 5)+"↳ "+termtext.OneLine(step, 0), w+2)))
		}
	}
	return append(out, textDraw("/agents opens the list of them: enter shows one's transcript, "+agentStopKey+" stops one; or /agents ID, /agents stop ID")(c)...)
}
