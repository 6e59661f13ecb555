package agent

import (
	"fmt"
	"strings"
)

// Transcript renders the sub-agent's turn so far as plain text, for the
// read-only view of /agents: its answer, its calls and how they ended.
// The text comes from the model and tools: sanitise it before drawing.
func (r *SubagentRun) Transcript() string {
	events, _ := r.Events()
	var b strings.Builder
	line := func(format string, args ...any) {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, format+"\n", args...)
	}
	line("task: %s", r.Prompt)
	for _, e := range events {
		switch ev := e.(type) {
		case TextDelta:
			b.WriteString(ev.Text)
		case ToolCallEvent:
			if ev.Phase == "started" {
				line("→ %s: %s", ev.Call.Tool, oneLine(firstNonEmpty(ev.Summary, string(ev.Call.Args)), 200))
			}
		case ToolResultEvent:
			switch {
			case ev.Status == StatusOK && !ev.Failed():
				line("✓ %s %s", ev.Call.Tool, oneLine(ev.Summary, 160))
			default:
				line("✗ %s %s: %s", ev.Call.Tool, ev.Status, oneLine(ev.Message, 200))
			}
		case ApprovalEvent:
			if ev.Phase == "asked" {
				line("? asks about %s: %s", ev.Tool, oneLine(ev.Summary, 160))
			}
		case NoticeEvent:
			line("note: %s", oneLine(ev.Text, 200))
		case ErrorEvent:
			line("error: %s", oneLine(ev.Message, 200))
		}
	}
	if i := r.Info(); !i.Running {
		line("— %s%s", i.Status, map[bool]string{true: ": " + i.Message, false: ""}[i.Message != ""])
	}
	return b.String()
}

// SubagentDefinitions lists the defined agents the model may run.
func (a *Agent) SubagentDefinitions() []Definition {
	t, ok := a.opts.Registry.Lookup(SubagentTool)
	if !ok {
		return nil
	}
	s, ok := t.(*subagentTool)
	if !ok || s.opts.Definitions == nil {
		return nil
	}
	return s.opts.Definitions()
}

// SubagentList describes the sub-agents of this run, oldest first.
func (a *Agent) SubagentList() []SubagentInfo {
	var out []SubagentInfo
	for _, r := range a.Subagents() {
		out = append(out, r.Info())
	}
	return out
}

// SubagentTranscript describes sub-agent id with its transcript so far.
func (a *Agent) SubagentTranscript(id string) (SubagentInfo, string, bool) {
	for _, r := range a.Subagents() {
		if r.ID == id {
			return r.Info(), r.Transcript(), true
		}
	}
	return SubagentInfo{}, "", false
}

// CancelSubagent cancels sub-agent id; false when there is none running.
func (a *Agent) CancelSubagent(id string) bool {
	for _, r := range a.Subagents() {
		if r.ID == id && r.Info().Running {
			r.Cancel()
			return true
		}
	}
	return false
}
