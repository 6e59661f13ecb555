package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sashabaranov/go-openai"

	"myclaw/agent/chat"
	"myclaw/approval"
	"myclaw/tools"
)

// repeatLimit is how many identical calls in a row the loop lets through
// before it stops one with a hint: weak models loop on the same call.
const repeatLimit = 3

// turn is the state of one user turn.
type turn struct {
	a        *Agent
	ctx      context.Context
	emit     func(Event)
	approver approval.Approver
	// taint is set once untrusted content entered the conversation this turn.
	taint *approval.Taint
	// calls counts the calls of the turn that have run.
	calls int
	// lastCall and repeats count identical consecutive calls.
	repeatMu sync.Mutex
	lastCall string
	repeats  int
	rounds   int
	// position and count place the call being decided in its answer.
	position, count int
	// hooks are the hooks as the turn started; continues counts the
	// times a stop hook made the model go on; notifying waits for the
	// notification hooks running in the background.
	hooks     []Hook
	continues int
	notifying sync.WaitGroup
	// previewed are the approved previews by call id, which execute
	// applies instead of running the calls again.
	previewedMu sync.Mutex
	previewed   map[string]tools.Preview
	// asking holds the approver while one question is put: calls of one
	// answer (agents) may ask together.
	asking chan struct{}
	// submitted is set once the model submitted a plan (plan_submit): the
	// turn ends after that round, for the person to decide.
	submitted atomic.Bool
}

// Run runs one user turn: it sends the prompt, streams the answer, runs the
// tool calls and repeats until the model answers without calls, the round
// limit is reached, the turn fails or ctx is cancelled. Every event goes to
// emit, in order; calls that need a decision go to approver.
func (a *Agent) Run(ctx context.Context, prompt string, emit func(Event), approver approval.Approver) (err error) {
	if err := a.whole(); err != nil {
		return err
	}
	a.mu.Lock()
	if a.running {
		a.mu.Unlock()
		return ErrBusy
	}
	a.running = true
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.running = false
		a.mu.Unlock()
	}()
	// Concurrent read-only calls report from several goroutines; the
	// consumer sees one ordered stream.
	var emitMu sync.Mutex
	a.mu.Lock()
	hooks, session := a.hooks, a.session
	a.mu.Unlock()
	emit = serialize(&emitMu, a.recordCalls(session, emit))
	t := &turn{a: a, ctx: ctx, emit: emit, approver: approver, hooks: hooks, asking: make(chan struct{}, 1)}
	reason := DoneStop
	defer func() {
		switch {
		case err != nil && errors.Is(err, context.Canceled):
			reason = DoneCancelled
		case err != nil:
			reason = DoneError
			var ue *UserError
			if errors.As(err, &ue) {
				emit(ErrorEvent{Message: ue.Msg, Hint: ue.Hint})
			} else {
				emit(ErrorEvent{Message: err.Error(), Hint: hintOf(err, "")})
			}
		}
		t.notifying.Wait()
		emit(DoneEvent{Reason: reason, Rounds: t.rounds})
		if t.taint != nil {
			// What this turn read stays evidence for the turns after.
			a.mu.Lock()
			a.earlier = approval.KeepEarlier(a.earlier, t.taint.Seen...)
			a.mu.Unlock()
		}
	}()

	for _, ev := range a.takePending() {
		emit(ev)
	}
	added, err := t.userPromptHooks(prompt)
	if err != nil {
		return err
	}
	a.mu.Lock()
	first, s, title := len(a.messages) == 0, a.session, a.titleAs
	a.titleAs = ""
	a.mu.Unlock()
	if err := a.appendMessage(withText(a.userMessage(prompt), added)); err != nil {
		return err
	}
	if title == "" {
		title = prompt
	}
	if first {
		// The first prompt names the session in /sessions.
		if err := s.SetTitle(title); err != nil {
			a.opts.Logf("session title: %v", err)
		}
	}
	a.ensureWindow(ctx)
	a.mu.Lock()
	budgetLeft := a.budgetLeft
	a.mu.Unlock()
	for t.rounds < a.opts.MaxRounds {
		if budgetLeft != nil && t.rounds > 0 {
			if why := budgetLeft(); why != "" {
				// The calls of the last round ran and are recorded: the
				// conversation ends on their results, as after a cancel.
				reason = DoneLimit
				emit(NoticeEvent{Text: why, Warning: true})
				return nil
			}
		}
		t.rounds++
		more, err := t.round()
		if err != nil {
			return err
		}
		if !more {
			if more, err = t.stopHooks(); err != nil || !more {
				return err
			}
		}
	}
	reason = DoneLimit
	emit(NoticeEvent{Text: fmt.Sprintf("Stopped after %d tool rounds in one turn (max_tool_rounds). Send a message to let the model go on, or raise max_tool_rounds in the config.", a.opts.MaxRounds), Warning: true})
	return nil
}

