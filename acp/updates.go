package acp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"

	"myclaw/agent"
	"myclaw/tools"
	"myclaw/tools/termtext"
)

// shownBytes bounds a tool's output as the editor's card shows it (the
// model reads the whole, bounded by the tool).
const shownBytes = 16 << 10

// updater turns a turn's agent events into session updates. The loop
// emits from one goroutine; the lock is for the approver and mentions.
type updater struct {
	ss    *session
	turn  int
	metas map[string]tools.Meta

	mu    sync.Mutex
	seq   int
	calls map[string]*callState
	done  agent.DoneEvent
	// failed is the error that stopped the turn, with its hint.
	failed string
}

// callState is what the editor knows of one call.
type callState struct {
	id    acpsdk.ToolCallId
	meta  tools.Meta
	args  json.RawMessage
	title string
	// decided says who allowed or denied the call without asking the
	// editor ("level: full", "rule: …"), or, once asked, the answer.
	decided string
	asked   bool
}

func newUpdater(ss *session, turn int, infos []agent.ToolInfo) *updater {
	u := &updater{ss: ss, turn: turn, metas: map[string]tools.Meta{}, calls: map[string]*callState{}}
	for _, t := range infos {
		u.metas[t.Meta.Name] = t.Meta
	}
	return u
}

// call returns the state of c, announcing it to the editor first.
func (u *updater) call(c agent.Call, summary string) *callState {
	u.mu.Lock()
	st := u.calls[c.ID]
	if st == nil {
		u.seq++
		meta, ok := u.metas[c.Tool]
		if !ok {
			meta = tools.Meta{Name: c.Tool}
		}
		st = &callState{id: acpsdk.ToolCallId(fmt.Sprintf("t%d-%d-%s", u.turn, u.seq, c.ID)), meta: meta, args: c.Args}
		u.calls[c.ID] = st
		st.title = title(c.Tool, summary, c.Args)
		u.mu.Unlock()
		u.ss.send(acpsdk.StartToolCall(st.id, st.title,
			acpsdk.WithStartKind(kindOf(meta)),
			acpsdk.WithStartStatus(acpsdk.ToolCallStatusPending),
			acpsdk.WithStartLocations(u.locations(meta, c.Args, "")),
			acpsdk.WithStartRawInput(rawArgs(c.Args))))
		return st
	}
	u.mu.Unlock()
	return st
}

// emit is the agent's event sink.
func (u *updater) emit(e agent.Event) {
	switch ev := e.(type) {
	case agent.TextDelta:
		u.ss.send(acpsdk.UpdateAgentMessageText(termtext.Visible(ev.Text)))
	case agent.ReasoningDelta:
		u.ss.send(acpsdk.UpdateAgentThoughtText(termtext.Visible(ev.Text)))
	case agent.ToolCallEvent:
		st := u.call(ev.Call, ev.Summary)
		if ev.Phase == "started" {
			upd := &acpsdk.SessionToolCallUpdate{ToolCallId: st.id, Status: acpsdk.Ptr(acpsdk.ToolCallStatusInProgress)}
			if ev.Summary != "" {
				upd.Title = acpsdk.Ptr(title(ev.Call.Tool, ev.Summary, ev.Call.Args))
			}
			upd.Content = u.labels(st)
			upd.Meta = decidedMeta(st)
			u.ss.send(acpsdk.SessionUpdate{ToolCallUpdate: upd})
		}
	case agent.ApprovalEvent:
		u.decided(ev)
	case agent.ToolResultEvent:
		u.result(ev)
	case agent.PlanEvent:
		if ev.Proposal != nil {
			u.proposed(*ev.Proposal)
			break
		}
		u.ss.send(acpsdk.UpdatePlan(planEntries(ev.Items)...))
	case agent.NoticeEvent:
		u.ss.es.Logf("acp: session %s: notice: %s", u.ss.id, ev.Text)
		if ev.Warning {
			u.ss.text("\n⚠ " + ev.Text + "\n")
		}
	case agent.CompactionEvent:
		u.ss.text(fmt.Sprintf("\n(Compacted %d earlier messages into a summary, ~%d tokens.)\n", ev.Replaced, ev.Tokens))
	case agent.ErrorEvent:
		msg := ev.Message
		if ev.Hint != "" {
			msg += " " + ev.Hint
		}
		u.mu.Lock()
		u.failed = msg
		u.mu.Unlock()
		u.ss.text("\nError: " + msg + "\n")
	case agent.RetryEvent:
		u.ss.es.Logf("acp: session %s: retry %d/%d: %s", u.ss.id, ev.Attempt, ev.Max, ev.Reason)
	case agent.DoneEvent:
		u.mu.Lock()
		u.done = ev
		u.mu.Unlock()
	}
}

