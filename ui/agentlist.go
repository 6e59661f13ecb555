package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"myclaw/agent"
	"myclaw/tools"
	"myclaw/tools/termtext"
)

// agentList is /agents: the sub-agents, running and finished, in place of
// the input, read again while any runs. ↑↓ select, Enter opens one's
// transcript, x stops a running one, Esc closes.
type agentList struct {
	c    *common
	s    Subagents
	seq  int
	list []agent.SubagentInfo
	defs []agent.Definition
	sel  int
	note string // what the last x did
}

// agentStopKey stops the selected sub-agent.
const agentStopKey = "x"

// agentListMsg brings a read of the sub-agents.
type agentListMsg struct {
	seq  int
	list []agent.SubagentInfo
	defs []agent.Definition
	note string
}

// agentListFollowMsg asks the open list to read them again.
type agentListFollowMsg struct{ seq int }

func readAgents(s Subagents, seq int, note string) tea.Cmd {
	return func() tea.Msg {
		return agentListMsg{seq: seq, list: s.SubagentList(), defs: s.SubagentDefinitions(), note: note}
	}
}

// stopAgent cancels one and reads the list again, saying what it did.
func stopAgent(s Subagents, seq int, i agent.SubagentInfo) tea.Cmd {
	return func() tea.Msg {
		note := i.ID + " had already finished, nothing to stop"
		if s.CancelSubagent(i.ID) {
			note = "stopped " + i.ID + ": nothing it did reaches the workspace"
		}
		return readAgents(s, seq, note)()
	}
}

// openAgentList runs /agents: the list opens with the first read.
func (m Model) openAgentList(s Subagents) (Model, tea.Cmd) {
	m.jobSeq++
	return m, readAgents(s, m.jobSeq, "")
}

// handleAgentList shows a read; with no sub-agent at all it prints what
// there is to know instead (the defined agents, how they start).
func (m Model) handleAgentList(msg agentListMsg) (Model, tea.Cmd) {
	s, _ := m.backend.(Subagents)
	if m.agents == nil {
		if msg.seq != m.jobSeq || s == nil {
			return m, nil
		}
		if len(msg.list) == 0 {
			m = m.addBlock(newFuncBlock(func(c *common) []string { return drawAgents(c, msg.list, msg.defs) }))
			return m, nil
		}
		m.agents = &agentList{c: m.c, s: s, seq: msg.seq}
	} else if m.agents.seq != msg.seq {
		return m, nil
	}
	l := m.agents
	// The selection stays on its agent as the list grows.
	if l.sel < len(l.list) {
		id := l.list[l.sel].ID
		for k, i := range msg.list {
			if i.ID == id {
				l.sel = k
			}
		}
	}
	l.list, l.defs = msg.list, msg.defs
	l.sel = max(min(l.sel, len(l.list)-1), 0)
	if msg.note != "" {
		l.note = msg.note
	}
	for _, i := range l.list {
		if i.Running {
			seq := l.seq
			return m, tea.Tick(jobFollowEvery, func(time.Time) tea.Msg { return agentListFollowMsg{seq: seq} })
		}
	}
	return m, nil
}

func (m Model) handleAgentListFollow(msg agentListFollowMsg) (Model, tea.Cmd) {
	if m.agents == nil || m.agents.seq != msg.seq {
		return m, nil
	}
	return m, readAgents(m.agents.s, msg.seq, "")
}

// agentListKey handles a key in the open list.
func (m Model) agentListKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	l := m.agents
	k := &m.c.keys
	if msg.Paste {
		return m, nil
	}
	switch {
	case key.Matches(msg, k.Cancel):
		m.agents = nil
	case key.Matches(msg, k.Choose) && len(l.list) > 0:
		id := l.list[l.sel].ID
		m.agents = nil
		m.jobSeq++
		src := agentTail{s: l.s}
		m.job = &jobView{c: m.c, src: src, cmd: "agents", id: id, seq: m.jobSeq}
		return m, readJobTail(src, id, m.jobSeq)
	case key.Matches(msg, k.PreviewUp):
		l.sel = max(l.sel-1, 0)
	case key.Matches(msg, k.PreviewDown):
		l.sel = max(min(l.sel+1, len(l.list)-1), 0)
	case msg.String() == agentStopKey && len(l.list) > 0:
		return m, stopAgent(l.s, l.seq, l.list[l.sel])
	}
	return m, nil
}

// view is the list: a row per sub-agent (id, state, elapsed, mode, calls,
// tokens, description) with its current step or how it ended beneath, the
// selected one marked, then the keys.
func (l *agentList) view() []string {
	st := &l.c.styles
	w := l.c.contentWidth()
	running := 0
	for _, i := range l.list {
		if i.Running {
			running++
		}
	}
	out := []string{st.PaneTitle.Render(truncate(fmt.Sprintf("sub-agents · %d running · %d finished", running, len(l.list)-running), w))}
	// Two rows an agent; the list scrolls with the selection.
	rows := max(min(pickerRows, (l.c.height-8)/2), 1)
	first := min(max(l.sel-rows/2, 0), max(len(l.list)-rows, 0))
	for k := first; k < len(l.list) && k < first+rows; k++ {
		i := l.list[k]
		state := i.Status
		if i.Running {
			state = "running"
		}
		head := fmt.Sprintf("%-4s %-9s %7s  %-7s %9s %7s  ", termtext.OneLine(i.ID, 6), state, formatElapsed(i.Elapsed.Round(time.Second)), i.Mode,
			tools.Count(i.Calls, "call"), shortTokens(i.Tokens))
		desc := termtext.OneLine(i.Description, 0)
		line := truncate(head+desc, max(w-2, 10))
		if k == l.sel {
			out = append(out, st.OK.Render("› "+line))
		} else {
			out = append(out, "  "+line)
		}
		step := i.Step
		if !i.Running && i.Message != "" {
			step = i.Message
		}
		if step != "" {
			out = append(out, st.Dim.Render(truncate("       ↳ "+termtext.OneLine(step, 0), w)))
		}
	}
	if len(l.defs) > 0 {
		names := make([]string, len(l.defs))
		for k, d := range l.defs {
			names[k] = termtext.OneLine(d.Name, 24)
		}
		out = append(out, st.Dim.Render(truncate("  defined agents: "+strings.Join(names, ", "), w)))
	}
	if l.note != "" {
		out = append(out, st.Status.Render(truncate("  "+termtext.OneLine(l.note, 0), w)))
	}
	foot := []string{"↑↓ choose", "enter opens its transcript"}
	if len(l.list) > 0 && l.list[l.sel].Running {
		foot = append(foot, agentStopKey+" stops it (an edit agent's copy is discarded)")
	}
	foot = append(foot, l.c.keys.Cancel.Help().Key+" closes")
	for _, f := range joinWrap(foot, " · ", w-2) {
		out = append(out, st.Dim.Render("  "+f))
	}
	return out
}
