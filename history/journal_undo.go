package history

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"myclaw/tools"
)

// Resolver finds the Reverter of a tool by display name.
type Resolver func(tool string) (tools.Reverter, bool)

// RegistryResolver resolves tools registered in reg that implement
// tools.Reverter.
func RegistryResolver(reg *tools.Registry) Resolver {
	return func(tool string) (tools.Reverter, bool) {
		t, ok := reg.Lookup(tool)
		if !ok {
			return nil, false
		}
		r, ok := t.(tools.Reverter)
		return r, ok
	}
}

// Outcome is what Undo or Redo did with one call.
type Outcome struct {
	// Entry is the call, in its state after the attempt.
	Entry Entry
	// Done is set when the call was reverted (Undo) or re-applied (Redo).
	Done bool
	// Skipped is set when an irreversible call was passed over: its effects
	// stay.
	Skipped bool
	// Err says why the call was not reverted or re-applied, e.g. a
	// *tools.Conflict.
	Err error
	// Message is one line for people.
	Message string
	// Session is, from UndoNewest and RedoNewest, the session whose
	// journal holds the call.
	Session string
}

// Undo reverts the newest n undoable steps, newest first, and stops at the
// first refusal or failure (nothing older is touched). A step is one call,
// or every call of one group (Entry.Group): a goal's iteration is taken
// back whole. A pending call
// counts as applied: reverting a change that never happened is a no-op.
//
// Irreversible calls in the way are stepped over: each one not yet passed
// gets a Skipped outcome saying that its effects stay (before the call
// reverted past it) and is marked passed, so it is said once. When nothing
// undoable is left, the Skipped outcomes come with ErrNothingToUndo and
// nothing is marked.
//
// Each revert is journaled: undo-begin before Revert is called, undo-done
// (with the redo data) or undo-fail after. force is handed to Revert. The
// error is for a broken journal, a cancelled ctx or bad arguments, and
// ErrNothingToUndo when nothing is left; refusals are in the outcomes.
func (j *Journal) Undo(ctx context.Context, n int, force bool, resolve Resolver) ([]Outcome, error) {
	if n < 1 {
		return nil, fmt.Errorf("undo: the number of calls must be at least 1, got %d", n)
	}
	if resolve == nil {
		return nil, errors.New("undo: no resolver for the tools' reverters")
	}
	var outs []Outcome
	err := j.mutate(func() error {
		done := 0
		// group is the group of the step under way: its older calls are
		// part of the same step.
		group := ""
		var skipped []*slot
		for i := len(j.slots) - 1; i >= 0; i-- {
			s := j.slots[i]
			inStep := group != "" && s.e.Group == group
			if s.e.State == StateIrreversible && !s.passed {
				skipped = append(skipped, s)
				continue
			}
			if !undoable(s) {
				continue
			}
			if !inStep {
				if done == n {
					break
				}
				group = s.e.Group
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			for _, p := range skipped {
				if err := j.append(record{Op: opPass, Seq: p.e.Seq, CallID: p.e.CallID}); err != nil {
					return err
				}
				outs = append(outs, Outcome{Entry: p.e, Skipped: true, Message: passMessage(p.e)})
			}
			skipped = nil
			out, err := j.run(ctx, s, false, force, false, resolve)
			if out != nil {
				outs = append(outs, *out)
			}
			if err != nil || !out.Done {
				return err
			}
			if !inStep {
				done++
			}
		}
		if done == 0 {
			for _, p := range skipped {
				outs = append(outs, Outcome{Entry: p.e, Skipped: true, Message: passMessage(p.e)})
			}
			return ErrNothingToUndo
		}
		return nil
	})
	return outs, err
}

// Redo re-applies the newest n undone steps (a group's calls together), the
// most recently undone first, journaled like Undo (redo-begin, then redo-done or redo-fail). It
// stops at the first refusal: a file changed since the undo is never
// overwritten. Errors are as for Undo, with ErrNothingToRedo.
func (j *Journal) Redo(ctx context.Context, n int, resolve Resolver) ([]Outcome, error) {
	if n < 1 {
		return nil, fmt.Errorf("redo: the number of calls must be at least 1, got %d", n)
	}
	if resolve == nil {
		return nil, errors.New("redo: no resolver for the tools' reverters")
	}
	var outs []Outcome
	err := j.mutate(func() error {
		if len(j.redoStack) == 0 {
			return ErrNothingToRedo
		}
		group := ""
		for done := 0; len(j.redoStack) > 0; {
			s := j.bySeq[j.redoStack[len(j.redoStack)-1]]
			if group == "" || s.e.Group != group {
				// A new step: a group's calls are re-applied together.
				if done == n {
					break
				}
				done++
				group = s.e.Group
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			out, err := j.run(ctx, s, true, false, false, resolve)
			if out != nil {
				outs = append(outs, *out)
			}
			if err != nil || !out.Done {
				return err
			}
		}
		return nil
	})
	return outs, err
}

// Recover finishes what a crash interrupted. An undo or redo that was begun
// and never recorded as done is run again (Revert does nothing when the
// state is already the one it restores) and completed, or recorded as
// failed if it now refuses. A call begun and never committed stays
// StatePending; it is reported, since the change may or may not have
// happened, and undoing it is safe. Recover returns one line for people per
// thing found.
func (j *Journal) Recover(ctx context.Context, resolve Resolver) ([]string, error) {
	if resolve == nil {
		return nil, errors.New("recover: no resolver for the tools' reverters")
	}
	var lines []string
	err := j.mutate(func() error {
		for _, s := range j.slots {
			if s.inflight == "" {
				if s.e.State == StatePending {
					lines = append(lines, fmt.Sprintf("%s was interrupted before its result was recorded; /undo reverts it safely", label(s.e)))
				}
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			redo := s.inflight == opRedoBegin
			what := "undo"
			if redo {
				what = "redo"
			}
			out, err := j.run(ctx, s, redo, s.force, true, resolve)
			switch {
			case out == nil:
			case out.Done:
				lines = append(lines, fmt.Sprintf("Finished the interrupted %s of %s", what, label(s.e)))
			default:
				lines = append(lines, fmt.Sprintf("Could not finish the interrupted %s of %s: %v", what, label(s.e), out.Err))
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	return lines, err
}

// run reverts s (redo false) or re-applies it (redo true) through its
// tool's Reverter, journaling the begin record (unless resuming one a crash
// left) and the result. A refusal or tool failure is in the outcome; the
// error is for the journal. The outcome is nil only when the begin record
// could not be written.
func (j *Journal) run(ctx context.Context, s *slot, redo, force, resume bool, resolve Resolver) (*Outcome, error) {
	opBeginRec, opDone, opFailRec, data := opUndoBegin, opUndoDone, opUndoFail, s.e.Undo
	if redo {
		opBeginRec, opDone, opFailRec, data = opRedoBegin, opRedoDone, opRedoFail, s.redo
	}
	failed := func(err error) *Outcome {
		return &Outcome{Entry: s.e, Err: err, Message: failMessage(s.e, redo, err)}
	}
	rev, ok := resolve(s.e.Tool)
	if !ok || rev == nil {
		return failed(fmt.Errorf("the tool %s is not available to revert it", s.e.Tool)), nil
	}
	if len(data) == 0 {
		return failed(errors.New("no data to revert it with was recorded")), nil
	}
	if !resume {
		if err := j.append(record{Op: opBeginRec, Seq: s.e.Seq, CallID: s.e.CallID, Force: force}); err != nil {
			return nil, err
		}
	}
	next, rerr := rev.Revert(ctx, data, force)
	note := ""
	if rerr == nil && len(next) > 0 && !json.Valid(next) {
		// The revert happened, so the journal must say so; it cannot carry
		// data that is not JSON, so the way back is lost.
		next, note = nil, " (the tool returned unusable data for the way back, so it cannot be reverted again)"
	}
	if rerr != nil {
		if err := j.append(record{Op: opFailRec, Seq: s.e.Seq, CallID: s.e.CallID, Reason: rerr.Error()}); err != nil {
			return failed(rerr), err
		}
		return failed(rerr), nil
	}
	if err := j.append(record{Op: opDone, Seq: s.e.Seq, CallID: s.e.CallID, Data: next}); err != nil {
		return failed(err), err
	}
	msg := "Undid " + label(s.e)
	if redo {
		msg = "Redid " + label(s.e)
	} else if force {
		msg += " (forced)"
	}
	return &Outcome{Entry: s.e, Done: true, Message: msg + note}, nil
}

func label(e Entry) string {
	if e.Summary == "" {
		return e.Tool
	}
	return e.Tool + ": " + e.Summary
}

// passMessage names an irreversible call by its command when it has one:
// "skipped shell_run `go test ./...`: its effects stay".
func passMessage(e Entry) string {
	var args struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(e.Args, &args) == nil && strings.TrimSpace(args.Command) != "" {
		return fmt.Sprintf("skipped %s `%s`: its effects stay", e.Tool, tools.ClipOneLine(args.Command, 80))
	}
	if e.Summary == "" {
		return "skipped " + e.Tool + ": its effects stay"
	}
	return fmt.Sprintf("skipped %s (%s): its effects stay", e.Tool, e.Summary)
}

func failMessage(e Entry, redo bool, err error) string {
	var c *tools.Conflict
	switch {
	case errors.As(err, &c) && redo:
		return fmt.Sprintf("Refused to redo %s: %s changed since the undo (%s); it is left as it is.", label(e), c.What, c.Detail)
	case errors.As(err, &c):
		return fmt.Sprintf("Refused: %s changed since the call (%s). Use --force (or /undo --force) to undo anyway; the current version is kept so /redo can bring it back.", c.What, c.Detail)
	case redo:
		return fmt.Sprintf("Could not redo %s: %v", label(e), err)
	}
	return fmt.Sprintf("Could not undo %s: %v", label(e), err)
}
