package ui

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/tools"
	"myclaw/tools/termtext"
)

// planReview is a plan the model submitted in plan mode, waiting for the
// person's word in place of the input once the turn is over: y accepts it
// and goes on in ask, a in auto-edit, e edits it in $EDITOR first, n
// rejects it with a reason the model reads, Esc sets it aside (/plan
// brings it back).
type planReview struct {
	plan   tools.Proposal
	edited bool
	// aside: the person set it aside; the input is theirs.
	aside bool
	// reason: the input takes the reason for rejecting it.
	reason bool
	// draft is an edit that did not parse, offered again by e; sent is
	// the text the editor was given.
	draft, sent string
}

// planAccepter is a backend that records an accepted plan, so that later
// calls outside it are flagged (*agent.Agent).
type planAccepter interface {
	AcceptPlan(p tools.Proposal, level approval.Level)
}

// planEditedMsg brings an edited plan back from the external editor.
type planEditedMsg struct {
	text string
	err  error
}

// proposed shows a plan the model submitted and puts it up for review.
func (m Model) proposed(p tools.Proposal) Model {
	m = m.addTurnBlock(proposalBlock(p, false))
	m.review = &planReview{plan: p}
	return m
}

// proposalBlock is the plan's card in the transcript: the rationale, then
// the numbered steps with the files each expects to touch.
func proposalBlock(p tools.Proposal, edited bool) block {
	return newFuncBlock(func(c *common) []string { return drawProposal(c, p, edited) })
}

func drawProposal(c *common, p tools.Proposal, edited bool) []string {
	st := &c.styles
	w := c.contentWidth()
	head := "plan · " + tools.Count(len(p.Steps), "step") + " · " + tools.Count(len(p.Files()), "file")
	if edited {
		head += " · as you edited it"
	}
	out := []string{truncate(st.ToolName.Render("◆ ")+st.Bold.Render(head), w)}
	for l := range strings.SplitSeq(p.Rationale, "\n") {
		for _, wl := range wrapWords(termtext.OneLine(l, 0), max(w-2, 1)) {
			out = append(out, "  "+wl)
		}
	}
	out = append(out, "")
	num := len(fmt.Sprint(len(p.Steps)))
	for i, s := range p.Steps {
		label := fmt.Sprintf("%*d. ", num, i+1)
		pad := strings.Repeat(" ", len(label)+2)
		for j, wl := range wrapWords(oneLine(s.Title), max(w-len(pad), 1)) {
			lead := "  " + label
			if j > 0 {
				lead = pad
			}
			out = append(out, lead+st.Bold.Render(wl))
		}
		files := "no files"
		if len(s.Files) > 0 {
			files = oneLine(strings.Join(s.Files, ", "))
		}
		for _, wl := range wrapWords(files, max(w-len(pad), 1)) {
			out = append(out, pad+st.Dim.Render(wl))
		}
	}
	return out
}

// reviewView is the review in place of the input: what the plan waits for
// and the keys, on two lines that fit 80 columns.
func (m Model) reviewView() []string {
	st := &m.c.styles
	k := &m.c.keys
	r := m.review
	w := max(m.c.width, minWidth)
	if r.reason {
		hint := "  rejecting the plan: type why, the model revises it · enter sends · " + k.Cancel.Help().Key + " back"
		return append([]string{st.Dim.Render(truncate(hint, w))}, m.input.view()...)
	}
	title := "  " + st.Warn.Render("◆ the plan waits for you") + st.Dim.Render(" · "+tools.Count(len(r.plan.Steps), "step"))
	keys := fmt.Sprintf("  %s accept (ask) · %s accept (auto-edit) · %s edit · %s reject · %s later",
		k.ApproveOnce.Help().Key, k.ApproveSession.Help().Key, k.Edit.Help().Key, k.Deny.Help().Key, k.Cancel.Help().Key)
	return []string{truncate(title, w), st.Dim.Render(truncate(keys, w))}
}

// reviewing reports whether the review takes the keys: it is up, not set
// aside, and no turn runs.
func (m Model) reviewing() bool {
	return m.review != nil && !m.review.aside && m.turn == nil
}

// handleReviewKey takes a key while the plan waits for a decision.
func (m Model) handleReviewKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := &m.c.keys
	r := m.review
	if r.reason {
		if !msg.Paste && key.Matches(msg, k.Cancel) {
			r.reason = false
			m.input.setValue("")
			return m, nil
		}
		if text := m.input.update(msg); text != "" {
			return m.rejectPlan(text)
		}
		return m, nil
	}
	if msg.Paste {
		return m, nil
	}
	switch {
	case key.Matches(msg, k.ApproveOnce):
		return m.acceptPlan(approval.Ask)
	case key.Matches(msg, k.ApproveSession):
		return m.acceptPlan(approval.AutoEdit)
	case key.Matches(msg, k.Edit):
		text := r.draft
		if text == "" {
			text = planEditHeader + r.plan.Text()
		}
		r.sent = text
		return m, openPlanEditor(text)
	case key.Matches(msg, k.Deny):
		r.reason = true
		m.input.setValue("")
		return m, nil
	case key.Matches(msg, k.Cancel):
		r.aside = true
		m = m.addBlock(noticeBlock("the plan is set aside: /plan brings it back to accept, edit or reject"))
		return m.restoreCommandMode(), nil
	case key.Matches(msg, k.PageUp), key.Matches(msg, k.PageDown):
		h := m.transcriptHeight()
		step := max(h-2, 1)
		if key.Matches(msg, k.PageUp) {
			step = -step
		}
		m.tr.scroll(m.c, h, step)
	}
	return m, nil
}

