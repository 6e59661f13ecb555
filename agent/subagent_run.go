package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sashabaranov/go-openai"

	"myclaw/approval"
	"myclaw/tools"
)

// RequestSubagent is a sub-agent's request, as /cost splits them.
const RequestSubagent = "agent"

// SubagentRun is one sub-agent, running or finished, for /agents.
type SubagentRun struct {
	ID          string
	CallID      string
	Description string
	Mode        string
	AgentType   string
	Model       string
	Prompt      string
	Started     time.Time

	cancel context.CancelCauseFunc

	mu      sync.Mutex
	status  string // "running", then as SubagentResultEvent.Status
	step    string
	calls   int
	tokens  int
	ended   time.Time
	events  []Event
	watch   []chan struct{}
	read    []string // the sources of the untrusted content it read
	message string
}

// SubagentInfo is a snapshot of a sub-agent.
type SubagentInfo struct {
	ID, Description, Mode, AgentType, Model, Prompt string
	Status, Step, Message                           string
	Calls, Tokens                                   int
	Started                                         time.Time
	Elapsed                                         time.Duration
	Running                                         bool
}

// Info returns a snapshot of the run.
func (r *SubagentRun) Info() SubagentInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	end := r.ended
	if end.IsZero() {
		end = time.Now()
	}
	return SubagentInfo{ID: r.ID, Description: r.Description, Mode: r.Mode, AgentType: r.AgentType, Model: r.Model, Prompt: r.Prompt,
		Status: r.status, Step: r.step, Message: r.message, Calls: r.calls, Tokens: r.tokens, Started: r.Started, Elapsed: end.Sub(r.Started), Running: r.ended.IsZero()}
}

// Events returns the events of the sub-agent's turn so far, and a channel
// closed at the next one (or at once when it has ended), for a live view.
func (r *SubagentRun) Events() ([]Event, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ch := make(chan struct{})
	if r.ended.IsZero() {
		r.watch = append(r.watch, ch)
	} else {
		close(ch)
	}
	return slices.Clone(r.events), ch
}

// Cancel stops the sub-agent; an edit agent's layer is discarded.
func (r *SubagentRun) Cancel() {
	if r.cancel != nil {
		r.cancel(errCancelledAgent)
	}
}

var (
	errCancelledAgent = errors.New("the user cancelled this agent")
	errTokenBudget    = errors.New("the agent used up its token budget")
)

// record keeps one event of the sub-agent's turn.
func (r *SubagentRun) record(e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev := e.(type) {
	case TextDelta, ReasoningDelta, ToolOutputEvent:
		// Kept for the live view, but coalesced: the screen needs the text.
		if n := len(r.events); n > 0 {
			if merged, ok := coalesce(r.events[n-1], e); ok {
				r.events[n-1] = merged
				r.wake()
				return
			}
		}
	case ToolCallEvent:
		if ev.Phase == "started" {
			r.step = oneLine(ev.Call.Tool+": "+firstNonEmpty(ev.Summary, string(ev.Call.Args)), 120)
		}
	case ToolResultEvent:
		r.calls++
		if ev.Summary != "" {
			r.step = oneLine(ev.Call.Tool+": "+ev.Summary, 120)
		}
		if ev.Untrusted && !slices.Contains(r.read, ev.Source) {
			r.read = append(r.read, ev.Source)
		}
	case UsageEvent:
		r.tokens += max(ev.TotalTokens, ev.PromptTokens+ev.CompletionTokens)
	}
	r.events = append(r.events, e)
	r.wake()
}

func (r *SubagentRun) wake() {
	for _, ch := range r.watch {
		close(ch)
	}
	r.watch = nil
}

