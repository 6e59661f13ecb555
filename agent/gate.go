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

// gate takes a gated call through the verdict, the hooks and, when they
// ask for it, the person; a call nobody gates goes straight on.
func (t *turn) gate(p *passage) bool {
	if !p.gated {
		return true
	}
	p.req = t.request(p.tool, p.call, p.args, p.dry)
	t.judge(p)
	p.req.Confinement = p.verdict.Confinement
	if p.verdict.Outcome != approval.OutcomeAsk {
		return t.settleAlone(p)
	}
	return t.ask(p)
}

// judge is the verdict stage, then the hooks stage: the policy decides
// about p.req, and the hooks do unless the policy denies.
func (t *turn) judge(p *passage) {
	p.verdict = t.a.opts.Policy.Evaluate(p.req)
	if p.verdict.Outcome == approval.OutcomeDeny {
		return
	}
	if hv, ok := t.a.runHooks(t.ctx, t.hooks, p.req); ok {
		// A hook decides whether a person is asked, never where the call
		// runs: the policy's confinement (the sandbox) stays.
		hv.Confinement = p.verdict.Confinement
		p.verdict = hv
		t.holdPlan(p)
	}
	p.verdict.Confinement = scratchConfinement(p.tool, p.verdict.Confinement)
}

// scratchConfinement is how an explore agent's shell really runs: as a
// preview, sandboxed without network over a scratch copy that is then
// discarded, whatever the level or a rule would grant a shell command.
// An edit agent's shell runs in its layer, likewise without network.
func scratchConfinement(tool tools.Tool, conf *approval.Confinement) *approval.Confinement {
	if conf == nil {
		return conf
	}
	if isReadOnlyShell(tool) {
		return &approval.Confinement{Sandboxed: true, Discarded: true}
	}
	if l, ok := tool.(interface{ RunsInLayer() bool }); ok && l.RunsInLayer() {
		return &approval.Confinement{Sandboxed: true, Layer: true}
	}
	return conf
}

// settleAlone ends a passage the policy or a hook decided without a person.
func (t *turn) settleAlone(p *passage) bool {
	v := p.verdict
	// Decided without a person: say by what, for the card and for scripts.
	d := approval.Decision{Choice: approval.ApproveOnce, By: v.By}
	if v.Outcome == approval.OutcomeDeny {
		d = approval.Decision{Choice: approval.Deny, By: v.By, Reason: v.Why}
	}
	req := p.req
	t.emit(ApprovalEvent{Request: req, CallID: p.call.ID, Tool: p.meta.Name, Summary: req.Summary, Phase: "decided", Decision: &d, Sandbox: confinementLine(req, d)})
	p.decided(req, v)
	if v.Outcome == approval.OutcomeDeny {
		return p.fail(StatusDenied, ruleDenial(p.meta.Name, v))
	}
	t.a.opts.Policy.Remember(req, d)
	p.conf = v.Confinement
	return true
}

// ask is the ask stage: it puts the call to the person (or runs its
// preview first), takes an edit back through validation, the dry run,
// the verdict and the hooks and asks again, and settles the approval.
func (t *turn) ask(p *passage) bool {
	a := t.a
	meta := p.meta
	p.req.Why = p.verdict.Why
	_, first := p.tool.(previewsFirst)
	if pv, ok := p.tool.(tools.Previewer); ok && (first || p.req.Confinement != nil && p.req.Confinement.Sandboxed && !p.req.Confinement.ReadOnly) {
		p.req.Previewable = pv.CanPreview(p.args) == ""
	}
	// Nobody would look at a preview headless: it is not run there.
	if _, headless := t.approver.(approval.Headless); headless {
		p.req.Previewable = false
	}
	if p.req.Previewable && (a.opts.PreviewShell || first) {
		p.dec.Choice = approval.Preview
	} else if _, ok := t.put(p, p.req); !ok {
		return false
	}
	if p.dec.Choice == approval.Preview && !t.preview(p) {
		return false
	}
	edited := false
	// An edited call is shown again, with its own preview, before it runs:
	// what the person approves is what runs.
	for p.dec.Choice == approval.Edit {
		next, verr := a.opts.Registry.Validate(p.call.Wire, p.dec.Args)
		if verr != nil {
			verr.Message = "the user edited the arguments, but the edit is not valid: " + verr.Message
			verr.Hint = "The call did not run. Ask the user how to proceed."
			// The card and the record show the call as edited, when it is
			// JSON at all.
			var b bytes.Buffer
			if json.Compact(&b, p.dec.Args) == nil {
				p.args = b.Bytes()
				p.showEdit()
			}
			return p.fail(StatusError, verr)
		}
		if sameJSON(next, p.args) {
			// Approved as shown: the edit of the edit changed nothing.
			p.dec.Choice = approval.ApproveOnce
			break
		}
		p.args, edited = next, true
		if !meta.ReadOnly {
			d, err := tools.Call(t.ctx, p.tool, p.args, true)
			if err != nil {
				// What failed is the edited call ("../x" outside the
				// workspace): the card must not name the model's.
				p.showEdit()
				return p.fail(StatusError, tools.AsError(err))
			}
			p.dry = d
		}
		// What runs is the edited call: deny rules and hooks hold for it too,
		// and the audit and the session's memory describe it.
		p.req = t.request(p.tool, p.call, p.args, p.dry)
		t.judge(p)
		if p.verdict.Outcome == approval.OutcomeDeny {
			p.decided(p.req, p.verdict)
			p.showEdit()
			return p.fail(StatusDenied, ruleDenial(meta.Name, p.verdict))
		}
		p.req.Confinement = p.verdict.Confinement
		p.req.Why = "the arguments were edited: this is the edited call's preview"
		if _, ok := t.put(p, p.req); !ok {
			p.showEdit()
			return false
		}
	}
	if edited {
		// No notice: the call's events carry Edited, and its card says so.
		if p.dec.Choice == approval.ApproveOnce {
			p.dec.Choice, p.dec.Args = approval.Edit, p.args
		}
	}
	t.settle(p)
	p.conf = withNetwork(p.verdict.Confinement, p.dec.Network)
	p.call.Edited = !sameJSON(p.call.Args, p.args)
	p.call.Args = p.args
	return true
}

