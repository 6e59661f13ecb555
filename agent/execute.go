package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"myclaw/approval"
	"myclaw/history"
	"myclaw/tools"
)

// execute runs an approved call, journaling it first when it is reversible
// (write-ahead: the record is on disk before anything changes).
func (t *turn) execute(tool tools.Tool, call Call, args json.RawMessage, dry tools.Result, conf *approval.Confinement, start time.Time) (callResult, error) {
	a := t.a
	meta := tool.Meta()
	_, reverter := tool.(tools.Reverter)
	journaled := !meta.ReadOnly && reverter && len(dry.Undo) > 0 && !dry.Unchanged
	a.mu.Lock()
	j := a.journal
	a.mu.Unlock()
	entry := history.Entry{CallID: call.ID, Tool: meta.Name, Args: args, Summary: dry.Summary, Time: a.opts.Now(), Reversible: journaled, Undo: dry.Undo}
	if journaled {
		if err := j.Begin(entry); err != nil {
			res := t.failed(call, StatusError, &tools.Error{Kind: tools.KindUnknown, Message: "not run: the undo journal cannot be written", Hint: "myclaw stopped the turn; tell the user."}, a.opts.Now().Sub(start))
			return res, &UserError{Msg: "Cannot write the undo journal, so the call was not run.", Hint: "Check free space and permissions of the state directory.", Err: err}
		}
	}
	t.emit(ToolCallEvent{Call: call, Phase: "started", Summary: dry.Summary})
	// The call's duration is its run: time spent deciding is not in it.
	runStart := a.opts.Now()
	ctx := t.ctx
	if conf != nil {
		ctx = tools.WithConfinement(ctx, conf.Tool())
		if conf.Sandboxed && !conf.Network && conf.HostProxy {
			ctx = tools.WithHostGate(ctx, t.hostGate(call, args))
		}
	}
	if run := t.previewed; run != nil && t.previewedID == call.ID {
		t.previewed = nil
		ctx = tools.WithPreviewed(ctx, run)
	}
	live := newOutputStream(call.ID, t.emit)
	res, err := tools.Call(tools.WithProgressNote(tools.WithProgress(ctx, live.write), live.progress), tool, args, false)
	live.close()
	now := a.opts.Now()
	var fatal error
	recorded := false // journaled after the run
	switch {
	case journaled && err != nil:
		if jerr := j.Fail(call.ID, tools.AsError(err).Message); jerr != nil {
			fatal = jerr
		}
	case journaled:
		undo := res.Undo
		if len(undo) == 0 {
			undo = dry.Undo
		}
		if jerr := j.Commit(call.ID, undo); jerr != nil {
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
			jerr = j.Commit(call.ID, nil)
		}
		if jerr != nil {
			fatal = jerr
		} else {
			recorded = true
		}
	case !meta.ReadOnly && err == nil && !res.Unchanged && !dry.Unchanged:
		if res.Summary != "" {
			entry.Summary = res.Summary
		}
		if entry.Summary == "" {
			entry.Summary = summarizeArgs(meta.Name, args)
		}
		entry.Undo = nil
		if jerr := j.Irreversible(entry); jerr != nil {
			fatal = jerr
		}
	}
	if fatal != nil {
		fatal = &UserError{Msg: "Cannot write the undo journal; the turn stopped after the call ran.", Hint: "Check free space and permissions of the state directory. /history may miss this call.", Err: fatal}
	}
	content := tools.Envelope(meta, res, err, now.UTC())
	ev := ToolResultEvent{Call: call, Status: StatusOK, Summary: res.Summary, Duration: now.Sub(runStart), Content: content, Reversible: journaled && err == nil || recorded}
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
	if err == nil {
		t.workedIn(args)
		if res.Plan != nil {
			t.emit(PlanEvent{Items: res.Plan})
		}
	}
	return out, fatal
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