func coalesce(prev, e Event) (Event, bool) {
	switch p := prev.(type) {
	case TextDelta:
		if n, ok := e.(TextDelta); ok {
			return TextDelta{Text: p.Text + n.Text}, true
		}
	case ReasoningDelta:
		if n, ok := e.(ReasoningDelta); ok {
			return ReasoningDelta{Text: p.Text + n.Text}, true
		}
	}
	return nil, false
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// origin is how a sub-agent's question got to the pane: its task and its
// last step.
func (r *SubagentRun) origin() string {
	r.mu.Lock()
	step := r.step
	r.mu.Unlock()
	s := fmt.Sprintf("asked by agent %q (%s) · task: %s", r.Description, r.Mode, oneLine(r.Prompt, 160))
	if step != "" {
		s += " · last step: " + step
	}
	return s
}

// Subagents lists the sub-agents of this session's run, oldest first.
func (a *Agent) Subagents() []*SubagentRun {
	t, ok := a.opts.Registry.Lookup(SubagentTool)
	if !ok {
		return nil
	}
	s, ok := t.(*subagentTool)
	if !ok {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.runs)
}

// parentKey carries the turn that called the agent tool.
type parentKey struct{}

// subOutcome is what a finished sub-agent left.
type subOutcome struct {
	run    *SubagentRun
	report string
}

// result is what the caller reads: the report, fenced when the sub-agent
// read untrusted content. files, for a merge, are the files it changed.
func (o *subOutcome) result(files []string) tools.Result {
	info := o.run.Info()
	out := map[string]any{"agent": info.Description, "mode": info.Mode, "tool_calls": info.Calls, "tokens": info.Tokens}
	if info.Status != "done" {
		out["stopped"] = info.Message
	}
	if files != nil {
		out["merged_files"] = files
	}
	res := tools.Result{Output: out, Body: o.report, Summary: fmt.Sprintf("Agent %q: %d tool calls, %d tokens", info.Description, info.Calls, info.Tokens)}
	o.run.mu.Lock()
	if len(o.run.read) > 0 {
		res.Source = "agent:" + info.Description + " (read " + strings.Join(o.run.read, ", ") + ")"
	}
	o.run.mu.Unlock()
	return res
}

// UntrustedResult says the report reaches the caller fenced: the
// sub-agent read untrusted content (result sets Source then).
func (s *subagentTool) UntrustedResult(res tools.Result) bool { return res.Source != "" }

// run runs one sub-agent to its end. layer is an edit agent's, nil for
// an explore agent.
func (s *subagentTool) run(ctx context.Context, a subagentArgs, layer EditLayer) (*subOutcome, error) {
	parent, _ := ctx.Value(parentKey{}).(*turn)
	if parent == nil {
		return nil, errors.New("the agent tool runs only within a turn")
	}
	p := parent.a
	def, _ := s.definition(a.AgentType)
	model := p.Model()
	if def.Model != "" {
		model = def.Model
	}
	reg, err := s.catalog(p, a.Mode, def, layer)
	if err != nil {
		return nil, err
	}
	if s.opts.Store == nil {
		return nil, errors.New("no place to keep the agent's transcript")
	}
	p.mu.Lock()
	parentID := p.session.Info().ID
	p.mu.Unlock()
	s.pruned.Do(func() {
		n, err := PruneSubagentTranscripts(s.opts.Store, p.opts.Store, parentID, time.Now(), KeepSubagentTranscripts, SubagentTranscriptAge)
		if err != nil {
			p.opts.Logf("prune sub-agent transcripts: %v", err)
		} else if n > 0 {
			p.opts.Logf("pruned %d old sub-agent transcripts", n)
		}
	})
	session, err := s.opts.Store.NewSession(p.opts.Workspace, model)
	if err != nil {
		return nil, fmt.Errorf("start the agent's transcript: %w", err)
	}
	_ = session.SetTitle(a.Description)
	if err := noteParent(session, parentID); err != nil {
		p.opts.Logf("sub-agent transcript: %v", err)
	}

	// One slot of the parallel limit per running sub-agent.
	select {
	case s.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-s.slots }()

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ctx, stop := context.WithTimeoutCause(ctx, s.opts.Timeout, fmt.Errorf("the agent ran out of time (%s)", s.opts.Timeout))
	defer stop()
	callID, _ := ctx.Value(callIDKey{}).(string)
	s.mu.Lock()
	s.seq++
	run := &SubagentRun{ID: fmt.Sprintf("a%d", s.seq), CallID: callID, Description: a.Description, Mode: a.Mode, AgentType: a.AgentType,
		Model: model, Prompt: a.Prompt, Started: time.Now(), status: "running", cancel: cancel}
	s.runs = append(s.runs, run)
	s.mu.Unlock()

	o := p.opts
	o.Registry, o.Store, o.Session = reg, s.opts.Store, session
	o.Model, o.MaxRounds = model, s.opts.MaxRounds
	o.ContextWindow = p.currentWindow().Tokens
	o.Instructions, o.UserTools, o.Withdrawn, o.PreviewShell = nil, UserTools{Root: o.UserTools.Root}, nil, false
	sub, err := New(o)
	if err != nil {
		return nil, err
	}
	sub.role = subagentRole(a, def, layer != nil) + p.opts.Instructions.section()
	// What the caller read is evidence for the sub-agent's calls too: a
	// command planted there still asks when the sub-agent makes it.
	p.mu.Lock()
	sub.earlier = slices.Clone(p.earlier)
	p.mu.Unlock()
	if parent.taint != nil {
		sub.earlier = approval.KeepEarlier(sub.earlier, parent.taint.Seen...)
	}

	parent.emit(SubagentStartEvent{ID: run.ID, CallID: callID, Description: a.Description, Mode: a.Mode, AgentType: a.AgentType, Model: model})
	note := tools.ProgressNote(ctx)
	emit := func(e Event) {
		run.record(e)
		parent.emit(SubagentEvent{AgentID: run.ID, Event: e})
		if u, ok := e.(UsageEvent); ok {
			u.Kind = RequestSubagent
			p.count(u, model)
			if run.Info().Tokens > s.opts.MaxTokens {
				cancel(errTokenBudget)
			}
		}
		if note != nil {
			switch e.(type) {
			case ToolCallEvent, ToolResultEvent, UsageEvent:
				i := run.Info()
				note(fmt.Sprintf("%s · %s · %s tokens · %s", run.ID, tools.Count(i.Calls, "call"), shortCount(i.Tokens), firstNonEmpty(i.Step, "thinking")))
			}
		}
	}
	approver := parent.approver
	if _, headless := approver.(approval.Headless); !headless {
		approver = subApprover{inner: parent, run: run}
	}
	runErr := sub.Run(ctx, a.Prompt, emit, approver)
	out := &subOutcome{run: run, report: lastAnswer(sub.Messages())}
	status, msg := "done", ""
	switch cause := context.Cause(ctx); {
	case runErr == nil && ctx.Err() == nil:
	case errors.Is(cause, errCancelledAgent) && parent.ctx.Err() == nil:
		status, msg = "cancelled", errCancelledAgent.Error()
	case parent.ctx.Err() != nil:
		status, msg = "cancelled", "the user cancelled the turn"
	case ctx.Err() != nil && cause != nil:
		status, msg = "stopped", cause.Error()
	default:
		status, msg = "error", runErr.Error()
	}
	run.mu.Lock()
	run.status, run.message, run.ended = status, msg, time.Now()
	run.wake()
	read := slices.Clone(run.read)
	run.mu.Unlock()
	info := run.Info()
	parent.emit(SubagentResultEvent{ID: run.ID, CallID: callID, Status: status, Report: out.report, Message: msg,
		Calls: info.Calls, Tokens: info.Tokens, Elapsed: info.Elapsed, Untrusted: read})
	switch status {
	case "cancelled":
		return nil, &tools.Error{Kind: tools.KindUnknown, Message: "the agent was cancelled: " + msg + "; nothing it did reached the workspace", Hint: "The user stopped it. Do not run it again unless asked."}
	case "error":
		return nil, &tools.Error{Kind: tools.KindExternalError, Message: "the agent failed: " + msg, Hint: "Tell the user, or do the task yourself."}
	case "stopped":
		out.report = strings.TrimSpace(out.report + "\n\n[the agent was stopped before it finished: " + msg + "]")
	}
	return out, nil
}

// lastAnswer is the sub-agent's final report: its last answer with text.
func lastAnswer(msgs []openai.ChatCompletionMessage) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if m := msgs[i]; m.Role == openai.ChatMessageRoleAssistant && strings.TrimSpace(m.Content) != "" {
			return strings.TrimSpace(m.Content)
		}
	}
	return ""
}

