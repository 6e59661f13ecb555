package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/tools"
	"myclaw/tools/mcp"
	"myclaw/tools/termtext"
	"myclaw/ui"
)

// RunHeadless runs one task without a person: assistant text on stdout,
// activity on stderr (or one JSON event per line on stdout, start-up
// failures included, ending with a result event). Calls that would ask are
// denied.
func RunHeadless(ctx context.Context, o Options, secrets map[string]string, stdout, stderr io.Writer) error {
	p := newPrinter(o.Output == "json", stdout, stderr)
	err := headlessTask(ctx, o, secrets, p)
	p.finish()
	if p.json {
		return p.result(err)
	}
	return err
}

func headlessTask(ctx context.Context, o Options, secrets map[string]string, p *printer) error {
	a, err := newApp(o, secrets)
	if err != nil {
		return err
	}
	defer a.close()
	ag, err := a.buildAgent()
	if err != nil {
		return err
	}
	if o.Plan {
		ag.SetAutonomy(approval.Plan)
	}
	// Not ag.Status(): that also estimates the context, a whole request
	// marshalled, which nothing here shows.
	p.session(sessionEvent{SessionID: ag.Session().Info().ID, Workspace: a.workspace.Dir(), Model: ag.Model()})
	for _, n := range a.notices {
		p.notice(n.Text, n.Warning)
	}
	if w := a.fullWarning(); w != "" {
		p.notice(w, true)
	}
	if err := ag.CheckServer(ctx); err != nil {
		return err
	}
	a.startMCP(ctx, func(s mcp.ServerStatus) {
		switch {
		case s.State == mcp.StateFailed && (s.Auth == mcp.AuthNeeded || s.Auth == mcp.AuthExpired):
			// No browser is ever opened headless.
			p.notice(fmt.Sprintf("MCP server %s is not logged in (%s); log in with: myclaw mcp login %s", s.Name, s.Auth, s.Name), true)
		case s.State == mcp.StateFailed:
			p.notice(fmt.Sprintf("MCP server %s failed: %s", s.Name, s.LastError), true)
		}
	})
	// A headless task cannot wait for tools that show up later: give the
	// servers their start-up time first.
	a.waitMCP(ctx)
	if o.Goal.Text != "" {
		return a.headlessGoal(ctx, ag, o.Goal, p)
	}
	err = ag.Run(ctx, o.Prompt, p.print, approval.Headless{})
	switch {
	case err != nil && errors.Is(err, context.Canceled):
		return err
	case err != nil:
		// The error event already said what happened.
		return ErrReported
	case p.done.Reason == agent.DoneLimit:
		return ErrReported
	case o.Plan:
		return p.planOutcome()
	}
	return nil
}

// printer writes a turn's events for scripts. The loop emits one event at
// a time; MCP notices may come from another goroutine, hence the lock.
type printer struct {
	json     bool
	out, err io.Writer
	enc      *json.Encoder
	mu       sync.Mutex

	// midLine is set when the last text written to out did not end a line.
	midLine bool
	// text holds back a control sequence cut between deltas.
	text  termtext.Stream
	round roundText
	// answer is the whole answer as shown, for the result event.
	answer    strings.Builder
	sessionID string
	usage     usageTotals
	done      agent.DoneEvent
	// asked holds, by call, why a call headless denied asked: the person
	// reading stderr is told how to allow it.
	asked map[string]string
	// proposal is the last plan the model submitted (plan mode).
	proposal *tools.Proposal
}

