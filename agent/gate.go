package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"myclaw/approval"
	"myclaw/tools"
)

// gate is what the call gate decided about one call: the arguments to run
// (edited ones, after validation) with their dry run and how a shell
// command is confined, or the denial the model reads, with its status
// (and, when the edited call was denied, its arguments).
type gate struct {
	args   json.RawMessage
	dry    tools.Result
	conf   *approval.Confinement
	denial *tools.Error
	status string
}

// denied is a gate that does not let the call run.
func denied(status string, e *tools.Error) gate { return gate{denial: e, status: status} }

// deniedEdit is a gate that does not let the person's edit of the call
// run; args are the edited arguments, which the result then shows.
func deniedEdit(args json.RawMessage, status string, e *tools.Error) gate {
	return gate{args: args, denial: e, status: status}
}

// decide applies the policy, the hooks and, when asked for, the approver.
func (t *turn) decide(tool tools.Tool, call Call, args json.RawMessage, dry tools.Result) gate {
	a := t.a
	meta := tool.Meta()
	req := t.request(tool, call, args, dry)
	verdict := t.evaluate(req)
	req.Confinement = verdict.Confinement
	if verdict.Outcome != approval.OutcomeAsk {
		// Decided without a person: say by what, for the card and for scripts.
		d := approval.Decision{Choice: approval.ApproveOnce, By: verdict.By}
		if verdict.Outcome == approval.OutcomeDeny {
			d = approval.Decision{Choice: approval.Deny, By: verdict.By, Reason: verdict.Why}
		}
		t.emit(ApprovalEvent{Request: req, CallID: call.ID, Tool: meta.Name, Summary: req.Summary, Phase: "decided", Decision: &d, Sandbox: confinementLine(req, d)})
		t.audit(approval.VerdictEntry(req, verdict))
		if verdict.Outcome == approval.OutcomeDeny {
			return denied(StatusDenied, ruleDenial(meta.Name, verdict))
		}
		a.opts.Policy.Remember(req, d)
		return gate{args: args, dry: dry, conf: verdict.Confinement}
	}
	req.Why = verdict.Why
	if pv, ok := tool.(tools.Previewer); ok && req.Confinement != nil && req.Confinement.Sandboxed {
		req.Previewable = pv.CanPreview(args) == ""
	}
	var dec approval.Decision
	var denial *tools.Error
	var status string
	// Nobody would look at a preview headless: it is not run there.
	if _, headless := t.approver.(approval.Headless); headless {
		req.Previewable = false
	}
	if req.Previewable && a.opts.PreviewShell {
		dec.Choice = approval.Preview
	} else if dec, denial, status = t.ask(req); denial != nil {
		return denied(status, denial)
	}
	if dec.Choice == approval.Preview {
		if dec, denial, status = t.preview(tool, call, args, req); denial != nil {
			return denied(status, denial)
		}
	}
	edited := false
	// An edited call is shown again, with its own preview, before it runs:
	// what the person approves is what runs.
	for dec.Choice == approval.Edit {
		next, verr := a.opts.Registry.Validate(call.Wire, dec.Args)
		if verr != nil {
			t.audit(approval.DecisionEntry(req, dec))
			verr.Message = "the user edited the arguments, but the edit is not valid: " + verr.Message
			verr.Hint = "The call did not run. Ask the user how to proceed."
			return denied(StatusError, verr)
		}
		if sameJSON(next, args) {
			// Approved as shown: the edit of the edit changed nothing.
			dec.Choice = approval.ApproveOnce
			break
		}
		args, edited = next, true
		if !meta.ReadOnly {
			d, err := tools.Call(t.ctx, tool, args, true)
			if err != nil {
				t.audit(approval.DecisionEntry(req, dec))
				return denied(StatusError, tools.AsError(err))
			}
			dry = d
		}
		// What runs is the edited call: deny rules and hooks hold for it too,
		// and the audit and the session's memory describe it.
		req = t.request(tool, call, args, dry)
		v := t.evaluate(req)
		if v.Outcome == approval.OutcomeDeny {
			t.audit(approval.VerdictEntry(req, v))
			return deniedEdit(args, StatusDenied, ruleDenial(meta.Name, v))
		}
		verdict.Confinement, req.Confinement = v.Confinement, v.Confinement
		req.Why = "the arguments were edited: this is the edited call's preview"
		if dec, denial, status = t.ask(req); denial != nil {
			return deniedEdit(args, status, denial)
		}
	}
	if edited {
		t.emit(NoticeEvent{Text: fmt.Sprintf("Running %s with the arguments as the user edited them.", meta.Name)})
		if dec.Choice == approval.ApproveOnce {
			dec.Choice, dec.Args = approval.Edit, args
		}
	}
	dec = t.settle(req, dec)
	return gate{args: args, dry: dry, conf: withNetwork(verdict.Confinement, dec.Network)}
}