// showEdit makes a denied call's result name the call as the person
// edited it.
func (p *passage) showEdit() {
	if p.args != nil && !sameJSON(p.call.Args, p.args) {
		p.call.Edited, p.call.Args = true, p.args
	}
}

// settle takes effect an approval a person gave: a rule saved when asked
// for, the session's grants and trusted hints. The passage keeps the
// decision as it took effect.
func (t *turn) settle(p *passage) {
	req := p.req
	if ok, _ := approval.Grantable(req); p.dec.Choice == approval.ApproveSession && !ok {
		// Only the pane offers grants, and not for such calls: whatever
		// asked for one gets this call approved, nothing more.
		p.dec.Choice, p.dec.SaveRule = approval.ApproveOnce, false
	}
	if p.dec.SaveRule && p.dec.Choice == approval.ApproveSession {
		p.saveRule = true
		p.saved, p.saveErr = t.saveRule(req, p.dec)
	}
	t.a.opts.Policy.Remember(req, p.dec)
	if p.dec.TrustHints && req.Meta.HintServer != "" {
		t.trustHints(req.Meta.HintServer)
	}
}

// preview runs a call the person asked to preview and asks again, now
// about what it printed and would change. Approved, the run is kept for
// execute, which applies it; denied, it is discarded. Where no preview can
// run, the person is told why and asked about the call as it is.
//
// The approval recorded is of the call as first asked about; a denial, of
// what the person was shown.
func (t *turn) preview(p *passage) bool {
	req := p.req
	again := func(q approval.Request) bool {
		if _, ok := t.put(p, q); !ok {
			return false
		}
		p.req = req
		return true
	}
	pv, _ := p.tool.(tools.Previewer)
	if pv == nil || !req.Previewable {
		q := req
		q.Previewable = false
		q.Why = "this call cannot be previewed; approving runs it as shown"
		return again(q)
	}
	live := newOutputStream(p.call.ID, t.emit)
	ctx := context.WithValue(context.WithValue(t.ctx, parentKey{}, t), callIDKey{}, p.call.ID)
	run, err := pv.Preview(tools.WithProgressNote(tools.WithProgress(ctx, live.write), live.progress), p.args)
	live.close()
	if err != nil {
		if t.ctx.Err() != nil {
			return p.fail(StatusCancelled, cancelledError())
		}
		if _, first := p.tool.(previewsFirst); first {
			// Nothing to ask about: what would run is what failed.
			return p.fail(StatusError, tools.AsError(err))
		}
		msg := tools.AsError(err).Message
		t.emit(NoticeEvent{Text: "No preview: " + msg + ". Asking about the command as it is."})
		q := req
		q.Previewable = false
		q.Why = "the preview could not run (" + msg + "); approving runs the command in the workspace, and /undo can restore what it changes there"
		return again(q)
	}
	if e, ok := run.(emptyPreview); ok && e.ChangesNothing() {
		// Applying it changes nothing: there is no question to ask.
		p.dec = approval.Decision{Choice: approval.ApproveOnce, By: "nothing to apply"}
	}
	for p.dec.By != "nothing to apply" {
		preq := req
		preq.Previewable, preq.Previewed = false, true
		preq.Summary, preq.Preview = run.Summary(), run.Report()
		preq.Why = "this is what the command did in the preview: approve applies exactly these changes, deny discards them"
		rp, _ := run.(reproposer)
		if rp != nil {
			preq.Conflicts = rp.Conflicts()
		}
		if !again(preq) {
			run.Discard()
			p.denial.Message += " (after previewing it: nothing changed in the workspace)"
			return false
		}
		if p.dec.Choice != approval.Repropose {
			break
		}
		if rp == nil {
			run.Discard()
			return p.fail(StatusError, &tools.Error{Kind: tools.KindUnsupported, Message: "this preview cannot be proposed again"})
		}
		// The person changed the workspace: merge against it as it is now.
		if err := rp.Repropose(t.ctx); err != nil {
			run.Discard()
			if t.ctx.Err() != nil {
				return p.fail(StatusCancelled, cancelledError())
			}
			return p.fail(StatusError, tools.AsError(err))
		}
	}
	// What is approved is this result, not a standing grant.
	p.dec.Choice, p.dec.Network, p.dec.SaveRule = approval.ApproveOnce, false, false
	t.previewedMu.Lock()
	if t.previewed == nil {
		t.previewed = map[string]tools.Preview{}
	}
	t.previewed[p.call.ID] = run
	t.previewedMu.Unlock()
	return true
}