// usageTotals sums the token use of the task's requests to the model: the
// turn's, and a compaction's when the conversation had to be compacted.
type usageTotals struct {
	Requests         int `json:"requests"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	// CachedTokens are the prompt tokens the server took from its prompt
	// cache, summed over the requests that reported it.
	CachedTokens  *int `json:"cached_tokens,omitempty"`
	ContextWindow int  `json:"context_window,omitempty"`
	// ByKind splits the totals by what the requests were for ("turn",
	// "compaction").
	ByKind map[string]*kindTotals `json:"by_kind,omitempty"`
}

// kindTotals is the token use of one kind of request.
type kindTotals struct {
	Requests         int `json:"requests"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

func addCached(sum *int, n int) *int {
	if sum != nil {
		n += *sum
	}
	return &n
}

func newPrinter(asJSON bool, stdout, stderr io.Writer) *printer {
	p := &printer{json: asJSON, out: stdout, err: stderr}
	if asJSON {
		p.enc = json.NewEncoder(stdout)
		p.enc.SetEscapeHTML(false)
	}
	return p
}

// sessionEvent is the first event of `--output json`: which session the
// task runs in, so a script can `myclaw undo --session ID`.
type sessionEvent struct {
	SessionID string `json:"session_id"`
	Workspace string `json:"workspace"`
	Model     string `json:"model"`
}

func (sessionEvent) Type() string { return "session" }

// resultEvent is the last event of `--output json`.
type resultEvent struct {
	SessionID string      `json:"session_id,omitempty"`
	Text      string      `json:"text"`
	Reason    string      `json:"reason"`
	ExitCode  int         `json:"exit_code"`
	Rounds    int         `json:"rounds"`
	Usage     usageTotals `json:"usage"`
	Error     string      `json:"error,omitempty"`
}

func (resultEvent) Type() string { return "result" }

func (p *printer) session(ev sessionEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sessionID = ev.SessionID
	if p.json {
		p.encode(ev)
	}
}

func (p *printer) notice(text string, warning bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.json {
		p.encode(agent.NoticeEvent{Text: text, Warning: warning})
		return
	}
	p.activity("%s%s\n", noticePrefix(ui.Notice{Text: text, Warning: warning}), text)
}

// noticePrefix starts a notice's line on stderr by its kind.
func noticePrefix(n ui.Notice) string {
	if n.Warning {
		return "warning: "
	}
	return "note: "
}

func (p *printer) encode(e agent.Event) { _ = p.enc.Encode(json.RawMessage(inertJSON(jsonEvent(e)))) }

// activity writes a line to stderr, first ending the answer's line so that
// the two do not run together under 2>&1.
func (p *printer) activity(format string, args ...any) {
	p.endLine()
	fmt.Fprintf(p.err, format, args...)
}

func (p *printer) print(e agent.Event) {
	if _, ok := e.(agent.ToolOutputEvent); ok {
		return // live output is for the screen; the result carries it
	}
	if s, ok := e.(agent.SubagentEvent); ok {
		p.printSubagent(s)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.track(e)
	if p.json {
		p.encode(e)
		return
	}
	switch ev := e.(type) {
	case agent.TextDelta:
		p.writeText(p.round.write(p.text.Write(ev.Text)))
	case agent.ReasoningDelta:
		// Reasoning is not part of the answer; scripts get it with --output json.
	case agent.ToolCallEvent:
		if ev.Phase == "started" {
			what := ev.Summary
			if what == "" {
				what = string(ev.Call.Args)
			}
			p.activity("→ %s: %s\n", termtext.OneLine(ev.Call.Tool, 0), termtext.OneLine(what, 160))
		}
	case agent.ApprovalEvent:
		if ev.Phase == "decided" && ev.Decision != nil && ev.Decision.By == "headless" {
			if p.asked == nil {
				p.asked = map[string]string{}
			}
			p.asked[ev.CallID] = termtext.Visible(ev.Request.Why)
		}
	case agent.ToolResultEvent:
		switch {
		case ev.Failed() && ev.Status == agent.StatusOK:
			p.activity("✗ %s exit %d (%s)\n", termtext.OneLine(ev.Call.Tool, 0), *ev.ExitCode, ev.Duration.Round(time.Millisecond))
		case ev.Status == agent.StatusOK:
			p.activity("✓ %s (%s)\n", termtext.OneLine(ev.Call.Tool, 0), ev.Duration.Round(time.Millisecond))
		default:
			p.activity("✗ %s %s: %s\n", termtext.OneLine(ev.Call.Tool, 0), ev.Status, termtext.Visible(ev.Message))
		}
		if why, ok := p.asked[ev.Call.ID]; ok {
			delete(p.asked, ev.Call.ID)
			// The denial usually names the reason already: said once.
			if why == "" || strings.Contains(termtext.Visible(ev.Message), why) {
				p.activity("  allow it with an [[approval.rules]] entry in the config or a higher --autonomy level\n")
			} else {
				p.activity("  it asks for approval (%s): allow it with an [[approval.rules]] entry in the config or a higher --autonomy level\n", termtext.OneLine(why, 200))
			}
		}
	case agent.GoalStepEvent, agent.GoalIterationEvent, agent.GoalResultEvent:
		p.goalActivity(ev)
	case agent.SubagentStartEvent:
		p.activity("⇢ agent %s %q (%s) started\n", ev.ID, termtext.OneLine(ev.Description, 80), ev.Mode)
	case agent.SubagentResultEvent:
		p.activity("⇠ agent %s %s: %d tool calls, %d tokens (%s)\n", ev.ID, ev.Status, ev.Calls, ev.Tokens, ev.Elapsed.Round(time.Millisecond))
	case agent.CompactionEvent:
		p.activity("compacted %d earlier messages into a summary (~%d tokens)\n", ev.Replaced, ev.Tokens)
	case agent.PlanEvent:
		if ev.Proposal != nil {
			p.printProposal(*ev.Proposal)
			return
		}
		done, now := 0, ""
		for _, it := range ev.Items {
			switch it.Status {
			case tools.PlanDone:
				done++
			case tools.PlanInProgress:
				now = " · now: " + termtext.OneLine(it.Text, 80)
			}
		}
		p.activity("plan: %d of %d done%s\n", done, len(ev.Items), now)
	case agent.RetryEvent:
		p.activity("retry %d/%d in %s: %s\n", ev.Attempt, ev.Max, ev.Wait.Round(100*time.Millisecond), ev.Reason)
	case agent.NoticeEvent:
		if ev.Warning {
			p.activity("warning: %s\n", ev.Text)
		} else {
			p.activity("note: %s\n", ev.Text)
		}
	case agent.ErrorEvent:
		p.activity("error: %s\n", ev.Message)
		if ev.Hint != "" {
			fmt.Fprintf(p.err, "hint: %s\n", ev.Hint)
		}
	}
}

// track keeps what the result event needs and settles the round's text: a
// round ends with its first tool call (text written as a call is dropped)
// or with the turn.
func (p *printer) track(e agent.Event) {
	if _, ok := e.(agent.TextDelta); !ok && !p.json {
		p.writeText(p.round.write(p.text.Flush()))
	}
	switch ev := e.(type) {
	case agent.TextDelta:
		if p.json {
			// Strings in JSON events go through inertJSON.
			p.answer.WriteString(p.round.write(ev.Text))
		}
	case agent.ToolCallEvent:
		if ev.Phase == "proposed" {
			p.endRound(ev.Call.FromText)
		}
	case agent.ErrorEvent, agent.DoneEvent:
		p.endRound(false)
	case agent.UsageEvent:
		total := ev.TotalTokens
		if total == 0 {
			total = ev.PromptTokens + ev.CompletionTokens
		}
		p.usage.Requests++
		p.usage.PromptTokens += ev.PromptTokens
		p.usage.CompletionTokens += ev.CompletionTokens
		p.usage.TotalTokens += total
		if ev.CachedTokens != nil {
			p.usage.CachedTokens = addCached(p.usage.CachedTokens, *ev.CachedTokens)
		}
		kind := ev.Kind
		if kind == "" {
			kind = agent.RequestTurn
		}
		if p.usage.ByKind == nil {
			p.usage.ByKind = map[string]*kindTotals{}
		}
		k := p.usage.ByKind[kind]
		if k == nil {
			k = &kindTotals{}
			p.usage.ByKind[kind] = k
		}
		k.Requests++
		k.PromptTokens += ev.PromptTokens
		k.CompletionTokens += ev.CompletionTokens
		k.TotalTokens += total
		if ev.ContextWindow > 0 {
			p.usage.ContextWindow = ev.ContextWindow
		}
	}
	if d, ok := e.(agent.DoneEvent); ok {
		p.done = d
	}
	if pe, ok := e.(agent.PlanEvent); ok && pe.Proposal != nil {
		p.proposal = pe.Proposal
	}
}

// endRound writes what the round held back, without the tool calls the
// model wrote as text, and ends the round's line.
func (p *printer) endRound(textCalls bool) {
	held := p.round.end(textCalls)
	if p.json {
		p.answer.WriteString(held)
		if s := p.answer.String(); s != "" && !strings.HasSuffix(s, "\n") {
			p.answer.WriteString("\n")
		}
		return
	}
	p.writeText(held)
	p.endLine()
}

func (p *printer) writeText(s string) {
	if s != "" {
		fmt.Fprint(p.out, s)
		p.midLine = !strings.HasSuffix(s, "\n")
	}
}

func (p *printer) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.json {
		p.writeText(p.round.write(p.text.Flush()))
		p.writeText(p.round.end(false))
		p.endLine()
	}
}

func (p *printer) endLine() {
	if p.midLine {
		fmt.Fprintln(p.out)
		p.midLine = false
	}
}

// result ends `--output json`: a start-up failure becomes an error event,
// then the result event carries the whole answer, the usage and the exit
// reason. The returned error sets the exit code, already reported.
func (p *printer) result(err error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := resultEvent{SessionID: p.sessionID, Text: strings.TrimRight(p.answer.String(), "\n"), Reason: p.done.Reason, Rounds: p.done.Rounds, Usage: p.usage}
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled):
		r.Reason, r.ExitCode = agent.DoneCancelled, ExitCancelled
	case errors.Is(err, ErrReported):
		r.ExitCode = ExitFailed
	default:
		msg, hint := err.Error(), ""
		var ue *agent.UserError
		if errors.As(err, &ue) {
			msg, hint = ue.Msg, ue.Hint
		}
		p.encode(agent.ErrorEvent{Message: msg, Hint: hint})
		r.ExitCode, r.Error, err = ExitFailed, msg, ErrReported
	}
	if r.Reason == "" {
		r.Reason = agent.DoneError
	}
	p.encode(r)
	return err
}