// settle records an approval a person gave: the audit entry, a rule saved
// when asked for, the session's grants and trusted hints. It returns dec
// as it took effect.
func (t *turn) settle(req approval.Request, dec approval.Decision) approval.Decision {
	if ok, _ := approval.Grantable(req); dec.Choice == approval.ApproveSession && !ok {
		// Only the pane offers grants, and not for such calls: whatever
		// asked for one gets this call approved, nothing more.
		dec.Choice, dec.SaveRule = approval.ApproveOnce, false
	}
	if dec.SaveRule && dec.Choice == approval.ApproveSession {
		saved, err := t.saveRule(req, dec)
		t.audit(approval.SavedEntry(req, dec, saved, err))
	} else {
		t.audit(approval.DecisionEntry(req, dec))
	}
	t.a.opts.Policy.Remember(req, dec)
	if dec.TrustHints && req.Meta.HintServer != "" {
		t.trustHints(req.Meta.HintServer)
	}
	return dec
}

// preview runs a call the person asked to preview and asks again, now
// about what it printed and would change. Approved, the run is kept for
// execute, which applies it; denied, it is discarded. Where no preview can
// run, the person is told why and asked about the call as it is.
func (t *turn) preview(tool tools.Tool, call Call, args json.RawMessage, req approval.Request) (approval.Decision, *tools.Error, string) {
	pv, _ := tool.(tools.Previewer)
	if pv == nil || !req.Previewable {
		req.Previewable = false
		req.Why = "this call cannot be previewed; approving runs it as shown"
		return t.ask(req)
	}
	live := newOutputStream(call.ID, t.emit)
	run, err := pv.Preview(tools.WithProgress(t.ctx, live.write), args)
	live.close()
	if err != nil {
		if t.ctx.Err() != nil {
			return approval.Decision{}, cancelledError(), StatusCancelled
		}
		msg := tools.AsError(err).Message
		t.emit(NoticeEvent{Text: "No preview: " + msg + ". Asking about the command as it is."})
		req.Previewable = false
		req.Why = "the preview could not run (" + msg + "); approving runs the command in the workspace, and /undo can restore what it changes there"
		return t.ask(req)
	}
	preq := req
	preq.Previewable, preq.Previewed = false, true
	preq.Summary, preq.Preview = run.Summary(), run.Report()
	preq.Why = "this is what the command did in the preview: approve applies exactly these changes, deny discards them"
	dec, denial, status := t.ask(preq)
	if denial != nil {
		run.Discard()
		denial.Message += " (after previewing it: nothing changed in the workspace)"
		return dec, denial, status
	}
	// What is approved is this result, not a standing grant.
	dec.Choice, dec.Network, dec.SaveRule = approval.ApproveOnce, false, false
	t.previewed, t.previewedID = run, call.ID
	return dec, nil, ""
}

// ask puts req to the person and reports the decision; a denial (or no
// decision at all) comes back as the error the model reads, audited.
func (t *turn) ask(req approval.Request) (approval.Decision, *tools.Error, string) {
	return t.askIn(t.ctx, req)
}

// askIn is ask for as long as ctx (the turn's, or shorter) lasts.
func (t *turn) askIn(ctx context.Context, req approval.Request) (approval.Decision, *tools.Error, string) {
	t.emit(ApprovalEvent{Request: req, CallID: req.CallID, Tool: req.Tool, Summary: req.Summary, Phase: "asked", Sandbox: confinementLine(req, approval.Decision{})})
	dec, err := t.approver.Approve(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			t.audit(approval.DecisionEntry(req, approval.Decision{Choice: "cancelled"}))
			return dec, cancelledError(), StatusCancelled
		}
		t.audit(approval.DecisionEntry(req, approval.Decision{Choice: approval.Deny, By: "approver", Reason: err.Error()}))
		return dec, &tools.Error{Kind: tools.KindPermissionDenied, Message: "no decision could be made: " + err.Error(), Hint: "Do not retry this call; tell the user what you wanted to do."}, StatusDenied
	}
	if dec.By == "" {
		dec.By = "user"
	}
	t.emit(ApprovalEvent{Request: req, CallID: req.CallID, Tool: req.Tool, Summary: req.Summary, Phase: "decided", Decision: &dec, Sandbox: confinementLine(req, dec)})
	if dec.Choice == approval.Preview && req.Previewable {
		return dec, nil, "" // decided on the preview's result
	}
	if !dec.Approved() {
		t.audit(approval.DecisionEntry(req, dec))
		return dec, denialError(req, dec), StatusDenied
	}
	return dec, nil, ""
}