// decided records a decision made without the editor: the call's card
// names the rule, level or hook that made it.
func (u *updater) decided(ev agent.ApprovalEvent) {
	if ev.Phase != "decided" || ev.Decision == nil {
		return
	}
	u.mu.Lock()
	st := u.calls[ev.CallID]
	u.mu.Unlock()
	if st == nil || st.asked {
		return
	}
	verb := "allowed by "
	if !ev.Decision.Approved() {
		verb = "denied by "
	}
	st.decided = verb + ev.Decision.By
	u.ss.send(acpsdk.SessionUpdate{ToolCallUpdate: &acpsdk.SessionToolCallUpdate{ToolCallId: st.id, Content: u.labels(st), Meta: decidedMeta(st)}})
}

// labels is the card's first content: who decided.
func (u *updater) labels(st *callState) []acpsdk.ToolCallContent {
	if st.decided == "" {
		return nil
	}
	return []acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(termtext.Visible(upperFirst(st.decided)) + "."))}
}

// decidedMeta carries the decision for clients that read it.
func decidedMeta(st *callState) map[string]any {
	if st.decided == "" {
		return nil
	}
	return map[string]any{"myclaw": map[string]any{"decided": st.decided}}
}

// result ends a call's card.
func (u *updater) result(ev agent.ToolResultEvent) {
	st := u.call(ev.Call, ev.Summary)
	u.mu.Lock()
	delete(u.calls, ev.Call.ID)
	u.mu.Unlock()
	status := acpsdk.ToolCallStatusCompleted
	if ev.Status != agent.StatusOK || ev.Failed() {
		status = acpsdk.ToolCallStatusFailed
	}
	content := u.labels(st)
	add := func(s string) {
		if strings.TrimSpace(s) != "" {
			content = append(content, acpsdk.ToolContent(acpsdk.TextBlock(s)))
		}
	}
	switch ev.Status {
	case agent.StatusOK:
		add(termtext.Visible(ev.Summary))
	case agent.StatusCancelled:
		add("Cancelled: it did not run.")
	default:
		msg := termtext.Visible(ev.Message)
		if ev.Status == agent.StatusDenied {
			msg = "Denied: " + msg
		}
		add(msg)
	}
	if ev.Diff != "" {
		add(fence("diff", termtext.Visible(bounded(ev.Diff))))
	}
	if ev.Body != "" {
		body := fence("", termtext.Visible(bounded(ev.Body)))
		if ev.Untrusted {
			// The fence the model reads, kept as a label the editor shows.
			from := ev.Source
			if !ev.RetrievedAt.IsZero() {
				from += ", retrieved " + ev.RetrievedAt.UTC().Format("2006-01-02 15:04 UTC")
			}
			body = "⚠ Untrusted content from " + termtext.Visible(from) + ": the model reads it as data, not instructions.\n" + body
		}
		add(body)
	}
	if ev.Reversible {
		add("/undo can revert this call.")
	}
	var locs []acpsdk.ToolCallLocation
	if c := tools.ParseCapability(st.meta.Capability); c.Kind == "fs" {
		locs = u.locations(st.meta, ev.Call.Args, "")
	}
	upd := &acpsdk.SessionToolCallUpdate{
		ToolCallId: st.id, Status: &status, Content: content, Locations: locs,
		RawOutput: bounded(ev.Content), Meta: decidedMeta(st),
	}
	if ev.Status == agent.StatusOK && ev.Summary != "" {
		upd.Title = acpsdk.Ptr(title(ev.Call.Tool, ev.Summary, ev.Call.Args))
	}
	u.ss.send(acpsdk.SessionUpdate{ToolCallUpdate: upd})
}