// Markers that may open a tool call written as text; text from one of
// them on is held back until the round says whether it was a call.
var textCallMarkers = []string{"```", "<tool_call>"}

// roundText is one round's answer text on its way to the screen: it is
// passed on as it streams, except from a possible text tool call on.
type roundText struct {
	held    strings.Builder
	holding bool
}

// write takes a delta and returns what can be shown now.
func (r *roundText) write(s string) string {
	if r.holding {
		r.held.WriteString(s)
		return ""
	}
	r.held.WriteString(s)
	buf := r.held.String()
	cut := -1
	for _, m := range textCallMarkers {
		if i := strings.Index(buf, m); i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut >= 0 {
		r.holding = true
		r.held.Reset()
		r.held.WriteString(buf[cut:])
		return buf[:cut]
	}
	// Keep a tail that may be the start of a marker split across deltas.
	keep := 0
	for _, m := range textCallMarkers {
		for n := min(len(m)-1, len(buf)); n > keep; n-- {
			if strings.HasSuffix(buf, m[:n]) {
				keep = n
				break
			}
		}
	}
	r.held.Reset()
	r.held.WriteString(buf[len(buf)-keep:])
	return buf[:len(buf)-keep]
}

// end closes the round and returns what was held back, without the tool
// calls written as text when the round was one (calls).
func (r *roundText) end(calls bool) string {
	s := r.held.String()
	r.held.Reset()
	r.holding = false
	if calls {
		_, s = agent.ParseTextToolCalls(s, func(string) bool { return true })
	}
	return s
}

// jsonEvent renders an event as one JSON object with its type first.
func jsonEvent(e agent.Event) json.RawMessage {
	typ, _ := json.Marshal(e.Type())
	b, err := json.Marshal(e)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"marshal_error": err.Error()})
	}
	out := append([]byte(`{"type":`), typ...)
	if len(b) > 2 {
		out = append(out, ',')
	}
	return append(out, b[1:]...)
}

