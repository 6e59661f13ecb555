package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"myclaw/history"
	"myclaw/tools"
)

// execute is the execute stage, then the journal stage: it journals a
// reversible call ahead (write-ahead: the record is on disk before
// anything changes), runs it, journals how it ended, and reports the
// result.
func (t *turn) execute(p *passage) (callResult, error) {
	a := t.a
	_, reverter := p.tool.(tools.Reverter)
	p.journaled = !p.meta.ReadOnly && reverter && len(p.dry.Undo) > 0 && !p.dry.Unchanged
	a.mu.Lock()
	p.journal = a.journal
	group := a.group
	a.mu.Unlock()
	p.entry = history.Entry{CallID: p.call.ID, Tool: p.meta.Name, Args: p.args, Summary: p.dry.Summary, Time: a.opts.Now(), Reversible: p.journaled, Undo: p.dry.Undo, Group: group}
	if p.journaled {
		if err := p.journal.Begin(p.entry); err != nil {
			res := t.failed(p.call, StatusError, &tools.Error{Kind: tools.KindUnknown, Message: "not run: the undo journal cannot be written", Hint: "myclaw stopped the turn; tell the user."}, a.opts.Now().Sub(p.start))
			return res, &UserError{Msg: "Cannot write the undo journal, so the call was not run.", Hint: "Check free space and permissions of the state directory.", Err: err}
		}
	}
	t.run(p)
	fatal := t.journal(p)
	return t.report(p), fatal
}

// run runs the call, confined as approved, applying its preview when it
// had one.
func (t *turn) run(p *passage) {
	call, conf := p.call, p.conf
	t.emit(ToolCallEvent{Call: call, Phase: "started", Summary: p.dry.Summary, OutsidePlan: p.req.OutsidePlan})
	// The call's duration is its run: time spent deciding is not in it.
	p.ranFrom = t.a.opts.Now()
	ctx := t.ctx
	if conf != nil {
		ctx = tools.WithConfinement(ctx, conf.Tool())
		if conf.Sandboxed && !conf.Network && conf.HostProxy {
			ctx = tools.WithHostGate(ctx, t.hostGate(call, p.args))
		}
	}
	if run := t.takePreviewed(call.ID); run != nil {
		ctx = tools.WithPreviewed(ctx, run)
	}
	ctx = context.WithValue(context.WithValue(ctx, parentKey{}, t), callIDKey{}, call.ID)
	live := newOutputStream(call.ID, t.emit)
	p.res, p.err = tools.Call(tools.WithProgressNote(tools.WithProgress(ctx, live.write), live.progress), p.tool, p.args, false)
	live.close()
	p.ranTo = t.a.opts.Now()
}

// journal records in the undo journal how the call ended. A returned
// error means the journal could not be written: the turn stops.
func (t *turn) journal(p *passage) error {
	_, reverter := p.tool.(tools.Reverter)
	meta, res, err, dry, j, entry := p.meta, p.res, p.err, p.dry, p.journal, p.entry
	var fatal error
	switch {
	case p.journaled && err != nil:
		if jerr := j.Fail(p.call.ID, tools.AsError(err).Message); jerr != nil {
			fatal = jerr
		}
	case p.journaled:
		undo := res.Undo
		if len(undo) == 0 {
			undo = dry.Undo
		}
		if jerr := j.Commit(p.call.ID, undo); jerr != nil {
			fatal = jerr
		}
	case !meta.ReadOnly && reverter && len(res.Undo) > 0:
		// A tool that learns its undo data only by running (a shell
		// command's changes to the workspace) is journaled once it has run,
		// even when it was cancelled part way.
		if res.Summary != "" {
			entry.Summary = res.Summary
		}
		entry.Reversible, entry.Undo = true, res.Undo
		jerr := j.Begin(entry)
		if jerr == nil {
			jerr = j.Commit(p.call.ID, nil)
		}
		if jerr != nil {
			fatal = jerr
		} else {
			p.recorded = true
		}
	case !meta.ReadOnly && err == nil && !res.Unchanged && !dry.Unchanged:
		if res.Summary != "" {
			entry.Summary = res.Summary
		}
		if entry.Summary == "" {
			entry.Summary = summarizeArgs(meta.Name, p.args)
		}
		entry.Undo = nil
		if jerr := j.Irreversible(entry); jerr != nil {
			fatal = jerr
		}
	}
	if fatal != nil {
		return &UserError{Msg: "Cannot write the undo journal; the turn stopped after the call ran.", Hint: "Check free space and permissions of the state directory. /history may miss this call.", Err: fatal}
	}
	return nil
}

