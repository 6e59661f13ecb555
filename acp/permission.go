package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/tools"
	"myclaw/tools/termtext"
)

// Permission options myclaw offers. Edit-then-approve is not offered:
// ACP has no way to hand edited arguments back.
const (
	optAllowOnce    = "allow_once"
	optAllowSession = "allow_session"
	optReject       = "reject"
	// optRejectReason rejects and ends the turn: the person's next prompt
	// is their reason, and reaches the model as such (ACP options carry
	// no text). A client may instead put the reason in the response's
	// _meta.reason.
	optRejectReason = "reject_with_reason"
)

// approver puts the calls the policy asks about to the editor.
type approver struct {
	ss *session
	u  *updater
}

// Approve implements approval.Approver. No answer is a denial: a cancel
// returns ctx's error, a timeout or a broken connection a Deny.
func (ap *approver) Approve(ctx context.Context, req approval.Request) (approval.Decision, error) {
	st := ap.u.call(callOf(req), req.Summary)
	st.asked = true
	srv := ap.ss.srv
	pctx, cancel := context.WithTimeout(ctx, srv.opts.PermissionTimeout)
	defer cancel()
	resp, err := srv.peer().RequestPermission(pctx, acpsdk.RequestPermissionRequest{
		SessionId: ap.ss.id,
		ToolCall:  ap.permissionCall(st, req),
		Options:   permissionOptions(req),
	})
	switch {
	case ctx.Err() != nil:
		return approval.Decision{}, ctx.Err()
	case pctx.Err() != nil:
		return ap.record(st, approval.Decision{Choice: approval.Deny, By: "timeout", Reason: fmt.Sprintf("nobody answered in the editor within %s", srv.opts.PermissionTimeout)}), nil
	case err != nil:
		return ap.record(st, approval.Decision{Choice: approval.Deny, By: "editor", Reason: "the editor gave no answer: " + err.Error()}), nil
	}
	if resp.Outcome.Selected == nil {
		// The editor cancelled the turn (it answers pending requests so
		// after session/cancel): nothing runs, and the turn ends.
		ap.ss.cancelTurn()
		return approval.Decision{}, context.Canceled
	}
	reason := metaReason(resp.Meta)
	d := approval.Decision{By: "user"}
	switch string(resp.Outcome.Selected.OptionId) {
	case optAllowOnce:
		d.Choice = approval.ApproveOnce
	case optAllowSession:
		if ok, _ := approval.Grantable(req); !ok || req.Previewed {
			// Not offered for this call: approved once, nothing more.
			d.Choice = approval.ApproveOnce
		} else {
			d.Choice = approval.ApproveSession
		}
	case optReject:
		d.Choice, d.Reason = approval.Deny, reason
	case optRejectReason:
		d.Choice, d.Reason = approval.Deny, reason
		if reason == "" {
			d.Reason = "the user will say why in their next message"
			defer ap.ss.awaitReason(req.Tool)
		}
	default:
		d = approval.Decision{Choice: approval.Deny, By: "editor", Reason: fmt.Sprintf("the editor answered with an unknown option %q", resp.Outcome.Selected.OptionId)}
	}
	return ap.record(st, d), nil
}

// record notes the answer on the call's card.
func (ap *approver) record(st *callState, d approval.Decision) approval.Decision {
	switch {
	case d.Choice == approval.ApproveSession:
		st.decided = "allowed by you for this session"
	case d.Approved():
		st.decided = "allowed by you"
	case d.By == "user":
		st.decided = "rejected by you"
	default:
		st.decided = "denied: " + d.Reason
	}
	return d
}

// metaReason is the reason a client put in the response's _meta.
func metaReason(meta map[string]any) string {
	if r, ok := meta["reason"].(string); ok {
		return strings.TrimSpace(r)
	}
	return ""
}

// permissionOptions are the choices myclaw would offer for req; a
// session grant only where the TUI would offer one: not for a preview's
// result (approved once or discarded), nor where approval.Grantable
// refuses (an edit agent's merge, a risky command).
func permissionOptions(req approval.Request) []acpsdk.PermissionOption {
	opts := []acpsdk.PermissionOption{{OptionId: optAllowOnce, Name: "Allow once", Kind: acpsdk.PermissionOptionKindAllowOnce}}
	if ok, _ := approval.Grantable(req); ok && !req.Meta.AlwaysAsk && !req.Previewed {
		opts = append(opts, acpsdk.PermissionOption{OptionId: optAllowSession, Name: "Allow for this session", Kind: acpsdk.PermissionOptionKindAllowAlways})
	}
	return append(opts,
		acpsdk.PermissionOption{OptionId: optReject, Name: "Reject", Kind: acpsdk.PermissionOptionKindRejectOnce},
		acpsdk.PermissionOption{OptionId: optRejectReason, Name: "Reject, and say why in the next message", Kind: acpsdk.PermissionOptionKindRejectOnce},
	)
}

