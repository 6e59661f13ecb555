package app

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/history"
	"myclaw/tools"
	"myclaw/tools/termtext"
)

// RunJournal runs `myclaw undo|redo|history` on every session of the
// workspace (or only --session), from a new process: whichever session made
// a change, undo from a shell can revert it, newest first.
func RunJournal(ctx context.Context, mode string, o Options, secrets map[string]string, stdout, stderr io.Writer) error {
	a, err := newApp(o, secrets)
	if err != nil {
		return err
	}
	defer a.close()
	if mode == "history" && o.Approvals {
		entries, warnings, err := approval.ReadAudit(filepath.Join(a.stateDir, approval.AuditFile))
		if err != nil {
			return err
		}
		for _, w := range warnings {
			fmt.Fprintln(stderr, "note:", w)
		}
		fmt.Fprint(stdout, formatApprovals(entries, a.workspace.Dir(), o.All))
		return nil
	}
	// Reverting needs the tools; the MCP servers do not (their calls are
	// not reversible).
	if err := a.buildTools(); err != nil {
		return err
	}
	if err := a.openSession(false); err != nil {
		return err
	}
	if err := a.recover(); err != nil {
		return err
	}
	for _, n := range a.notices {
		fmt.Fprintln(stderr, noticePrefix(n)+n.Text)
	}
	journals, sessions, closeAll, err := a.workspaceJournals()
	if err != nil {
		return err
	}
	defer closeAll()
	resolve := history.RegistryResolver(a.registry)
	var outcomes []history.Outcome
	switch mode {
	case "history":
		if o.Session != "" {
			fmt.Fprintf(stdout, "Session %s (%s)\n", a.session.Info().ID, a.session.Info().Workspace)
		} else {
			fmt.Fprintf(stdout, "%s: %s\n", a.workspace.Dir(), tools.Count(len(journals), "session"))
		}
		fmt.Fprint(stdout, formatHistory(history.Merged(journals)))
		return nil
	case "undo":
		outcomes, err = history.UndoNewest(ctx, journals, o.Count, o.Force, resolve)
	case "redo":
		outcomes, err = history.RedoNewest(ctx, journals, o.Count, resolve)
	}
	labelled := outcomes
	if len(journals) > 1 {
		labelled = make([]history.Outcome, len(outcomes))
		for i, oc := range outcomes {
			oc.Message += " (session " + oc.Session + ")"
			labelled[i] = oc
		}
	}
	lines, _, err := agent.DescribeWalk(mode, labelled, err)
	if short := agent.Short(mode, o.Count, outcomes); short != "" {
		lines = append(lines, short)
	}
	fmt.Fprintln(stdout, strings.Join(lines, "\n"))
	// Each session's model is told what became of its own calls.
	bySession := map[string][]history.Outcome{}
	for _, oc := range outcomes {
		bySession[oc.Session] = append(bySession[oc.Session], oc)
	}
	for id, ocs := range bySession {
		_, note, _ := agent.DescribeWalk(mode, ocs, nil)
		if s := sessions[id]; s != nil && note != "" {
			if perr := s.Append("note", note); perr != nil {
				fmt.Fprintln(stderr, "note: could not tell session "+id+":", perr)
			}
		}
	}
	if err != nil {
		return err
	}
	for _, oc := range outcomes {
		if oc.Err != nil {
			return ErrReported
		}
	}
	return nil
}

