package ui

import (
	"encoding/json"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"myclaw/approval"
	"myclaw/tools"
)

// paneEndTurnMsg is Esc at the pane: the turn ends and no call waiting in
// it runs, as Esc does when no pane is open.
type paneEndTurnMsg struct{ p *pendingApproval }

// paneMode is what the approval pane is doing.
type paneMode int

const (
	modeChoose paneMode = iota
	modeReason
	modeEdit
)

// paneChoice is one of the pane's answers, each taken by a key of its own.
type paneChoice int

const (
	choiceApprove paneChoice = iota
	choiceDeny
	choiceReason
	choiceEdit
	choicePreview
	choiceSession
	choiceSaveRule
	choiceSaveUserWide
	choiceNetwork
	choiceNetworkSession
	choiceTrustHints
	numChoices
)

// inConflict reports a merge proposed with conflicts, which cannot be
// approved as it is: resolved (proposed again) or discarded.
func (a *approvalPane) inConflict() bool {
	return a.p.req.Previewed && len(a.p.req.Conflicts) > 0
}

// binding is the key that takes the choice.
func (ch paneChoice) binding(k *KeyMap) key.Binding {
	return [...]key.Binding{k.ApproveOnce, k.Deny, k.DenyReason, k.Edit, k.PreviewRun, k.ApproveSession, k.SaveRule,
		k.SaveRuleUserWide, k.ApproveNetwork, k.ApproveNetworkSession, k.TrustHints}[ch]
}

// offers reports whether the pane offers a choice: approving with network
// only makes sense for a command the sandbox would run without, and a
// risky call gets no grant beyond itself (approval.Grantable).
//
// A previewed call's result is approved once or discarded: no grant, no
// edit (the command already ran), no second preview.
func (a *approvalPane) offers(ch paneChoice) bool {
	req := a.p.req
	switch ch {
	case choiceApprove:
		// Nothing of a merge applies while a conflict remains.
		return !a.inConflict()
	case choicePreview:
		return req.Previewable
	case choiceSession, choiceSaveRule, choiceSaveUserWide:
		return !req.Previewed && a.grantable
	case choiceEdit:
		// A host contact has no arguments to edit; a merge in conflict
		// has a file to resolve.
		return !req.Previewed && req.Tool != approval.NetworkTool || req.Previewed && len(req.Conflicts) > 0
	case choiceNetwork, choiceNetworkSession:
		c := req.Confinement
		return !req.Previewed && c != nil && c.Sandboxed && !c.Network && !c.ReadOnly && !c.Discarded && !c.Layer && (ch == choiceNetwork || a.grantable)
	case choiceTrustHints:
		return !req.Previewed && req.Meta.HintServer != ""
	}
	return true
}

// approvalPane shows one Request and collects the decision.
type approvalPane struct {
	c    *common
	p    *pendingApproval
	rule approval.Rule
	// grantable is approval.Grantable of the request; noGrant says why not.
	grantable bool
	noGrant   string
	// high is set when the call is high risk (see assess): the title says so.
	high bool
	// deliberate says why Enter does not approve this call ("" when it
	// does): it is high risk, or it may follow instructions planted in
	// untrusted text. Only y approves it.
	deliberate string
	// edited is set when the call is the person's own edit of a call,
	// shown once more before it runs.
	edited bool
	// details is set while the details view is open.
	details bool
	// note says what the last key could not do.
	note   string
	mode   paneMode
	scroll int
	editor editor
	shell  bool   // editing the command line rather than the JSON
	shown  string // the text the editor started with
	errMsg string
	// decided is set once a decision is on its way: keys pressed before
	// the pane closes must not answer twice.
	decided bool
	// armed is set paneArmDelay after the pane opened: keys typed before
	// (the end of a prompt someone was typing as the pane appeared) are
	// not taken as an answer.
	armed bool

	// Lines that do not change while the pane is open, rendered for the
	// width they were drawn at.
	cacheWidth int
	head       []string // the title
	fixed      []string // warnings and the signals line
	preview    []string // the command, the diff or the preview text
	more       []string // the details view, then the preview
	keys       []string // the key line, for keysFor
	keysFor    paneKeysKey
}

func newApprovalPane(c *common, p *pendingApproval) *approvalPane {
	a := &approvalPane{c: c, p: p, rule: approval.SessionRule(p.req)}
	a.grantable, a.noGrant = approval.Grantable(p.req)
	a.high, a.deliberate = assess(p.req)
	return a
}