// userMessage builds the user message of a turn: what the model must know
// first (what the user undid since its last turn), the prompt, then what
// the user attached (command output, mentioned files; images as content
// parts). It marks the notes and attachments delivered.
func (a *Agent) userMessage(prompt string) openai.ChatCompletionMessage {
	a.mu.Lock()
	notes := a.notes
	a.notes = nil
	s := a.session
	a.mu.Unlock()
	atts := a.takeAttachments()
	if len(notes)+len(atts) > 0 {
		if err := s.Append("notes_delivered", len(notes)+len(atts)); err != nil {
			a.opts.Logf("persist notes: %v", err)
		}
	}
	text := prompt
	// The date and level notes lead, as toldOf reads them back from there.
	notes = append(a.stateNotes(false), notes...)
	// Not one of the persisted notes: only its effect on the text is kept.
	if note := a.modeNote(); note != "" {
		notes = append(notes, note)
	}
	if len(notes) > 0 {
		text = "[myclaw note] " + strings.Join(notes, "\n[myclaw note] ") + "\n\n" + prompt
	}
	var images []openai.ChatMessagePart
	for _, at := range atts {
		if at.Text != "" {
			text += "\n\n" + at.Text
		}
		if at.ImageURL != "" {
			images = append(images, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: at.ImageURL}})
		}
	}
	// Instruction files of folders the user named go with the attachments.
	for _, f := range a.takeInstructionNotes() {
		text += "\n\n" + AttachmentMark + " " + f
	}
	m := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser}
	if len(images) == 0 {
		m.Content = text
		return m
	}
	m.MultiContent = append([]openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: text}}, images...)
	return m
}

// appendMessage adds a message to the conversation and persists it before
// anything else happens, so a crash loses nothing that was sent.
func (a *Agent) appendMessage(m openai.ChatCompletionMessage) error {
	a.mu.Lock()
	s := a.session
	a.messages = append(a.messages, m)
	a.mu.Unlock()
	if err := s.Append("message", m); err != nil {
		return &UserError{Msg: "Cannot write the session transcript.", Hint: "Check free space and permissions of the state directory.", Err: err}
	}
	return nil
}

