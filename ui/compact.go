package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"myclaw/agent"
)

// Compactor is what a backend may offer for /compact, /uncompact and /keep.
// *agent.Agent implements it.
type Compactor interface {
	Compact(ctx context.Context, focus string) (agent.CompactionEvent, error)
	Uncompact() (string, error)
	Keep() (string, error)
}

// compactionBlock shows a compaction in the transcript: what it replaced,
// the summary (in full with Ctrl+O) and the way back.
func compactionBlock(ev agent.CompactionEvent) block { return newFuncBlock(compactionDraw(ev)) }

func compactionDraw(ev agent.CompactionEvent) func(c *common) []string {
	return func(c *common) []string {
		st := &c.styles
		how := "compacted"
		if ev.Auto {
			how = "compacted automatically"
		}
		var out []string
		head := fmt.Sprintf("⇲ %s: %d earlier messages now stand as a summary (~%d tokens) · /uncompact restores them", how, ev.Replaced, ev.Tokens)
		lines := []string{head}
		if ansi.StringWidth(head) > c.contentWidth()-2 {
			lines = wrapWords(head, c.contentWidth()-4) // later lines hang by 4
		}
		for i, l := range lines {
			indent := "  "
			if i > 0 {
				indent = "    "
			}
			out = append(out, indent+st.Notice.Render(l))
		}
		lines = strings.Split(ev.Summary, "\n")
		if !c.expandTools && len(lines) > 3 {
			lines = append(lines[:3], "… (ctrl+o shows the whole summary)")
		}
		for _, l := range lines {
			for _, w := range wrapPlain(expandTabs(oneLine(l)), c.contentWidth()-4) {
				out = append(out, "    "+st.Dim.Render(w))
			}
		}
		return out
	}
}

func (m Model) compactCommand(name, focus string) (Model, tea.Cmd) {
	cp, ok := m.backend.(Compactor)
	if !ok {
		m = m.addBlock(errorBlock("/"+name+" is not available here", ""))
		return m, nil
	}
	if m.turn != nil {
		m = m.addBlock(errorBlock("/"+name+" waits until the turn ends", ""))
		return m, nil
	}
	if name == "compact" {
		// The summary is a model request: it may take a while, and Esc
		// takes it back.
		ctx, cancel := context.WithCancel(m.shared.base)
		m.compactCancel = cancel
		progress := &transientBlock{noticeBlock("compacting: the model summarises the older conversation · " + m.c.keys.Cancel.Help().Key + " cancels")}
		m = m.addBlock(progress)
		return m, func() tea.Msg {
			defer cancel()
			ev, err := cp.Compact(ctx, focus)
			switch {
			case err != nil && ctx.Err() != nil:
				return compactDoneMsg{commandResultMsg{err: errors.New("compaction cancelled: nothing was compacted"), refresh: true}, progress}
			case err != nil:
				// A summary request that failed may still have cost.
				return compactDoneMsg{commandResultMsg{err: err, refresh: true}, progress}
			}
			return compactDoneMsg{commandResultMsg{draw: compactionDraw(ev), refresh: true}, progress}
		}
	}
	return m, func() tea.Msg {
		switch name {
		case "uncompact":
			msg, err := cp.Uncompact()
			return commandResultMsg{draw: textDraw(msg), err: err, refresh: true}
		}
		msg, err := cp.Keep()
		return commandResultMsg{draw: textDraw(msg), err: err}
	}
}

// compactDoneMsg ends a /compact: the result takes the place of the
// progress line, and Esc cancels no more.
type compactDoneMsg struct {
	res      commandResultMsg
	progress block
}