// assess says how much care a call asks for. A shell command is judged by
// its parse, not by shell_run's declared risk, which is high for every
// command: it is high risk when the parse warns (rm -r, curl | sh, sudo,
// code evaluated at run time …) or when the line appears in untrusted text
// of the turn. Any other call is judged by its tool's risk. A reflexive
// Enter must not run a high-risk call, nor one that may follow
// instructions planted in untrusted text from outside the workspace: those
// take y.
func assess(req approval.Request) (high bool, deliberate string) {
	if _, shell := shellCommand(req); shell && req.Command != nil {
		// The shell table rates the line by what it does: rm -r inside
		// the workspace warns but is undoable; a credential store is high.
		high = req.Command.Risk == tools.RiskHigh || approval.DrawnFrom(req) != ""
	} else {
		high = req.Meta.EffectiveRisk() == tools.RiskHigh
	}
	t := req.Taint
	switch {
	case high:
		deliberate = "high risk"
	case t != nil && (!approval.QuietSource(t.Source) || approval.DrawnFrom(req) != ""):
		deliberate = "after untrusted content"
	}
	return high, deliberate
}

// startsJob reports whether the call starts a background job: it keeps
// running after the call returns, and what it changes is not recorded for
// /undo.
func startsJob(req approval.Request) bool {
	if _, ok := shellCommand(req); !ok {
		return false
	}
	var args struct {
		Background bool `json:"background"`
	}
	return json.Unmarshal(req.Args, &args) == nil && args.Background
}

// decide answers the request through the root model.
func (a *approvalPane) decide(d approval.Decision) tea.Cmd {
	a.decided = true
	d.By = "user"
	p := a.p
	return func() tea.Msg { return approvalDecidedMsg{p: p, d: d} }
}

func (a *approvalPane) update(km tea.KeyMsg) (*approvalPane, tea.Cmd) {
	if a.decided || !a.armed {
		return a, nil
	}
	k := &a.c.keys
	if a.mode != modeChoose {
		switch {
		case key.Matches(km, k.Cancel):
			a.mode, a.errMsg = modeChoose, ""
		case key.Matches(km, k.Send) && !km.Paste:
			return a.submit()
		default:
			a.editor.update(km)
		}
		return a, nil
	}
	if km.Paste {
		// Pasted text is never an answer.
		return a, nil
	}
	a.note = ""
	for ch := range numChoices {
		if a.offers(ch) && key.Matches(km, ch.binding(k)) {
			return a.take(ch)
		}
	}
	switch {
	case key.Matches(km, k.ApproveEnter):
		if a.inConflict() {
			a.note = "in conflict: nothing applies while any remain; press " + k.Edit.Help().Key + " to resolve or " + k.Deny.Help().Key + " to discard the agent's changes"
			return a, nil
		}
		if a.deliberate != "" {
			a.note = a.deliberate + ": " + k.ApproveEnter.Help().Key + " does not approve this call; press " +
				k.ApproveOnce.Help().Key + " to approve it or " + k.Deny.Help().Key + " to deny it"
			return a, nil
		}
		return a.take(choiceApprove)
	case key.Matches(km, k.DenyEsc):
		a.decided = true
		p := a.p
		return a, func() tea.Msg { return paneEndTurnMsg{p: p} }
	case key.Matches(km, k.Details):
		a.details = !a.details
		a.scroll = 0
	case key.Matches(km, k.PreviewUp):
		a.scroll--
	case key.Matches(km, k.PreviewDown):
		a.scroll++
	case key.Matches(km, k.PreviewPgUp):
		a.scroll -= a.previewHeight()
	case key.Matches(km, k.PreviewPgDown):
		a.scroll += a.previewHeight()
	}
	a.clampScroll()
	return a, nil
}

// take acts on a choice: a decision, or the reason or edit mode.
func (a *approvalPane) take(ch paneChoice) (*approvalPane, tea.Cmd) {
	switch ch {
	case choiceApprove:
		return a, a.decide(approval.Decision{Choice: approval.ApproveOnce})
	case choiceSession:
		return a, a.decide(approval.Decision{Choice: approval.ApproveSession})
	case choiceSaveRule:
		return a, a.decide(approval.Decision{Choice: approval.ApproveSession, SaveRule: true})
	case choiceSaveUserWide:
		return a, a.decide(approval.Decision{Choice: approval.ApproveSession, SaveRule: true, UserWide: true})
	case choiceNetwork:
		return a, a.decide(approval.Decision{Choice: approval.ApproveOnce, Network: true})
	case choiceNetworkSession:
		return a, a.decide(approval.Decision{Choice: approval.ApproveSession, Network: true})
	case choicePreview:
		return a, a.decide(approval.Decision{Choice: approval.Preview})
	case choiceTrustHints:
		return a, a.decide(approval.Decision{Choice: approval.ApproveOnce, TrustHints: true})
	case choiceReason:
		a.startReason()
	case choiceEdit:
		if a.p.req.Previewed {
			return a, a.resolveConflict()
		}
		a.startEdit()
	default:
		return a, a.decide(approval.Decision{Choice: approval.Deny})
	}
	return a, nil
}

func (a *approvalPane) startReason() {
	a.mode, a.errMsg = modeReason, ""
	a.editor = newEditor(a.c, "why not? (optional)", 3)
	a.fitEditor()
}
