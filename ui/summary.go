package ui

import (
	"fmt"
	"strings"

	"myclaw/history"
	"myclaw/tools"
	"myclaw/tools/termtext"
)

// quitSummary is what stays on the normal screen after the TUI closes:
// the session, what it cost, what it changed and how to come back to it;
// "" for a session where nothing happened.
func quitSummary(b Backend) string {
	st := b.Status()
	entries, _ := b.History()
	var rep struct {
		requests, tokens int
		estimated        bool
		cost             string
		// session is the whole session's, when earlier runs counted too.
		session string
	}
	if cr, ok := b.(CostReporter); ok {
		r := cr.Cost()
		run := r.Run
		rep.requests, rep.tokens, rep.estimated = run.Requests, run.PromptTokens+run.CompletionTokens, run.Estimated
		if run.CostKnown && run.Cost > 0 {
			rep.cost = formatUSD(run.Cost)
		}
		if r.Requests > run.Requests {
			switch {
			case r.CostKnown && r.Cost > 0:
				rep.session = "session " + formatUSD(r.Cost)
			default:
				rep.session = "session " + shortCount(r.PromptTokens+r.CompletionTokens) + " tokens"
			}
		}
	}
	if st.SessionID == "" || (rep.requests == 0 && len(entries) == 0) {
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
	b1.WriteString(first + "\n")
	applied := 0
	for _, e := range entries {
		// A compaction (seq 0) is in the history but changed no file.
		if e.State == history.StateApplied && e.Seq > 0 {
			applied++
		}
	}
	if applied > 0 || st.UndoDepth > 0 {
		fmt.Fprintf(&b1, "  %s changed files; undo can revert %s (myclaw undo)\n", tools.Count(applied, "call"), tools.Count(st.UndoDepth, "step"))
	}
	fmt.Fprintf(&b1, "  resume: myclaw --continue  (or myclaw --session %s)\n", id)
	return b1.String()
}
