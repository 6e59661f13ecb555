package ui

import (
	"context"
	"fmt"
	"sync"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/approval"
)

// errApproverClosed is what Approve returns once the TUI is gone: the user
// left, so the call is treated as cancelled.
var errApproverClosed = fmt.Errorf("the approval pane is closed: %w", context.Canceled)

// pendingApproval is one Request waiting for the person, with the channel
// (capacity 1, so answering never blocks) its answer goes to.
type pendingApproval struct {
	req   approval.Request
	ctx   context.Context
	reply chan approval.Decision
	// answered is set when the reply is sent; only Update touches it.
	answered bool
}

// Approver implements approval.Approver for the TUI: Approve hands the
// Request to the program, which shows it in the approval pane, and waits
// for the pane's decision, for ctx to end, or for the program to close.
// It is safe for concurrent use; concurrent requests queue in the pane.
type Approver struct {
	requests chan *pendingApproval
	// withdrawn carries requests whose ctx ended while the pane showed
	// them (a command that asked for a host and then ended), so that the
	// pane does not go on asking about them.
	withdrawn chan *pendingApproval
	done      chan struct{}
	once      sync.Once
}

// NewApprover returns an Approver with no program attached yet: Approve
// blocks until a Model built with it reads the request.
func NewApprover() *Approver {
	return &Approver{requests: make(chan *pendingApproval), withdrawn: make(chan *pendingApproval, 16), done: make(chan struct{})}
}

// Approve implements approval.Approver.
func (a *Approver) Approve(ctx context.Context, req approval.Request) (approval.Decision, error) {
	p := &pendingApproval{req: req, ctx: ctx, reply: make(chan approval.Decision, 1)}
	select {
	case a.requests <- p:
	case <-ctx.Done():
		return approval.Decision{}, ctx.Err()
	case <-a.done:
		return approval.Decision{}, errApproverClosed
	}
	select {
	case d := <-p.reply:
		return d, nil
	case <-ctx.Done():
		select {
		case a.withdrawn <- p:
		default: // the pane finds it dead when it gets to it
		}
		return approval.Decision{}, ctx.Err()
	case <-a.done:
		return approval.Decision{}, errApproverClosed
	}
}

// Close makes every waiting and future Approve return errApproverClosed,
// and ends the program's wait for requests. It is idempotent.
func (a *Approver) Close() { a.once.Do(func() { close(a.done) }) }

// approvalRequestMsg carries a request from Approve to Update.
type approvalRequestMsg struct{ p *pendingApproval }

// approvalWithdrawnMsg says Approve stopped waiting for a request.
type approvalWithdrawnMsg struct{ p *pendingApproval }

// approvalDecidedMsg is the pane's answer; the root model sends it on.
type approvalDecidedMsg struct {
	p *pendingApproval
	d approval.Decision
}

// waitForApproval is re-armed after every request; it returns nil (and is
// not re-armed) once the Approver is closed.
func (a *Approver) waitForApproval() tea.Cmd {
	return func() tea.Msg {
		select {
		case p := <-a.requests:
			return approvalRequestMsg{p}
		case p := <-a.withdrawn:
			select {
			case <-a.done:
				return nil
			default:
				return approvalWithdrawnMsg{p}
			}
		case <-a.done:
			return nil
		}
	}
}