// planEditHeader opens the file the person edits the plan in.
const planEditHeader = `# Edit the plan, then save and quit: it comes back for you to accept or reject.
# The first lines are the rationale; each step is "N. title", with an indented
# "files: a.go, b/" line naming what it touches. Lines starting with # are left
# out; an empty file keeps the plan as it was.
`

// openPlanEditor suspends the TUI and runs $VISUAL/$EDITOR on the plan.
func openPlanEditor(text string) tea.Cmd {
	return func() tea.Msg {
		cmd, read, err := editText(text, "plan", os.Getenv)
		if err != nil {
			return planEditedMsg{err: err}
		}
		return execTTY(cmd, func(runErr error) tea.Msg {
			text, err := read(runErr)
			return planEditedMsg{text: text, err: err}
		})()
	}
}

// handlePlanEdited takes the edited plan back: a valid one replaces the
// plan under review (and is shown), an invalid one is kept for the next
// edit and its error shown.
func (m Model) handlePlanEdited(msg planEditedMsg) (Model, tea.Cmd) {
	r := m.review
	if r == nil {
		return m, nil
	}
	if msg.err != nil {
		text, hint := errorParts(msg.err)
		m = m.addBlock(errorBlock(text, hint))
		return m, nil
	}
	empty := true
	for l := range strings.SplitSeq(msg.text, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			empty = false
		}
	}
	if empty || msg.text == strings.TrimRight(r.sent, "\n") {
		r.draft = ""
		m = m.addBlock(noticeBlock("the plan is as it was: nothing changed in the editor"))
		return m, nil
	}
	p, err := tools.ParseProposal(msg.text)
	if err != nil {
		r.draft = msg.text
		m = m.addBlock(errorBlock("the edited plan is not valid: "+oneLine(err.Error()), m.c.keys.Edit.Help().Key+" edits it again, where you left it"))
		return m, nil
	}
	r.plan, r.edited, r.draft = p, true, ""
	m = m.addBlock(proposalBlock(p, true))
	return m, nil
}

// acceptPlan accepts the plan under review: its steps become the
// checklist, the level becomes level, and a turn has the model carry it out.
func (m Model) acceptPlan(level approval.Level) (Model, tea.Cmd) {
	r := m.review
	m.review = nil
	m.cmdMode = nil // the level is the one chosen here
	m.plan = r.plan.Items()
	m.status.level = level
	m.welcome.setLevel(level)
	m = m.addBlock(noticeBlock("plan accepted: " + tools.Count(len(r.plan.Steps), "step") + " on the todo list, going on in " + string(level)))
	b, approver := m.backend, m.shared.approver
	prompt := agent.AcceptedPrompt(r.plan, r.edited, level)
	plan := r.plan
	return m.startRun("", func(ctx context.Context, emit func(agent.Event)) error {
		if pa, ok := b.(planAccepter); ok {
			pa.AcceptPlan(plan, level)
		} else {
			b.SetAutonomy(level)
		}
		return b.Run(ctx, prompt, emit, approver)
	})
}

// rejectPlan sends the person's reason for rejecting the plan to the
// model, which stays in plan mode and revises it.
func (m Model) rejectPlan(reason string) (Model, tea.Cmd) {
	m.review = nil
	m.input.setValue("")
	m.tr.add(userBlock("✗ plan rejected: " + reason))
	if m.status.level != approval.Plan {
		// A plan set aside and brought back after leaving plan mode: it is
		// revised in plan mode, as the prompt tells the model.
		m.backend.SetAutonomy(approval.Plan)
		m.status.level = approval.Plan
		m.welcome.setLevel(approval.Plan)
		m.tr.add(noticeBlock("plan mode: " + levelHelp[approval.Plan]))
	}
	b, approver := m.backend, m.shared.approver
	prompt := agent.RejectedPrompt(reason)
	return m.startRun("", func(ctx context.Context, emit func(agent.Event)) error {
		return b.Run(ctx, prompt, emit, approver)
	})
}

// planCommand is /plan: it enters plan mode, brings back a plan set
// aside, or (off) leaves plan mode for ask.
func planCommand(m Model, cmd command, args []string) (Model, tea.Cmd) {
	switch {
	case len(args) == 0 && m.review != nil:
		m.review.aside = false
		return m, nil
	case len(args) == 0 && m.status.level == approval.Plan:
		m = m.addBlock(noticeBlock("plan mode is on already: send the task; Shift+Tab or /plan off leaves it"))
		return m, nil
	case len(args) == 0:
		return m.switchLevel(approval.Plan, "plan mode: "+levelHelp[approval.Plan])
	case len(args) == 1 && args[0] == "off" && m.status.level == approval.Plan:
		return m.switchLevel(approval.Ask, "plan mode is off: "+string(approval.Ask)+": "+levelHelp[approval.Ask])
	case len(args) == 1 && args[0] == "off":
		m = m.addBlock(noticeBlock("plan mode is not on"))
		return m, nil
	}
	return m.usageError(cmd)
}

// switchLevel shows level at once, sets it in the backend and says so.
func (m Model) switchLevel(level approval.Level, note string) (Model, tea.Cmd) {
	m.status.level = level
	m.welcome.setLevel(level)
	m.levelsPending++
	m = m.addBlock(noticeBlock(note))
	return m, setLevel(m.backend, level)
}
