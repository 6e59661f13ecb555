// Package approval gates tool calls behind user consent.
//
// A Policy turns the autonomy level, the config rules and the grants made
// during the session into a verdict for each call: allow, ask or deny. What
// asks goes to an Approver (the TUI pane, or headless mode that denies), whose
// Decision comes back to the agent loop. Every verdict and decision is
// appended to the audit log.
package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"myclaw/tools"
)

// Level is how much the agent may do without asking.
type Level string

// Autonomy levels.
const (
	// ReadOnly hides side-effecting tools from the catalog entirely.
	ReadOnly Level = "readonly"
	// Ask asks before every side-effecting call. The default.
	Ask Level = "ask"
	// AutoEdit approves calls that have a faithful dry run, risk below high
	// and stay in the workspace; the rest ask.
	AutoEdit Level = "auto-edit"
	// Full approves everything; deny rules still hold.
	Full Level = "full"
)

// Levels lists the autonomy levels from least to most autonomous.
var Levels = []Level{ReadOnly, Ask, AutoEdit, Full}

// ParseLevel reads a level name.
func ParseLevel(s string) (Level, error) {
	for _, l := range Levels {
		if string(l) == s {
			return l, nil
		}
	}
	return "", fmt.Errorf("unknown autonomy level %q: want readonly, ask, auto-edit or full", s)
}

// Taint records that untrusted content entered the conversation earlier in
// the turn, so a call may be following instructions planted in it.
type Taint struct {
	// Source is where the untrusted content came from, e.g. "web:example.com/x".
	Source string
	// Seen is every untrusted text of the turn so far, oldest first: a
	// sandboxed command drawn from one of them still asks.
	Seen []Seen
	// Calls is the index in the turn of the call being decided.
	Calls int
}

// Seen is one untrusted text that entered the turn.
type Seen struct {
	Source string
	Text   string
	// Call is the index in the turn of the call that brought it.
	Call int
}

// EarlierBytes bounds the untrusted text of earlier turns a session keeps
// as evidence (Request.Earlier): the oldest goes first.
const EarlierBytes = 2 << 20

// KeepEarlier appends texts to the evidence of earlier turns and drops the
// oldest past EarlierBytes.
func KeepEarlier(earlier []Seen, texts ...Seen) []Seen {
	earlier = append(earlier, texts...)
	total := 0
	for i := len(earlier) - 1; i >= 0; i-- {
		total += len(earlier[i].Text)
		if total > EarlierBytes {
			return slices.Clone(earlier[i+1:])
		}
	}
	return earlier
}

// Confinement is how a shell command would run: in the OS sandbox or not,
// with or without network.
type Confinement struct {
	Sandboxed bool
	Network   bool
	// Why says, when not sandboxed, why not.
	Why string
	// HostProxy: without network, hosts are reachable one at a time
	// through myclaw's proxy, each asked about (NetworkTool).
	HostProxy bool
	// ReadOnly: the workspace is read-only and there is no network (plan
	// mode); no decision grants either.
	ReadOnly bool
	// Discarded: the command runs over a scratch copy of the workspace
	// that is thrown away when it ends, without network (an explore
	// agent's shell); no decision grants network.
	Discarded bool
	// Layer: the command runs in an edit agent's copy-on-write layer,
	// without network; its writes reach the workspace only through the
	// agent's merge. No decision grants network.
	Layer bool
}

// String is the line the approval pane shows.
func (c Confinement) String() string {
	switch {
	case !c.Sandboxed && c.Why != "":
		return "not sandboxed: " + c.Why
	case !c.Sandboxed:
		return "not sandboxed"
	case c.ReadOnly:
		return "sandbox: read-only (plan mode), no network"
	case c.Discarded:
		return "sandbox: on a scratch copy of the workspace, its writes discarded, no network"
	case c.Layer:
		return "sandbox: in the edit agent's layer, its writes reach the workspace only through the merge, no network"
	case c.Network:
		return "sandbox: writes in workspace + temp, network allowed"
	case c.HostProxy:
		return "sandbox: writes in workspace + temp, network only to hosts you allow"
	}
	return "sandbox: writes in workspace + temp, no network"
}

// Tool is the confinement as shell_run takes it.
func (c Confinement) Tool() tools.Confinement {
	return tools.Confinement{Sandboxed: c.Sandboxed, Network: c.Network && !c.ReadOnly && !c.Discarded && !c.Layer, ReadOnly: c.ReadOnly}
}