func shortCount(n int) string {
	if n >= 1000 {
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprint(n)
}

// subagentRole is what the sub-agent's system prompt adds.
func subagentRole(a subagentArgs, def Definition, edit bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n\nYou are a sub-agent: the main agent delegated one task to you (%q). Nobody reads your messages until you finish, and nobody answers questions: work on your own with the tools you have. ", a.Description)
	if edit {
		b.WriteString("You work in a private copy of the workspace: what you change is shown to the user as one merge when you finish. ")
	} else {
		b.WriteString("You only read: you cannot change files, and shell commands you run change nothing in the workspace. ")
	}
	b.WriteString("When you are done, answer with a concise report: what you found or changed, with file paths and line numbers where they help. It is all the main agent gets.")
	if def.Prompt != "" {
		b.WriteString("\n\n" + def.Prompt)
	}
	return b.String()
}

// subApprover puts a sub-agent's questions to its caller's approver,
// labelled with where they come from, one at a time.
type subApprover struct {
	inner *turn
	run   *SubagentRun
}

// Approve implements approval.Approver.
func (s subApprover) Approve(ctx context.Context, req approval.Request) (approval.Decision, error) {
	req.From = s.run.origin()
	return s.inner.approveOne(ctx, req)
}

// approveOne asks the turn's approver, one question at a time: calls of
// one answer (agents) may ask together.
func (t *turn) approveOne(ctx context.Context, req approval.Request) (approval.Decision, error) {
	select {
	case t.asking <- struct{}{}:
	case <-ctx.Done():
		return approval.Decision{}, ctx.Err()
	}
	defer func() { <-t.asking }()
	return t.approver.Approve(ctx, req)
}

// callIDKey carries the id of the call a tool runs for.
type callIDKey struct{}
