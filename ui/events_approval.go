package ui

import (
	tea "github.com/charmbracelet/bubbletea"
	"myclaw/approval"
)

// handleDecision answers a request and shows the next one, if any.
func (m Model) handleDecision(msg approvalDecidedMsg) (Model, tea.Cmd) {
	if msg.p.answered {
		return m, nil
	}
	msg.p.answered = true
	msg.p.reply <- msg.d // capacity 1 and answered once: never blocks
	m.c.log.Info("approval decided", "tool", msg.p.req.Tool, "call", msg.p.req.CallID, "decision", describeDecision(msg.d))
	switch msg.d.Choice {
	case approval.Edit:
		m.editedCall = msg.p.req.CallID
	case approval.Preview, approval.Repropose:
		// The result's pane is still about the same (edited) call.
	default:
		m.editedCall = ""
	}
	if m.pane != nil && m.pane.p == msg.p {
		m.pane = nil
		// A preview runs now, and asks again about its result: until then
		// keys do not go to the prompt (a "y" meant for the pane would be
		// sent to the model).
		m.previewing = msg.d.Choice == approval.Preview || msg.d.Choice == approval.Repropose
		m.remerging = msg.d.Choice == approval.Repropose
		m = m.nextApproval()
	}
	return m.armPane()
}

func (m Model) handleApprovalRequest(msg approvalRequestMsg) (Model, tea.Cmd) {
	next := m.shared.approver.waitForApproval()
	if msg.p.ctx.Err() != nil {
		return m, next
	}
	m.queue = append(m.queue, msg.p)
	m.previewing = false
	if m.pane == nil {
		m = m.nextApproval()
	}
	m.input.ta.blur()
	m, arm := m.armPane()
	return m, tea.Batch(next, arm)
}

// handleApprovalWithdrawn closes the pane when the request it shows is no
// longer waited for, and opens the next live one.
func (m Model) handleApprovalWithdrawn(msg approvalWithdrawnMsg) (Model, tea.Cmd) {
	next := m.shared.approver.waitForApproval()
	if m.pane == nil || m.pane.p != msg.p {
		return m, next // queued ones are skipped when their turn comes
	}
	m = m.nextApproval()
	m, arm := m.armPane()
	return m, tea.Batch(next, arm)
}

// nextApproval opens the pane on the next live request in the queue.
func (m Model) nextApproval() Model {
	for len(m.queue) > 0 {
		p := m.queue[0]
		m.queue = m.queue[1:]
		if p.ctx.Err() == nil {
			m.pane = newApprovalPane(m.c, p)
			m.pane.edited = p.req.CallID != "" && p.req.CallID == m.editedCall
			return m
		}
	}
	m.pane = nil
	if !m.previewing {
		m.input.ta.focus()
	}
	return m
}

// handlePaneEndTurn is Esc at the pane: it ends the turn as Esc does when
// no pane is open, so the call asked about and every call waiting behind
// it are not run. A request from outside a turn (none ends) is denied,
// with every request queued behind it.
func (m Model) handlePaneEndTurn(msg paneEndTurnMsg) (Model, tea.Cmd) {
	if m.pane == nil || m.pane.p != msg.p {
		return m, nil
	}
	if m.turn != nil {
		return m.cancelTurn()
	}
	for _, p := range append([]*pendingApproval{m.pane.p}, m.queue...) {
		if !p.answered {
			p.answered = true
			p.reply <- approval.Decision{Choice: approval.Deny, By: "user"}
		}
	}
	return m.closePane(), nil
}

// closePane drops the pane and the queue: their turn is over or being
// cancelled, so Approve has returned or is about to with ctx.Err().
func (m Model) closePane() Model {
	m.pane = nil
	m.queue = nil
	m.previewing = false
	m.editedCall = ""
	m.input.ta.focus()
	return m
}

// describeDecision is a one-line account of a decision, for logs.
func describeDecision(d approval.Decision) string {
	s := string(d.Choice)
	if d.SaveRule {
		s += " (saved as a rule)"
	}
	if d.Reason != "" {
		s += ": " + d.Reason
	}
	return s
}