// sameJSON reports whether two JSON texts are the same once compacted.
func sameJSON(a, b json.RawMessage) bool {
	var x, y bytes.Buffer
	return json.Compact(&x, a) == nil && json.Compact(&y, b) == nil && bytes.Equal(x.Bytes(), y.Bytes())
}

// confinementLine is how a shell call runs (or would, if approved as
// asked), for the approval event; "" for other calls.
func confinementLine(req approval.Request, d approval.Decision) string {
	if c := withNetwork(req.Confinement, d.Network); c != nil {
		return c.String()
	}
	return ""
}

// withNetwork is conf with network when the person approved it so.
func withNetwork(conf *approval.Confinement, network bool) *approval.Confinement {
	if conf == nil || !network || !conf.Sandboxed {
		return conf
	}
	c := *conf
	c.Network = true
	return &c
}

// evaluate asks the policy, then the hooks unless the policy denies.
func (t *turn) evaluate(req approval.Request) approval.Verdict {
	v := t.a.opts.Policy.Evaluate(req)
	if v.Outcome != approval.OutcomeDeny {
		if hv, ok := runHooks(t.ctx, t.hooks, req, t.a.opts.Workspace); ok {
			return hv
		}
	}
	return v
}

// ruleDenial is what the model reads when a rule, the level or a hook
// denies a call.
func ruleDenial(tool string, v approval.Verdict) *tools.Error {
	hint := "A rule forbids this call. Do not retry it; take another approach or ask the user."
	if v.Why != "" {
		hint = v.Why + " Do not retry it; take another approach or ask the user."
	}
	return &tools.Error{Kind: tools.KindPermissionDenied, Message: fmt.Sprintf("%s was denied (%s)", tool, v.By), Hint: hint}
}

// request builds the approval request of a call.
func (t *turn) request(tool tools.Tool, call Call, args json.RawMessage, dry tools.Result) approval.Request {
	meta := tool.Meta()
	if cl := dry.Command; cl != nil && cl.Risk != "" {
		// A command line is as risky as what it does, not as the tool.
		meta.Risk = cl.Risk
	}
	_, reversible := tool.(tools.Reverter)
	t.a.mu.Lock()
	earlier := slices.Clone(t.a.earlier)
	t.a.mu.Unlock()
	req := approval.Request{
		CallID:     call.ID,
		Tool:       meta.Name,
		Meta:       meta,
		Args:       args,
		Capability: dry.Capability,
		Summary:    dry.Summary,
		Preview:    dry.Preview,
		// A tool that learns its undo data by running says so in its plan.
		Reversible: reversible && (len(dry.Undo) > 0 || dry.UndoPlan != ""),
		UndoPlan:   dry.UndoPlan,
		Command:    dry.Command,
		Taint:      t.taint,
		Earlier:    earlier,
		Position:   t.position,
		Count:      t.count,
	}
	if t.taint != nil {
		taint := *t.taint
		taint.Calls = t.calls
		req.Taint = &taint
	}
	if req.Capability == "" {
		req.Capability = meta.Capability
	}
	if req.Command != nil && approval.DrawnFrom(req) != "" {
		// A command that may come from planted instructions is rated as
		// such, so a reflexive Enter on the pane does not run it.
		req.Meta.Risk = tools.RiskHigh
	}
	if req.Summary == "" {
		req.Summary = "Run " + meta.Name + " (no preview available for this tool)"
	}
	return req
}

func (t *turn) audit(e approval.AuditEntry) {
	if t.a.opts.Audit == nil {
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

func denialError(req approval.Request, d approval.Decision) *tools.Error {
	tool := req.Tool
	e := &tools.Error{Kind: tools.KindPermissionDenied, Message: fmt.Sprintf("the user denied %s", tool)}
	switch {
	case d.By == "headless":
		// The reason the policy asked is what a CI log reader needs.
		e.Message = fmt.Sprintf("%s needs approval, and this session runs without a person to approve", tool)
		if req.Why != "" {
			e.Message = fmt.Sprintf("%s needs approval (%s), and this session runs without a person to approve", tool, req.Why)
		}
		e.Hint = d.Reason
		if e.Hint == "" {
			e.Hint = "Nobody can approve calls in this session. Do not retry; finish with what read-only tools allow and say what you would have done."
		}
	case d.Reason != "":
		e.Message = fmt.Sprintf("the user denied %s: %s", tool, d.Reason)
		e.Hint = "The user said: " + d.Reason + ". Follow that; do not retry the same call."
	default:
		e.Hint = "Do not retry the same call. Ask the user what they want instead, or take another approach."
	}
	return e
}
