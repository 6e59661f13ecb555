package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"myclaw/approval"
	"myclaw/tools"
)

// MaxRemerges bounds how often one edit agent's merge is computed again
// because the workspace changed between the merge and its apply: a file
// that keeps changing ends the call rather than loop.
const MaxRemerges = 3

// RemergeWhy is what the pane says of a merge proposed again because the
// workspace changed after the person saw it.
const RemergeWhy = "the workspace changed since this merge was shown; here is the merge again"

// changedSince is a Proposal.Apply error saying the workspace changed
// since the merge was computed: nothing was applied (tools/layer's
// ChangedSince).
type changedSince interface{ ChangedSinceShown() bool }

func isChangedSince(err error) bool {
	var c changedSince
	return errors.As(err, &c) && c.ChangedSinceShown()
}

// applyMerge applies an edit agent's merge; the layer goes either way.
// When the workspace changed since the merge was computed (another
// agent's merge applied meanwhile, or the user edited a file), it is
// merged again against the workspace as it is now: a merge a person
// approved is put to them again, one the policy allowed without a person
// is applied as the policy allowed the first. A new conflict is named.
func (s *subagentTool) applyMerge(ctx context.Context, raw json.RawMessage, a subagentArgs, m *agentMerge, asked bool) (tools.Result, error) {
	defer m.layer.Discard()
	for remerged := 0; ; remerged++ {
		// One merge at a time: the check that nothing changed and the
		// writes are not interleaved with another agent's.
		s.applyMu.Lock()
		res, err := m.apply(ctx)
		s.applyMu.Unlock()
		if err == nil || !isChangedSince(err) {
			return res, err
		}
		if remerged == MaxRemerges {
			m.Proposal.Discard()
			return tools.Result{}, tools.Errorf(tools.KindExternalError, "Tell the user which files keep changing; run the agent again once they settle.",
				"the agent's change was not merged: the workspace kept changing under it (merged again %d times; last: %s); nothing was applied", MaxRemerges, tools.AsError(err).Message)
		}
		if err := m.Repropose(ctx); err != nil {
			return tools.Result{}, err
		}
		m.again = true
		if t, _ := ctx.Value(parentKey{}).(*turn); t != nil {
			next := "applied as the first would have been"
			if asked {
				next = "to approve once more"
			}
			t.emit(NoticeEvent{Text: fmt.Sprintf("The workspace changed after agent %q's merge was made (another merge, or an edit): merged again, %s.", oneLine(a.Description, 80), next)})
		}
		if asked {
			if err := s.askAgain(ctx, raw, m); err != nil {
				m.Proposal.Discard()
				return tools.Result{}, err
			}
		}
	}
}

// askAgain puts a merge computed again to the person, as the pane showed
// it first: approved, it is applied; a conflict resolved in the workspace
// (Repropose) merges once more; anything else discards it.
func (s *subagentTool) askAgain(ctx context.Context, raw json.RawMessage, m *agentMerge) error {
	t, _ := ctx.Value(parentKey{}).(*turn)
	callID, _ := ctx.Value(callIDKey{}).(string)
	if t == nil {
		return errors.New("the merge changed and cannot be asked about again outside a turn")
	}
	dry, err := s.DryRun(ctx, raw)
	if err != nil {
		return err
	}
	for {
		req := t.request(s, Call{ID: callID, Tool: SubagentTool, Wire: SubagentTool, Args: raw}, raw, dry)
		req.Previewed = true
		req.Summary, req.Preview, req.Conflicts = m.Summary(), m.Report(), m.Conflicts()
		req.Why = RemergeWhy
		req.Reversible = true
		dec, err := t.askMerge(ctx, req)
		if err != nil {
			return err
		}
		switch {
		case dec.Choice == approval.Repropose && len(req.Conflicts) > 0:
			if err := m.Repropose(ctx); err != nil {
				return err
			}
		case dec.Choice == approval.ApproveOnce || dec.Choice == approval.ApproveSession:
			// Approved as shown, once: no grant covers a merge.
			return nil
		default:
			if dec.Choice != approval.Deny {
				dec = approval.Decision{Choice: approval.Deny, By: dec.By, Reason: dec.Reason}
			}
			e := denialError(req, dec)
			e.Message += " (the merge proposed again after the workspace changed; nothing of it was applied)"
			return e
		}
	}
}

// askMerge puts one question to the turn's approver, with the events and
// the audit entry a gated call's question has.
func (t *turn) askMerge(ctx context.Context, req approval.Request) (approval.Decision, error) {
	t.emit(ApprovalEvent{Request: req, CallID: req.CallID, Tool: req.Tool, Summary: req.Summary, Phase: "asked"})
	if _, headless := t.approver.(approval.Headless); !headless {
		t.notify("approval", "approval needed: "+req.Tool+" "+req.Summary)
	}
	dec, err := t.approveOne(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return dec, cancelledError()
		}
		dec = approval.Decision{Choice: approval.Deny, By: "approver", Reason: err.Error()}
	}
	if dec.By == "" {
		dec.By = "user"
	}
	t.emit(ApprovalEvent{Request: req, CallID: req.CallID, Tool: req.Tool, Summary: req.Summary, Phase: "decided", Decision: &dec})
	if au := t.a.opts.Audit; au != nil {
		e := approval.DecisionEntry(req, dec)
		e.Time, e.Workspace = t.a.opts.Now().UTC(), t.a.opts.Workspace
		t.a.mu.Lock()
		e.Session = t.a.session.Info().ID
		t.a.mu.Unlock()
		if err := au.Append(e); err != nil {
			t.a.opts.Logf("audit: %v", err)
		}
	}
	return dec, nil
}