// round sends one request and runs the calls of its answer. It reports
// whether another round is needed.
func (t *turn) round() (bool, error) {
	a := t.a
	if err := a.deliverNotes(); err != nil {
		return false, err
	}
	req, elided := a.buildRequest()
	if t.checkRoom(req) {
		req, elided = a.buildRequest()
	}
	if elided > 0 {
		t.emit(NoticeEvent{Text: fmt.Sprintf("Elided the output of %d older tool calls to fit the context window (%d tokens).", elided, a.currentWindow().Tokens)})
	}
	ctx := chat.WithRetryHook(t.ctx, func(r chat.Retry) { t.emit(RetryEvent(r)) })
	if a.down.Load() {
		ctx = chat.WithoutRetries(ctx)
	}
	stream := func() (chat.Completion, error) {
		return a.opts.Client.Stream(ctx, req, func(d chat.StreamDelta) {
			if d.Reasoning != "" {
				t.emit(ReasoningDelta{Text: d.Reasoning})
			}
			if d.Content != "" {
				t.emit(TextDelta{Text: d.Content})
			}
		})
	}
	comp, err := stream()
	if refusesTools(err) && len(req.Tools) > 0 && a.useTextTools() {
		t.emit(NoticeEvent{Text: "The server says this model does not support tool calls, so myclaw describes the tools in the prompt and reads calls the model writes as text (less reliable). For real tool calls pick a model that has them (with Ollama: ollama list, e.g. qwen2.5-coder or llama3.1).", Warning: true})
		req, _ = a.buildRequest()
		comp, err = stream()
	}
	a.down.Store(chat.Unreachable(err))
	if err == nil {
		// Before the usage event, which then carries what was found.
		a.recheckWindow(t.ctx)
	}
	if !chat.Unreachable(err) {
		// A request that never reached the server used no tokens.
		t.reportUsage(comp, req)
	}
	if err != nil {
		return false, t.keepPartial(comp, err)
	}
	if sent := estimateRequest(req); comp.Usage != nil && promptCut(comp.Usage.PromptTokens, sent) {
		return false, t.promptWasCut(comp, sent)
	}
	calls := comp.ToolCalls
	content := comp.Content
	fromText := false
	if len(calls) == 0 {
		if tc, rest := ParseTextToolCalls(content, func(name string) bool { _, ok := a.opts.Registry.Lookup(name); return ok }); len(tc) > 0 {
			calls, content, fromText = tc, rest, true
			t.emit(NoticeEvent{Text: textCallsNotice(len(tc)), TextCalls: true, Answer: rest})
		}
	}
	msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: content, ToolCalls: calls}
	if err := a.appendMessage(msg); err != nil {
		return false, err
	}
	if comp.TruncatedCall {
		return false, &UserError{
			Msg:  "The model's answer hit its length limit in the middle of a tool call; the call was not run.",
			Hint: "Ask for a smaller step, or raise the server's output limit (max_tokens / num_predict).",
		}
	}
	if len(calls) == 0 {
		if strings.TrimSpace(content) == "" {
			if comp.FinishReason == "length" {
				// Some servers (Ollama) silently drop a tool call that the
				// length limit cut short: an empty answer is all that is left.
				return false, &UserError{
					Msg:  "The model hit its length limit before answering (a tool call it was writing may have been dropped).",
					Hint: "Ask for a smaller step, or raise the server's output limit (max_tokens / num_predict).",
				}
			}
			if strings.TrimSpace(comp.Reasoning) == "" {
				t.emit(NoticeEvent{Text: "The model returned an empty answer.", Warning: true})
			}
		}
		return false, nil
	}
	if err := t.runCalls(calls, fromText); err != nil {
		return false, err
	}
	return !t.submitted.Load(), nil
}

// keepPartial records what was streamed before a failure, marked as cut,
// so the transcript shows it and stays valid.
func (t *turn) keepPartial(comp chat.Completion, err error) error {
	if comp.Content == "" {
		if errors.Is(err, context.Canceled) {
			return err
		}
		return t.wrapStreamErr(err)
	}
	mark := "\n\n[answer cut off: " + strings.TrimSpace(err.Error()) + "]"
	if errors.Is(err, context.Canceled) {
		mark = "\n\n[answer cancelled by the user]"
	}
	// Tool calls of a cut answer are dropped: they never ran.
	if perr := t.a.appendMessage(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: comp.Content + mark}); perr != nil {
		return perr
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return t.wrapStreamErr(err)
}

func (t *turn) wrapStreamErr(err error) error {
	if errors.Is(err, chat.ErrStreamCut) {
		return &UserError{Msg: "The model's answer was cut off before it finished; the partial text is kept.", Hint: "Send a message to let it go on, or check the server's log.", Err: err}
	}
	var apiErr *chat.APIError
	if chat.Unreachable(err) {
		return &UserError{Msg: fmt.Sprintf("No model server at %s.", t.a.opts.Client.BaseURL()), Hint: t.a.noServerHint(), Err: err}
	}
	if errors.As(err, &apiErr) {
		return &UserError{Msg: "The model server failed: " + apiErr.Error(), Hint: apiErr.Hint()}
	}
	return err
}