// permissionCall is the call as the permission request shows it: the dry
// run as ACP diff content where it is a file's change, and the rest of
// what the approval pane shows as text.
func (ap *approver) permissionCall(st *callState, req approval.Request) acpsdk.ToolCallUpdate {
	var content []acpsdk.ToolCallContent
	preview := req.Preview
	if d, ok := ap.fileDiff(req); ok {
		content = append(content, d)
		preview = ""
	}
	content = append(content, acpsdk.ToolContent(acpsdk.TextBlock(dryRunText(req, preview))))
	status := acpsdk.ToolCallStatusPending
	return acpsdk.ToolCallUpdate{
		ToolCallId: st.id,
		Title:      acpsdk.Ptr(title(req.Tool, req.Summary, req.Args)),
		Kind:       acpsdk.Ptr(kindOf(req.Meta)),
		Status:     &status,
		Content:    content,
		Locations:  ap.u.locations(req.Meta, req.Args, req.Capability),
		RawInput:   rawArgs(req.Args),
	}
}

// fileDiff is the dry run of a write to one file as ACP diff content: the
// file as it is and as the call would leave it.
func (ap *approver) fileDiff(req approval.Request) (acpsdk.ToolCallContent, bool) {
	c := tools.ParseCapability(req.Capability)
	if c.Kind != "fs" || c.Action != "write" || c.Target == "" || !strings.HasPrefix(req.Preview, "--- ") {
		return acpsdk.ToolCallContent{}, false
	}
	path := filepath.Join(ap.ss.es.Workspace(), filepath.FromSlash(c.Target))
	old, err := os.ReadFile(path)
	isNew := errors.Is(err, os.ErrNotExist)
	if err != nil && !isNew {
		return acpsdk.ToolCallContent{}, false
	}
	next, ok := applyUnified(string(old), req.Preview)
	if !ok {
		return acpsdk.ToolCallContent{}, false
	}
	if isNew {
		return acpsdk.ToolDiffContent(path, next), true
	}
	return acpsdk.ToolDiffContent(path, next, string(old)), true
}

// dryRunText is the rest of the dry run: summary, why it asks, the
// command with its warnings, the host, how it runs, the undo plan and the
// untrusted-text warning.
func dryRunText(req approval.Request, preview string) string {
	var b strings.Builder
	line := func(s string) { b.WriteString(termtext.Visible(s) + "\n") }
	line(req.Summary)
	if req.Why != "" {
		line("Asks because " + req.Why + ".")
	}
	if req.Meta.Shell {
		var a struct {
			Command string `json:"command"`
		}
		// The preview of a command line shows it already.
		if json.Unmarshal(req.Args, &a) == nil && a.Command != "" && !strings.Contains(preview, a.Command) {
			b.WriteString(fence("sh", "$ "+termtext.Visible(a.Command)) + "\n")
		}
	}
	if cl := req.Command; cl != nil {
		for _, w := range cl.Warnings {
			line("⚠ " + w)
		}
		if cl.Risk == tools.RiskHigh && cl.RiskWhy != "" && !slices.Contains(cl.Warnings, cl.RiskWhy) {
			line("⚠ high risk: " + cl.RiskWhy)
		}
		if cl.NotUndoable != "" {
			line("⚠ not undoable: " + cl.NotUndoable)
		}
	}
	if c := tools.ParseCapability(req.Capability); c.Kind == "net" && c.Target != "" {
		line("Network host: " + c.Target)
	}
	if req.Confinement != nil {
		line("Runs: " + req.Confinement.String())
	}
	if t := req.Taint; t != nil {
		if where := approval.DrawnFrom(req); where != "" {
			line("⚠ " + where + ": this call may be following instructions planted there.")
		} else {
			line("⚠ This call follows untrusted content from " + t.Source + ": it may be acting on instructions planted there.")
		}
	}
	switch {
	case req.Previewed:
		line("Previewed: nothing changed yet; allowing applies exactly what the preview did.")
	case req.Reversible && req.UndoPlan != "":
		line("Undo: " + req.UndoPlan)
	case req.Reversible:
		line("Undo: /undo can revert it.")
	default:
		line("Not undoable.")
	}
	if preview != "" {
		lang := ""
		if strings.HasPrefix(preview, "--- ") {
			lang = "diff"
		}
		b.WriteString(fence(lang, termtext.Visible(bounded(preview))))
	}
	return strings.TrimRight(b.String(), "\n")
}

// callOf is the call a request is about.
func callOf(req approval.Request) agent.Call {
	return agent.Call{ID: req.CallID, Tool: req.Tool, Args: req.Args}
}