// takePreviewed returns the approved preview of call id, once.
func (t *turn) takePreviewed(id string) tools.Preview {
	t.previewedMu.Lock()
	defer t.previewedMu.Unlock()
	run := t.previewed[id]
	delete(t.previewed, id)
	return run
}

// reproposer is a preview that is a merge (an edit agent's): it names its
// conflicts, and merges again once the person resolved them.
type reproposer interface {
	Conflicts() []string
	Repropose(ctx context.Context) error
}

// emptyPreview is a preview that may turn out to change nothing (an edit
// agent that made no change): then nobody is asked.
type emptyPreview interface{ ChangesNothing() bool }

// previewsFirst is a tool whose every asking call runs as a preview
// first (an edit agent works in its layer, then its merge is asked about).
type previewsFirst interface{ previewsFirst() }

// put asks the approver about req for as long as the turn lasts; see
// putIn.
func (t *turn) put(p *passage, req approval.Request) (approval.Decision, bool) {
	return t.putIn(t.ctx, p, req)
}

// putIn puts req to the approver for as long as ctx (the turn's, or
// shorter) lasts and records the answer in the passage: a denial (or no
// decision at all) ends it with the error the model reads. It returns the
// decision as the approver gave it.
func (t *turn) putIn(ctx context.Context, p *passage, req approval.Request) (approval.Decision, bool) {
	t.emit(ApprovalEvent{Request: req, CallID: req.CallID, Tool: req.Tool, Summary: req.Summary, Phase: "asked", Sandbox: confinementLine(req, approval.Decision{})})
	if _, headless := t.approver.(approval.Headless); !headless {
		t.notify("approval", "approval needed: "+req.Tool+" "+req.Summary)
	}
	dec, err := t.approveOne(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			p.answered(req, approval.Decision{Choice: "cancelled"})
			return dec, p.fail(StatusCancelled, cancelledError())
		}
		p.answered(req, approval.Decision{Choice: approval.Deny, By: "approver", Reason: err.Error()})
		return dec, p.fail(StatusDenied, &tools.Error{Kind: tools.KindPermissionDenied, Message: "no decision could be made: " + err.Error(), Hint: "Do not retry this call; tell the user what you wanted to do."})
	}
	if dec.By == "" {
		dec.By = "user"
	}
	t.emit(ApprovalEvent{Request: req, CallID: req.CallID, Tool: req.Tool, Summary: req.Summary, Phase: "decided", Decision: &dec, Sandbox: confinementLine(req, dec)})
	if dec.Choice == approval.Preview && req.Previewable || dec.Choice == approval.Repropose && req.Previewed && len(req.Conflicts) > 0 {
		// Decided on the preview's result, which is asked about next; or
		// on a merge proposed again once the person resolved a conflict.
		p.dec = dec
		return dec, true
	}
	p.answered(req, dec)
	if !dec.Approved() {
		return dec, p.fail(StatusDenied, denialError(req, dec))
	}
	return dec, true
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
	if conf == nil || !network || !conf.Sandboxed || conf.ReadOnly || conf.Discarded || conf.Layer {
		return conf
	}
	c := *conf
	c.Network = true
	return &c
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
	if cm, ok := tool.(callMeta); ok {
		meta = cm.CallMeta(args)
	}
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
		Unchanged:  dry.Unchanged,
		// A tool that learns its undo data by running says so in its plan.
		Reversible: reversible && (len(dry.Undo) > 0 || dry.UndoPlan != ""),
		UndoPlan:   dry.UndoPlan,
		Command:    dry.Command,
		Taint:      t.taint,
		Earlier:    earlier,
		Position:   t.position,
		Count:      t.count,
		// Once a plan is accepted, the files it does not name.
		OutsidePlan: t.outsidePlan(meta, dry),
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