// untrustedResult is a tool whose results are untrusted or not call by
// call: an agent's report is fenced when the agent read untrusted content.
type untrustedResult interface {
	UntrustedResult(res tools.Result) bool
}

// report shows the call's end to the person and makes what the model
// reads of it.
func (t *turn) report(p *passage) callResult {
	meta, res, err, dry, now := p.meta, p.res, p.err, p.dry, p.ranTo
	if u, ok := p.tool.(untrustedResult); ok && err == nil {
		meta.ReturnsUntrusted = u.UntrustedResult(res)
	}
	call, journaled, recorded := p.call, p.journaled, p.recorded
	content := tools.Envelope(meta, res, err, now.UTC())
	ev := ToolResultEvent{Call: call, Status: StatusOK, Summary: res.Summary, Duration: now.Sub(p.ranFrom), Content: content, Reversible: journaled && err == nil || recorded}
	if ev.Summary == "" {
		ev.Summary = dry.Summary
	}
	if recorded {
		ev.UndoPlan = res.UndoPlan
	}
	if err == nil {
		ev.ExitCode = exitCodeOf(res.Output)
		if journaled {
			// What was applied is what was previewed: the dry run of these args.
			ev.Diff = dry.Preview
		}
	}
	out := callResult{content: content}
	if err == nil && len(res.Images) > 0 {
		out.images, out.tool = res.Images, meta.Name
	}
	if err != nil && errors.Is(err, context.Canceled) && t.ctx.Err() != nil && res.Body != "" {
		// Stopped by the user after printing something: what it printed
		// is kept, for the card and for the model, with the tool's note.
		err = nil
		content = tools.Envelope(meta, res, nil, now.UTC())
		ev.Content, ev.Status, ev.Message = content, StatusCancelled, "stopped by the user; the output up to then is kept"
		out.content = content
	}
	if err != nil {
		te := tools.AsError(err)
		ev.Status, ev.Kind, ev.Message, ev.Hint = StatusError, string(te.Kind), te.Text(), te.Hint
		if t.ctx.Err() != nil {
			ev.Status = StatusCancelled
		}
	} else if meta.ReturnsUntrusted {
		ev.Untrusted, ev.Source, ev.RetrievedAt, ev.Body = true, res.Source, now.UTC(), res.Body
		if ev.Source == "" {
			ev.Source = meta.Name
		}
		out.untrusted, out.body = ev.Source, res.Body
	} else {
		ev.Body = res.Body
	}
	t.emit(ev)
	out.content = t.postToolHooks(p, ev.Status, out.content)
	if err == nil {
		t.workedIn(p.args)
		if res.Plan != nil {
			t.a.planProgress(res.Plan)
			t.emit(PlanEvent{Items: res.Plan})
		}
		if res.Proposal != nil {
			t.submitted.Store(true)
			t.emit(PlanEvent{Items: res.Proposal.Items(), Proposal: res.Proposal})
		}
	}
	return out
}

// workedIn brings the instruction file of the folder a call worked in
// into the prompt (a subdirectory's AGENTS.md), for calls that name a path.
func (t *turn) workedIn(args json.RawMessage) {
	in := t.a.opts.Instructions
	if in == nil {
		return
	}
	var a struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(args, &a) != nil || a.Path == "" {
		return
	}
	p := a.Path
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(t.a.opts.Workspace, p)
		if err != nil {
			return
		}
		p = rel
	}
	if f := in.WorkedIn(p); f != nil {
		t.a.queueInstruction(f)
		t.emit(NoticeEvent{Text: fmt.Sprintf("Loaded %s (%s) for the work under %s/.", f.Path, tools.HumanSize(f.Size), f.Dir)})
	}
}

// exitCodeOf returns the exit status a command tool reported in its output
// (as "exit_code"), or nil when it reported none.
func exitCodeOf(output any) *int {
	if output == nil {
		return nil
	}
	b, err := json.Marshal(output)
	if err != nil {
		return nil
	}
	var v struct {
		ExitCode *int `json:"exit_code"`
	}
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	return v.ExitCode
}

// summarizeArgs describes a call without a summary of its own.
func summarizeArgs(tool string, args json.RawMessage) string {
	s := string(args)
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return tool + " " + s
}