func (t *turn) reportUsage(comp chat.Completion, req openai.ChatCompletionRequest) {
	a := t.a
	win := a.currentWindow()
	ev := usageOf(comp, req)
	ev.Kind, ev.ContextWindow, ev.WindowSource = RequestTurn, win.Tokens, win.Source
	a.mu.Lock()
	// The request carried the whole conversation: nothing is appended
	// while a turn waits for its answer.
	if c, ok := countOf(usageRecord{Kind: RequestTurn, PromptTokens: ev.PromptTokens, CompletionTokens: ev.CompletionTokens, Estimated: ev.Estimated}, len(a.messages)); ok {
		a.lastCount = c
	}
	a.mu.Unlock()
	a.count(ev, req.Model)
	ev.Context, ev.ContextEstimated = a.meter()
	ev.Context += answerTokens(comp.Content, comp.ToolCalls)
	t.emit(ev)
}

// buildRequest assembles the request: system prompt, the conversation with
// old tool output elided if it would not fit, and the catalog for the
// current autonomy level and rules.
func (a *Agent) buildRequest() (openai.ChatCompletionRequest, int) {
	a.mu.Lock()
	msgs := append([]openai.ChatCompletionMessage(nil), a.messages...)
	model := a.model
	a.mu.Unlock()
	a.mu.Lock()
	win, textTools := a.window, a.textTools
	a.mu.Unlock()
	compact := win.Tokens < compactWindow
	system := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: systemPrompt(a.opts.Workspace, compact) + a.opts.Skills.Section() + a.opts.Instructions.baseSection() + a.role}
	// Definitions lists the included tools in order: builtin[i] is the i-th's.
	var builtin []bool
	defs := a.opts.Registry.Definitions(func(m tools.Meta) bool {
		ok, _ := a.opts.Policy.Visible(m)
		if ok {
			builtin = append(builtin, m.Source == tools.SourceBuiltin)
		}
		return ok
	})
	catalog := wireCatalog(stableCatalog(defs, builtin))
	if compact {
		catalog = compactCatalog(catalog)
	}
	if textTools {
		system.Content += textToolsSection(catalog)
		catalog = nil
	}
	budget := win.Tokens - estimateCatalog(catalog) - estimateMessage(system)
	msgs, elided := fitContext(msgs, budget)
	req := openai.ChatCompletionRequest{
		Model:    model,
		Messages: append([]openai.ChatCompletionMessage{system}, msgs...),
		Tools:    catalog,
	}
	return req, elided
}

func serialize(mu *sync.Mutex, emit func(Event)) func(Event) {
	return func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		emit(e)
	}
}

// useTextTools switches the conversation to tool calls written as text;
// false when it already was.
func (a *Agent) useTextTools() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.textTools {
		return false
	}
	a.textTools = true
	return true
}

// refusesTools recognises a server's refusal of the tool catalog for the
// model (Ollama: 400 "… does not support tools").
func refusesTools(err error) bool {
	var apiErr *chat.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 400 {
		return false
	}
	msg := strings.ToLower(apiErr.Message)
	return strings.Contains(msg, "does not support tools") || strings.Contains(msg, "tools is not supported") || strings.Contains(msg, "does not support function")
}

// promptWasCut ends the turn when the server reported far fewer prompt
// tokens than were sent: it cut the start of the prompt (Ollama drops the
// system prompt and the tool catalog first), so the answer would rest on a
// conversation the model never saw whole. The answer is kept, its calls are
// not run, and the window shrinks to what the server showed it serves.
func (t *turn) promptWasCut(comp chat.Completion, sent int) error {
	a := t.a
	got := comp.Usage.PromptTokens
	win := a.currentWindow()
	a.shrinkWindow(got, fmt.Sprintf("the server cut the prompt at %d tokens", got))
	content := comp.Content + "\n\n[answer set aside: the server cut the prompt]"
	if err := a.appendMessage(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: content}); err != nil {
		return err
	}
	return &UserError{
		Msg:  fmt.Sprintf("The server read only %d of about %d prompt tokens: it cut the conversation without a word (the system prompt and tool list go first), so this answer was set aside and its tool calls were not run.", got, sent),
		Hint: windowFix(win.Server, sent*2) + fmt.Sprintf(" Then set context_window in the config, or /clear. Until then myclaw keeps the prompt within %d tokens.", got),
	}
}

// textCallsNotice says the model wrote n tool calls as text.
func textCallsNotice(n int) string {
	if n == 1 {
		return "The model wrote a tool call as text; running it as a call."
	}
	return fmt.Sprintf("The model wrote %d tool calls as text; running them as calls.", n)
}
