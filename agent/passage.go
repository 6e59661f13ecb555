package agent

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/sashabaranov/go-openai"

	"myclaw/approval"
	"myclaw/history"
	"myclaw/tools"
)

// A call goes through the gate as a pipeline of stages over one record,
// its passage:
//
//	validate → dry run → verdict (the policy) → hooks → ask (the pane or
//	headless) → execute → journal
//
// Each stage fills its part of the passage and says whether the call goes
// on. However the call leaves the gate (denied, failed, approved, edited),
// its audit entry is made from the passage and written once, in handle,
// before anything runs: the log holds the decision even if the run never
// ends. A host that a confined command asks the proxy for takes the
// verdict, hooks and ask stages on a passage of its own (hostGate).

// passage is one call's (or one host's) way through the gate.
type passage struct {
	call  Call
	start time.Time

	// Filled by validate: the tool, and the arguments that run, the
	// person's edit once there is one.
	tool tools.Tool
	meta tools.Meta
	args json.RawMessage
	// gated is set when the call takes the verdict and ask stages: it has
	// side effects, or a hook watches it.
	gated bool

	// Filled by the dry run.
	dry tools.Result

	// Filled by the verdict and hooks: the request as last decided (the
	// edited call's after an edit) and what the policy or a hook said.
	req     approval.Request
	verdict approval.Verdict

	// Filled by ask: the person's (or the approver's) decision and, for a
	// grant also saved as a rule, where it went or why it could not.
	dec      approval.Decision
	saveRule bool
	saved    string
	saveErr  error

	// decidedBy says whose decision the audit entry records.
	decidedBy decider

	// conf is how an approved shell command is confined.
	conf *approval.Confinement

	// denial is what the model reads when the call does not run, with the
	// status of its result.
	denial *tools.Error
	status string

	// Filled by execute: the run's result or error and when it ran.
	res     tools.Result
	err     error
	ranFrom time.Time
	ranTo   time.Time

	// Filled by the journal stage: the undo journal, the entry of the
	// call, whether it was journaled ahead of its run, and whether it was
	// journaled only once it had run.
	journal   *history.Journal
	entry     history.Entry
	journaled bool
	recorded  bool
}

// decider is who decided a passage last.
type decider int

const (
	decidedByNobody decider = iota // no decision was made: nothing is audited
	decidedByPolicy                // a rule, a grant, the level or a hook, alone
	decidedByPerson                // an approver: the pane, headless, or its failure
)

// fail ends the passage with the denial the model reads; it returns false
// so that a stage can end with it.
func (p *passage) fail(status string, e *tools.Error) bool {
	p.denial, p.status = e, status
	return false
}

// decided records the policy's (or a hook's) verdict about req as the
// decision of the passage.
func (p *passage) decided(req approval.Request, v approval.Verdict) {
	p.req, p.verdict, p.decidedBy = req, v, decidedByPolicy
}

// answered records an approver's decision about req as the decision of
// the passage.
func (p *passage) answered(req approval.Request, d approval.Decision) {
	p.req, p.dec, p.decidedBy = req, d, decidedByPerson
}

// auditEntry is the passage's audit entry; false when nothing was decided
// (the call failed before the verdict, or a preview was cancelled before
// anyone saw it).
func (p *passage) auditEntry() (approval.AuditEntry, bool) {
	switch p.decidedBy {
	case decidedByPolicy:
		return approval.VerdictEntry(p.req, p.verdict), true
	case decidedByPerson:
		if p.saveRule {
			return approval.SavedEntry(p.req, p.dec, p.saved, p.saveErr), true
		}
		return approval.DecisionEntry(p.req, p.dec), true
	}
	return approval.AuditEntry{}, false
}

// handle takes one call through the stages of its passage, writes its
// audit entry, and runs it when the gate let it through. A returned error
// is an infrastructure failure that stops the turn (the call's result is
// still set).
func (t *turn) handle(tc openai.ToolCall, fromText bool) (callResult, error) {
	p := &passage{call: t.newCall(tc, fromText), start: t.a.opts.Now()}
	t.emit(ToolCallEvent{Call: p.call, Phase: "proposed"})
	through := t.validate(p) && t.dryRun(p) && t.gate(p)
	t.audit(p)
	if !through {
		return t.failed(p.call, p.status, p.denial, t.a.opts.Now().Sub(p.start)), nil
	}
	return t.execute(p)
}

// callMeta is a tool whose calls differ in what they do (an agent that
// explores or edits): each call is judged by its own meta.
type callMeta interface {
	CallMeta(args json.RawMessage) tools.Meta
}

// validate finds the tool and checks the arguments against its schema;
// the canonical arguments are what every later stage sees.
func (t *turn) validate(p *passage) bool {
	reg := t.a.opts.Registry
	tool, ok := reg.Lookup(p.call.Wire)
	if !ok {
		return p.fail(StatusError, t.unknownTool(p.call.Wire))
	}
	p.tool, p.meta = tool, tool.Meta()
	args, verr := reg.Validate(p.call.Wire, p.call.Args)
	if verr != nil {
		return p.fail(StatusError, verr)
	}
	if cm, ok := tool.(callMeta); ok {
		p.meta = cm.CallMeta(args)
	}
	p.call.Args, p.args = args, args
	if e := t.checkRepeat(p.call); e != nil {
		return p.fail(StatusError, e)
	}
	p.gated = !p.meta.ReadOnly || len(matchingHooks(t.hooks, p.meta.Name)) > 0
	return true
}

// dryRun runs a side-effecting call as a dry run: its summary, preview,
// undo data and, for a command, its parse are what the policy and the
// person judge.
func (t *turn) dryRun(p *passage) bool {
	if p.meta.ReadOnly {
		return true
	}
	dry, err := tools.Call(t.ctx, p.tool, p.args, true)
	if err != nil {
		if errors.Is(err, context.Canceled) && t.ctx.Err() != nil {
			return p.fail(StatusCancelled, cancelledError())
		}
		return p.fail(StatusError, tools.AsError(err))
	}
	p.dry = dry
	return true
}

// audit writes the passage's audit entry. It is the one place a call's or
// a host's decision reaches the audit log.
func (t *turn) audit(p *passage) {
	e, ok := p.auditEntry()
	if !ok || t.a.opts.Audit == nil {
		return
	}
	e.Time = t.a.opts.Now().UTC()
	e.Workspace = t.a.opts.Workspace
	t.a.mu.Lock()
	e.Session = t.a.session.Info().ID
	t.a.mu.Unlock()
	if err := t.a.opts.Audit.Append(e); err != nil {
		t.a.opts.Logf("audit: %v", err)
	}
}