// RunSessions runs `myclaw sessions`: the stored sessions of the
// workspace, newest first.
func RunSessions(o Options, secrets map[string]string, stdout io.Writer) error {
	a, err := newApp(o, secrets)
	if err != nil {
		return err
	}
	defer a.close()
	list, err := a.store.Sessions(a.workspace.Dir())
	if err != nil {
		return err
	}
	// Empty ones (a run opened and quit) are not worth continuing.
	list = history.Listed(list, "")
	if len(list) == 0 {
		fmt.Fprintf(stdout, "No sessions in %s yet.\n", a.workspace.Dir())
		return nil
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tUPDATED\tMODEL\tTITLE")
	for _, s := range list {
		title := termtext.OneLine(s.Title, 60)
		if s.Parent != "" {
			title = "(fork of " + termtext.OneLine(s.Parent, 30) + ") " + title
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", s.ID, s.Updated.Local().Format("2006-01-02 15:04"), termtext.OneLine(s.Model, 30), title)
	}
	w.Flush()
	fmt.Fprintln(stdout, "Resume one with: myclaw --session ID (the newest: myclaw --continue); add --fork to go on in a copy")
	return nil
}

// formatApprovals prints the decisions made in workspace (all of them,
// with their workspace, when all is set), oldest first.
func formatApprovals(entries []approval.AuditEntry, workspace string, all bool) string {
	var shown []approval.AuditEntry
	unplaced := 0
	for _, e := range entries {
		switch {
		case all || e.Workspace == workspace:
			shown = append(shown, e)
		case e.Workspace == "":
			unplaced++
		}
	}
	var b strings.Builder
	switch {
	case len(shown) > 0:
		b.WriteString(approval.FormatAudit(shown, all))
	case all:
		b.WriteString("No approval decisions yet.\n")
	default:
		fmt.Fprintf(&b, "No approval decisions in %s yet.\n", workspace)
	}
	if !all && unplaced > 0 {
		fmt.Fprintf(&b, "(%d older decisions were recorded without a workspace; --all shows them)\n", unplaced)
	}
	return b.String()
}

// formatHistory prints the journaled calls as an aligned table, oldest
// first, each with its session.
func formatHistory(entries []history.Labelled) string {
	if len(entries) == 0 {
		return "No calls yet.\n"
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "SESSION\t#\tTIME\tSTATE\tTOOL\tSUMMARY")
	for _, e := range entries {
		state := string(e.State)
		if e.State == history.StatePending {
			state = "interrupted"
		}
		summary := termtext.OneLine(e.Summary, 100)
		if g := agent.GroupLabel(e.Group); g != "" {
			summary = "[" + termtext.OneLine(g, 40) + "] " + summary
		}
		fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\t%s\n", termtext.OneLine(e.Session, 0), e.Seq, e.Time.Local().Format("2006-01-02 15:04:05"), state, termtext.OneLine(e.Tool, 0), summary)
	}
	w.Flush()
	return b.String()
}

// workspaceJournals opens the journal of every session of the workspace,
// or only that of the session opened when --session names one, with the
// sessions by id. The returned func closes the sessions it opened.
func (a *app) workspaceJournals() ([]history.SessionJournal, map[string]*history.Session, func(), error) {
	own, err := a.session.Journal()
	if err != nil {
		return nil, nil, func() {}, err
	}
	journals := []history.SessionJournal{{Session: a.session.Info().ID, Journal: own}}
	sessions := map[string]*history.Session{a.session.Info().ID: a.session}
	var opened []*history.Session
	closeAll := func() {
		for _, s := range opened {
			_ = s.Close()
		}
	}
	if a.opts.Session != "" {
		return journals, sessions, closeAll, nil
	}
	list, err := a.store.Sessions(a.workspace.Dir())
	if err != nil {
		return nil, nil, closeAll, err
	}
	for _, info := range list {
		if info.ID == a.session.Info().ID {
			continue
		}
		s, err := a.store.OpenSession(info.ID)
		if err != nil {
			closeAll()
			return nil, nil, func() {}, err
		}
		opened = append(opened, s)
		j, err := s.Journal()
		if err != nil {
			closeAll()
			return nil, nil, func() {}, fmt.Errorf("session %s: %w", info.ID, err)
		}
		journals = append(journals, history.SessionJournal{Session: info.ID, Journal: j})
		sessions[info.ID] = s
	}
	return journals, sessions, closeAll, nil
}