// inertJSON rewrites every string of a JSON document through
// termtext.Visible, so that no string a script decodes holds a control
// character or an invisible one: `\u001b]0;x\u0007` becomes `\\e]0;x\\a`.
func inertJSON(doc []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(doc); i++ {
		if doc[i] != '"' {
			continue
		}
		end := i + 1
		for end < len(doc) && doc[end] != '"' {
			if doc[end] == '\\' {
				end++
			}
			end++
		}
		end++ // the closing quote
		var s string
		if end <= len(doc) && json.Unmarshal(doc[i:end], &s) == nil {
			if v := termtext.Visible(s); v != s {
				var b strings.Builder
				enc := json.NewEncoder(&b)
				enc.SetEscapeHTML(false)
				_ = enc.Encode(v)
				out = append(out, doc[last:i]...)
				out = append(out, strings.TrimSuffix(b.String(), "\n")...)
				last = end
			}
		}
		i = end - 1
	}
	if out == nil {
		return doc
	}
	return append(out, doc[last:]...)
}

// printSubagent prints a sub-agent's event: in JSON tagged with its id
// (its text and live output stay out of the answer), as text only its
// calls, indented under the agent.
func (p *printer) printSubagent(s agent.SubagentEvent) {
	if _, ok := s.Event.(agent.ToolOutputEvent); ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if u, ok := s.Event.(agent.UsageEvent); ok {
		// The task's totals count the sub-agents' requests, as their kind.
		u.Kind = agent.RequestSubagent
		p.track(u)
	}
	if p.json {
		p.encode(s)
		return
	}
	switch ev := s.Event.(type) {
	case agent.ToolCallEvent:
		if ev.Phase == "started" {
			p.activity("  %s → %s: %s\n", s.AgentID, termtext.OneLine(ev.Call.Tool, 0), termtext.OneLine(firstNonEmpty(ev.Summary, string(ev.Call.Args)), 140))
		}
	case agent.ToolResultEvent:
		if ev.Status == agent.StatusOK && !ev.Failed() {
			p.activity("  %s ✓ %s\n", s.AgentID, termtext.OneLine(ev.Call.Tool, 0))
		} else {
			p.activity("  %s ✗ %s %s: %s\n", s.AgentID, termtext.OneLine(ev.Call.Tool, 0), ev.Status, termtext.OneLine(ev.Message, 200))
		}
	}
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
