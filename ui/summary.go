package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"myclaw/history"
	"myclaw/tools"
	"myclaw/tools/termtext"
)

// quitSummary is what stays on the normal screen after the TUI closes:
// the session, what it cost, what it changed and how to come back to it,
// wrapped at spaces to width columns (0: not wrapped). Even a run that did
// nothing names its session: it may be a fork or a resumed one.
func quitSummary(b Backend, width int) string {
	// History first: a session still loading is waited for, and the
	// status then counts its undo steps.
	entries, _ := b.History()
	st := b.Status()
	// The tokens are this run's requests', prompt and answer, as the
	// server counted them (~: some estimated, the server sent no usage).
	// The session's own sum is left to /cost: every request carries the
	// whole conversation, so over a long session's turns (estimated when
	// they were recorded without usage) it reaches millions and says
	// nothing about this run. Its cost, money spent, does stay.
	var rep struct {
		requests, tokens int
		estimated        bool
		cost             string
		// session is the whole session's cost, when earlier runs cost too.
		session string
	}
	if cr, ok := b.(CostReporter); ok {
		r := cr.Cost()
		run := r.Run
		rep.requests, rep.tokens, rep.estimated = run.Requests, run.PromptTokens+run.CompletionTokens, run.Estimated
		if run.CostKnown && run.Cost > 0 {
			rep.cost = formatUSD(run.Cost)
		}
		if r.Requests > run.Requests && r.CostKnown && r.Cost > 0 {
			rep.session = "session " + formatUSD(r.Cost)
		}
	}
	if st.SessionID == "" {
		return ""
	}
	id := termtext.OneLine(st.SessionID, 80)
	var b1 strings.Builder
	first := "myclaw: session " + id
	if rep.requests > 0 {
		mark := ""
		if rep.estimated {
			mark = "~"
		}
		first += " · this run: " + tools.Count(rep.requests, "request") + " · " + mark + shortCount(rep.tokens) + " tokens"
	}
	if rep.cost != "" {
		first += " · " + rep.cost
	}
	if rep.session != "" {
		first += " (" + rep.session + ")"
	}
	writeWrapped(&b1, first, width)
	applied := 0
	for _, e := range entries {
		// A compaction (seq 0) is in the history but changed no file.
		if e.State == history.StateApplied && e.Seq > 0 {
			applied++
		}
	}
	if applied > 0 || st.UndoDepth > 0 {
		writeWrapped(&b1, fmt.Sprintf("  %s changed files; undo can revert %s (myclaw undo)", tools.Count(applied, "call"), tools.Count(st.UndoDepth, "step")), width)
	}
	writeWrapped(&b1, "  resume: myclaw --continue  (or myclaw --session "+id+")", width)
	return b1.String()
}

// writeWrapped writes line to b wrapped at spaces to width columns, the
// lines after the first indented four spaces; the terminal would cut it
// inside a word.
func writeWrapped(b *strings.Builder, line string, width int) {
	if width <= 0 || ansi.StringWidth(line) <= width {
		b.WriteString(line + "\n")
		return
	}
	const hang = "    "
	rest := strings.Fields(line)
	lead := line[:len(line)-len(strings.TrimLeft(line, " "))]
	cur := lead
	for _, w := range rest {
		switch {
		case strings.TrimSpace(cur) == "":
			cur += w
		case ansi.StringWidth(cur)+1+ansi.StringWidth(w) <= width:
			cur += " " + w
		default:
			b.WriteString(cur + "\n")
			cur = hang + w
		}
	}
	b.WriteString(cur + "\n")
}