// Request is one call that needs a decision, with everything the person
// needs to make it.
type Request struct {
	CallID string
	// Tool is the display name; Meta is the tool's declaration.
	Tool string
	Meta tools.Meta
	// Args are the validated, canonical arguments that would run.
	Args json.RawMessage
	// Capability is the call's concrete capability, e.g. "fs:write:a.txt".
	Capability string
	// Summary and Preview come from the dry run; Unchanged says it found
	// nothing to change (a write of the content already there).
	Summary   string
	Preview   string
	Unchanged bool
	// Reversible says whether /undo can walk the call back; UndoPlan says how.
	Reversible bool
	UndoPlan   string
	// Command is the parsed command line, for shell_run.
	Command *tools.CommandLine
	// Taint is set when untrusted content came earlier in the turn.
	Taint *Taint
	// Earlier holds the untrusted texts read in earlier turns of the
	// session (bounded, see KeepEarlier): a command planted in one still
	// asks in a later turn.
	Earlier []Seen
	// Confinement is, for a shell command, how it runs if approved as is.
	Confinement *Confinement
	// Why says why the policy asks rather than allows, e.g. "auto-edit asks
	// for shell commands after untrusted content (web:example.com)".
	Why string
	// Previewable says the call can run first as a preview (a shell
	// command in a copy-on-write layer); Previewed says it did, and that
	// Summary and Preview show what it printed and would change: approving
	// applies exactly that.
	Previewable, Previewed bool
	// Conflicts names the workspace files a previewed merge (an edit
	// agent's) cannot merge; the person may resolve them in the workspace
	// and have it proposed again (Repropose).
	Conflicts []string
	// OutsidePlan lists, once the person accepted a plan, the files the
	// call writes that no step of it names.
	OutsidePlan []string
	// From says, for a sub-agent's call, which agent asks and how it got
	// there (its task, its last step); "" for the main conversation's.
	From string
	// Position and Count place the call among the calls of the model's
	// answer ("call 1 of 2"); Count is 0 or 1 for a call on its own.
	Position, Count int
}

// Choice is what a person (or a rule) decided.
type Choice string

// Choices.
const (
	// ApproveOnce runs this call.
	ApproveOnce Choice = "approve"
	// ApproveSession runs this call and grants the same tool (or, for
	// shell_run, the same command prefix) for the rest of the session.
	ApproveSession Choice = "approve_session"
	// Deny refuses the call; the turn goes on.
	Deny Choice = "deny"
	// Edit runs the call with edited arguments, validated again first.
	Edit Choice = "edit"
	// Preview runs the call first where its changes land in a scratch
	// layer (Request.Previewable); the person then decides on the result.
	Preview Choice = "preview"
	// Repropose proposes a previewed merge again against the workspace as
	// it is now, once the person resolved a conflict there; it decides
	// nothing yet.
	Repropose Choice = "repropose"
)

// Decision answers a Request.
type Decision struct {
	Choice Choice `json:"choice"`
	// Reason is the person's words on a denial; the model reads them.
	Reason string `json:"reason,omitempty"`
	// Args are the edited arguments, for Edit.
	Args json.RawMessage `json:"args,omitempty"`
	// SaveRule asks, with ApproveSession, that the grant be written to the
	// config as a permanent rule.
	SaveRule bool `json:"save_rule,omitempty"`
	// UserWide, with SaveRule, saves the rule for every project rather
	// than for this workspace only.
	UserWide bool `json:"user_wide,omitempty"`
	// Network approves a sandboxed shell command with network access
	// (with ApproveSession, for the granted commands from now on).
	Network bool `json:"network,omitempty"`
	// TrustHints, on an approval of a tool that claims to be read-only
	// (Meta.HintServer), also trusts the read-only hints of that server's
	// tools in this project from now on (see HintGrant).
	TrustHints bool `json:"trust_hints,omitempty"`
	// By names who decided: "user", "rule: <rule>", "level: full",
	// "headless", "hook: <command>".
	By string `json:"by"`
}

// Approved reports whether the decision lets the call run.
func (d Decision) Approved() bool {
	return d.Choice == ApproveOnce || d.Choice == ApproveSession || d.Choice == Edit
}

// Approver asks for decisions. Approve blocks until the decision is made or
// ctx ends, in which case it returns ctx.Err().
type Approver interface {
	Approve(ctx context.Context, req Request) (Decision, error)
}