// locations are the files a call touches: its concrete capability's
// target, else its "path" argument, for file tools.
func (u *updater) locations(meta tools.Meta, args json.RawMessage, capability string) []acpsdk.ToolCallLocation {
	target := ""
	if c := tools.ParseCapability(capability); c.Kind == "fs" && c.Target != "" {
		target = c.Target
	} else if c := tools.ParseCapability(meta.Capability); c.Kind == "fs" {
		var a struct {
			Path string `json:"path"`
		}
		_ = json.Unmarshal(args, &a)
		target = a.Path
	}
	if target == "" {
		return nil
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(u.ss.es.Workspace(), filepath.FromSlash(target))
	}
	return []acpsdk.ToolCallLocation{{Path: target}}
}

// kindOf is the ACP kind of a tool, from what it declares.
func kindOf(m tools.Meta) acpsdk.ToolKind {
	c := tools.ParseCapability(m.Capability)
	switch {
	case m.Shell:
		return acpsdk.ToolKindExecute
	case c.Kind == "fs" && c.Action == "read":
		return acpsdk.ToolKindRead
	case c.Kind == "fs":
		return acpsdk.ToolKindEdit
	case c.Kind == "net":
		return acpsdk.ToolKindFetch
	case c.Kind == "plan":
		return acpsdk.ToolKindThink
	}
	return acpsdk.ToolKindOther
}

// title is a call's one-line title.
func title(tool, summary string, args json.RawMessage) string {
	what := summary
	if what == "" {
		what = string(args)
	}
	return termtext.OneLine(tool+": "+strings.ReplaceAll(what, "`", ""), 160)
}

func rawArgs(args json.RawMessage) any {
	if !json.Valid(args) {
		return string(args)
	}
	return args
}

// proposed sends a plan submitted in plan mode: its steps, with the files
// each names, as the session's plan, and its rationale and how to accept
// it as text. It waits for the mode to change (which accepts it) or for a
// prompt in plan mode (which revises it).
func (u *updater) proposed(p tools.Proposal) {
	u.ss.mu.Lock()
	u.ss.proposal = &p
	u.ss.mu.Unlock()
	entries := make([]acpsdk.PlanEntry, 0, len(p.Steps))
	for _, s := range p.Steps {
		text := s.Title
		if len(s.Files) > 0 {
			text += " (" + strings.Join(s.Files, ", ") + ")"
		}
		entries = append(entries, acpsdk.PlanEntry{Content: termtext.OneLine(text, 0), Priority: acpsdk.PlanEntryPriorityMedium, Status: acpsdk.PlanEntryStatusPending})
	}
	u.ss.send(acpsdk.UpdatePlan(entries...))
	u.ss.text("\nPlan: " + p.Rationale + "\n\nTo accept it, switch the mode to Ask, Auto-edit or Full, then send a prompt; to revise it, stay in Plan mode and say what to change.\n")
}

func planEntries(items []tools.PlanItem) []acpsdk.PlanEntry {
	out := make([]acpsdk.PlanEntry, 0, len(items))
	for _, it := range items {
		st := acpsdk.PlanEntryStatusPending
		switch it.Status {
		case tools.PlanInProgress:
			st = acpsdk.PlanEntryStatusInProgress
		case tools.PlanDone:
			st = acpsdk.PlanEntryStatusCompleted
		}
		out = append(out, acpsdk.PlanEntry{Content: termtext.Visible(it.Text), Priority: acpsdk.PlanEntryPriorityMedium, Status: st})
	}
	return out
}

// bounded cuts s for display.
func bounded(s string) string {
	if len(s) <= shownBytes {
		return s
	}
	cut := shownBytes
	for cut > 0 && s[cut]&0xc0 == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n… %d more bytes not shown", len(s)-cut)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
