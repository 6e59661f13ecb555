// Package agent is myclaw's reasoning loop: it sends the conversation and
// the tool catalog to an OpenAI-compatible server, runs the tool calls the
// model asks for through validation, policy, approval and the undo journal,
// and reports everything as a stream of events.
//
// The loop talks to the outside through two seams: the events it emits (a
// func the caller provides; it must not block for long, and the loop never
// drops events) and the approval.Approver it asks. A turn runs under one
// context: cancelling it stops the HTTP stream and running tools, and Run
// returns an error wrapping context.Canceled.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sashabaranov/go-openai"

	"myclaw/agent/chat"
	"myclaw/approval"
	"myclaw/history"
	"myclaw/skills"
	"myclaw/tools"
)

// Defaults for Options fields left zero.
const (
	DefaultMaxRounds     = 40
	DefaultContextWindow = 32768
)

// ModelServer is what the loop uses of the model server; *chat.Client is
// the one for OpenAI-compatible servers.
type ModelServer interface {
	// Stream sends one request and streams the answer into onDelta.
	Stream(ctx context.Context, req openai.ChatCompletionRequest, onDelta func(chat.StreamDelta)) (chat.Completion, error)
	// Models lists the models the server offers.
	Models(ctx context.Context) ([]string, error)
	// ProbeWindow asks the server what context window it serves model with.
	ProbeWindow(ctx context.Context, model string) chat.Window
	// BaseURL is the server's address, for messages.
	BaseURL() string
}

// Options configures an Agent.
type Options struct {
	// Client is the model server: a *chat.Client, or a fake in tests.
	Client   ModelServer
	Model    string
	Registry *tools.Registry
	Policy   *approval.Policy
	// Audit receives every decision; nil disables auditing.
	Audit *approval.Audit
	// Store and Session persist the transcript and the journal.
	Store   *history.Store
	Session *history.Session
	// Preloaded is Session's transcript, read ahead (Preload); nil: New
	// reads it. One made by PreloadTail leaves the transcript before its
	// end to load behind the first frame.
	Preloaded *Preloaded
	// Recover finishes what a crash left in the journal of a session
	// loaded behind the first frame (resumed at start, or opened or
	// forked later), before anything uses it, and returns
	// lines for people (the app's crash recovery); nil: nothing to do.
	Recover func(*history.Journal) []string
	// Workspace is the absolute workspace path, for the prompt.
	Workspace string
	// MaxRounds bounds the model requests of one user turn.
	MaxRounds int
	// ContextWindow is the model's context size in tokens.
	ContextWindow int
	// BaseURLOrigin says which setting chose the server's URL
	// ("OPENAI_BASE_URL", a config's base_url), for the hint when it is down.
	BaseURLOrigin string
	// ConfigPath is where "approve and save as rule" writes.
	ConfigPath string
	// HintGrants is where a grant that trusts an MCP server's read-only
	// hints is saved, for Workspace; "" keeps it for the session only.
	HintGrants string
	// Hooks run before matching tool calls.
	Hooks []Hook
	// Instructions are the instruction files the system prompt carries;
	// nil for none.
	Instructions *Instructions
	// Skills are listed in the prompt by name and description (before the
	// instruction files, which grow as the model works); nil for none.
	Skills *skills.Set
	// UserTools run what the user asks for directly (!command, @file).
	UserTools UserTools
	// Withdrawn lists tools that are registered no more for a reason the
	// user should see in /tools (their MCP server is down): name and why.
	// nil for none.
	Withdrawn func() []Withdrawn
	// PreviewShell previews a shell command that asks, where it can be
	// previewed, before the pane asks about it ([shell] preview).
	PreviewShell bool
	// Prices price the tokens for /cost when the server does not.
	Prices Prices
	// Now is the clock (tests pin it).
	Now func() time.Time
	// Logf logs to the log file; nil discards.
	Logf func(format string, args ...any)
}

// Agent holds one conversation and runs its turns, one at a time.
type Agent struct {
	opts Options

	mu       sync.Mutex // guards the fields below
	model    string
	titleAs  string // names the session instead of its first prompt: see TitleAs
	session  *history.Session
	journal  *history.Journal
	messages []openai.ChatCompletionMessage
	// rest is the load of a session resumed from its last turns
	// (PreloadTail), under way or done; nil when the session was loaded
	// whole.
	rest *pendingLoad
	// notes are told to the model with the next user message (e.g. what
	// /undo reverted), so it does not act on a stale picture.
	notes []string
	// attachments go with the next user message (see attach.go).
	attachments []attachment
	// lastCount is the server's last count of a turn request (see meter.go).
	lastCount counted
	// down is set while the server is known not to answer (the start-up
	// check, or the last request, could not connect): requests then try
	// once instead of waiting through retries.
	down atomic.Bool
	// listing is the listing of the server's models under way.
	listing sharedListing
	// usage is the session's use of the model (see cost.go).
	usage   sessionUsage
	running bool
	// window is the model's context window; probed says the server was
	// asked for the current model (configWindow: the config set it, so
	// nobody is asked); reprobe asks once more after the next answer, as
	// a probe that found nothing may have found the server down.
	// textTools is set once the server refused the tool catalog for the
	// model: calls are then described in the prompt and written as text.
	window       chat.Window
	probed       bool
	reprobe      bool
	configWindow bool
	textTools    bool
	// compactions stack the summaries standing in the prompt (newest
	// last); pinned prompts are kept verbatim by a compaction; roomWarned
	// is set while the conversation is past the warning share;
	// compactHeld, when not 0, is the conversation's size at a failed
	// automatic compaction, which is not tried again until it has grown.
	compactions []compaction
	pinned      []string
	roomWarned  bool
	compactHeld int
	// pastCalls are the call records of the session as loaded.
	pastCalls []CallRecord
	// earlier is the untrusted text read in earlier turns of the session,
	// bounded (approval.KeepEarlier): a command planted there still asks
	// in a later turn. A resumed session rebuilds it from its transcript;
	// a compaction keeps it.
	earlier []approval.Seen
	hooks   []Hook
	// group joins the calls journaled meanwhile into one undo step (a
	// goal's iteration); "" outside a goal run.
	group string
	// budgetLeft, during a goal run, says why the turn must not send
	// another request ("" while the goal's budgets allow one).
	budgetLeft func() string
	// pending are hook reports made outside a turn (a manual
	// compaction's), shown when the next turn starts.
	pending []NoticeEvent
	// plan is plan mode's state (planmode.go).
	plan planState
	// told is what the conversation was told of the date and the autonomy
	// level (prefix.go); instructionNotes are instruction files to tell
	// before the next request.
	told             told
	instructionNotes []string
	// role is what a sub-agent's system prompt adds ("" for the main
	// conversation).
	role string
}

// New builds an agent over an open session.
func New(opts Options) (*Agent, error) {
	if opts.Client == nil || opts.Registry == nil || opts.Policy == nil || opts.Store == nil || opts.Session == nil {
		return nil, errors.New("agent: Client, Registry, Policy, Store and Session are required")
	}
	if opts.MaxRounds <= 0 {
		opts.MaxRounds = DefaultMaxRounds
	}
	win := chat.Window{Tokens: opts.ContextWindow, Source: "config"}
	if opts.ContextWindow <= 0 {
		win = chat.Window{Tokens: DefaultContextWindow, Source: chat.SourceEstimated}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	a := &Agent{opts: opts, model: opts.Model, hooks: opts.Hooks, window: win, configWindow: opts.ContextWindow > 0}
	if err := a.attach(opts.Session); err != nil {
		return nil, err
	}
	return a, nil
}

// attach makes s the current session, loading its transcript and journal.
// A session preloaded with the end of a long transcript (PreloadTail) only
// becomes current: the rest loads behind the first frame (see ready).
func (a *Agent) attach(s *history.Session) error {
	p := a.opts.Preloaded
	a.opts.Preloaded = nil // read once, for the session it was started for
	if p == nil || p.s != s {
		p = Preload(s)
	}
	if p.tailDone != nil {
		<-p.tailDone
		if p.tailErr != nil {
			return fmt.Errorf("read the session transcript: %w", p.tailErr)
		}
		if p.tail != nil {
			// Nothing of a session switched from stays until the load
			// applies this one's: the state is a new agent's.
			a.apply(sessionState{s: s})
			a.rest = &pendingLoad{p: p, tail: *p.tail, done: make(chan struct{})}
			return nil
		}
	}
	st, _, err := replay(p, a.opts.Logf)
	if err != nil {
		return err
	}
	a.apply(st)
	a.rest = nil
	return nil
}

// sessionState is what a session's transcript and journal make of the
// conversation, built by replay and made current by apply.
type sessionState struct {
	s           *history.Session
	j           *history.Journal
	msgs        []openai.ChatCompletionMessage
	notes       []string
	atts        []attachment
	calls       []CallRecord
	compactions []compaction
	pinned      []string
	earlier     []approval.Seen
	told        told
	count       counted
	usage       sessionUsage
}

// replay waits for p and replays its records. warnings are what it
// skipped (a corrupt line, a message that does not decode), for people;
// they are logged too.
func replay(p *Preloaded, logf func(string, ...any)) (st sessionState, warnings []string, err error) {
	<-p.done
	s := p.s
	if p.journalErr != nil {
		return st, nil, fmt.Errorf("open the undo journal: %w", p.journalErr)
	}
	if p.err != nil {
		return st, nil, fmt.Errorf("read the session transcript: %w", p.err)
	}
	warnings = append(warnings, p.warnings...)
	st = replayRecords(p.records, p.dec, func(w string) { warnings = append(warnings, w) })
	for _, w := range warnings {
		logf("session %s: %s", s.Info().ID, w)
	}
	st.s, st.j = s, p.journal
	st.msgs = repairTranscript(st.msgs)
	st.calls = shareText(st.calls, st.msgs)
	st.earlier = untrustedOf(st.msgs)
	st.told = toldOf(st.msgs)
	st.usage = loadUsage(p.records, p.dec, s.Info())
	return st, warnings, nil
}

// replayRecords makes the conversation of records, in order; skipped
// hears of a message that does not decode.
func replayRecords(records []history.Record, dec *loaded, skipped func(string)) sessionState {
	var st sessionState
	st.msgs = make([]openai.ChatCompletionMessage, 0, len(dec.msgs))
	st.calls = make([]CallRecord, 0, len(dec.calls))
	for i, r := range records {
		switch r.Kind {
		case "compaction", "uncompact":
			st.msgs, st.compactions = replayCompaction(r.Kind, r.Data, st.msgs, st.compactions)
			st.count = counted{}
		case "usage":
			// Recorded after the messages its request carried, as live.
			if u, ok := dec.usageAt(i); ok {
				if c, ok := countOf(u, len(st.msgs)); ok {
					st.count = c
				}
			}
		case "pin":
			var p string
			if json.Unmarshal(r.Data, &p) == nil {
				st.pinned = append(st.pinned, p)
			}
		case "call":
			if c, ok := dec.call(i); ok {
				st.calls = append(st.calls, c)
			}
		case "message":
			m, err := dec.message(i)
			if err != nil {
				skipped(fmt.Sprintf("skipped a message that does not decode: %v", err))
				continue
			}
			st.msgs = append(st.msgs, m)
		case "note":
			var n string
			if json.Unmarshal(r.Data, &n) == nil {
				st.notes = append(st.notes, n)
			}
		case "attachment":
			var at attachment
			if json.Unmarshal(r.Data, &at) == nil {
				st.atts = append(st.atts, at)
			}
		case "notes_delivered":
			st.notes, st.atts = nil, nil
		}
	}
	return st
}

// apply makes st the conversation; the caller holds a.mu where others may
// be looking.
func (a *Agent) apply(st sessionState) {
	a.session, a.journal = st.s, st.j
	a.messages = st.msgs
	a.notes = st.notes
	a.attachments = st.atts
	a.pastCalls = st.calls
	a.earlier = st.earlier
	a.told, a.instructionNotes = st.told, nil
	a.compactions, a.pinned, a.compactHeld = st.compactions, st.pinned, 0
	a.lastCount = st.count
	a.usage = st.usage
}

// repairTranscript gives every tool call of a transcript that ended in the
// middle of a turn (a crash) its tool message, so the next request is valid.
func repairTranscript(msgs []openai.ChatCompletionMessage) []openai.ChatCompletionMessage {
	if whole(msgs) {
		return msgs
	}
	out := make([]openai.ChatCompletionMessage, 0, len(msgs)+8)
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		out = append(out, m)
		if m.Role != openai.ChatMessageRoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		got := map[string]bool{}
		for i+1 < len(msgs) && msgs[i+1].Role == openai.ChatMessageRoleTool {
			i++
			out = append(out, msgs[i])
			got[msgs[i].ToolCallID] = true
		}
		for _, tc := range m.ToolCalls {
			if !got[tc.ID] {
				out = append(out, toolMessage(tc.ID, tools.ErrorEnvelope(&tools.Error{
					Kind:    tools.KindUnknown,
					Message: "myclaw stopped before this call finished; it may or may not have run",
					Hint:    "Check the current state before relying on this call.",
				})))
			}
		}
	}
	return out
}

// AddHooks adds hooks (from a project config trusted during the
// session); they apply from the next turn.
func (a *Agent) AddHooks(hooks ...Hook) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.hooks = append(a.hooks[:len(a.hooks):len(a.hooks)], hooks...)
}

// Model returns the model name in use.
func (a *Agent) Model() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.model
}

// SetModel switches the model for the next request.
func (a *Agent) SetModel(name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.model = name
	a.probed, a.reprobe, a.textTools = false, false, false
}

// Instructions returns the session's instruction files (nil when none
// were configured).
func (a *Agent) Instructions() *Instructions { return a.opts.Instructions }

// Autonomy returns the current autonomy level.
func (a *Agent) Autonomy() approval.Level { return a.opts.Policy.Level() }

// SetAutonomy switches the autonomy level; the next request's catalog
// follows it.
func (a *Agent) SetAutonomy(l approval.Level) {
	if l == approval.Plan {
		// A new plan is coming: the last one no longer bounds the calls.
		a.mu.Lock()
		a.plan.accepted = nil
		a.mu.Unlock()
	}
	a.opts.Policy.SetLevel(l)
}

// TitleAs has the next prompt, if it is the session's first, name the
// session as title rather than by its text: a prompt with a long paste
// is named as the input showed it, the paste a chip.
func (a *Agent) TitleAs(title string) {
	a.mu.Lock()
	a.titleAs = title
	a.mu.Unlock()
}

// Session returns the current session.
func (a *Agent) Session() *history.Session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.session
}

// Messages returns a copy of the conversation (system prompt excluded).
func (a *Agent) Messages() []openai.ChatCompletionMessage {
	_ = a.ready()
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]openai.ChatCompletionMessage(nil), a.messages...)
}

// Status reports what the status line shows.
func (a *Agent) Status() Status {
	if !a.loaded() {
		// Resumed from its last turns, the rest loading behind the first
		// frame (or failed to): no count of the conversation yet, and the
		// journal is not open.
		a.mu.Lock()
		defer a.mu.Unlock()
		return Status{Model: a.model, Workspace: a.opts.Workspace, SessionID: a.session.Info().ID}
	}
	used, estimated := a.meter()
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.running {
		// The undo count follows a shell's `myclaw undo` too.
		_ = a.journal.Refresh()
	}
	return Status{
		Model:           a.model,
		Workspace:       a.opts.Workspace,
		SessionID:       a.session.Info().ID,
		TokensUsed:      used,
		TokensEstimated: estimated,
		ContextWindow:   a.window.Tokens,
		WindowSource:    a.window.Source,
		UndoDepth:       a.journal.Depth(),
		Cost:            a.usage.total.Cost,
		CostKnown:       a.usage.total.CostKnown,
	}
}

// OutputBudget is how many bytes of a command's output the model may be
// shown now, head and tail together: one byte per four tokens of context
// left (output costs a token per 2–4 bytes, so at most about a tenth of
// what is left), so one long output cannot fill the window.
func (a *Agent) OutputBudget() int {
	used, _ := a.meter()
	return max(a.opts.ContextWindow-used, 0) / 4
}

// Withdrawn is a tool that left the catalog, and why.
type Withdrawn struct {
	Meta tools.Meta
	Why  string
}

// Tools lists every registered tool and whether the model sees it now, then
// the tools withdrawn from the catalog: the one place that says which
// tools the model does not see, and why.
func (a *Agent) Tools() []ToolInfo {
	var out []ToolInfo
	for _, t := range a.opts.Registry.List() {
		m := t.Meta()
		wire, _ := a.opts.Registry.WireName(m.Name)
		visible, why := a.opts.Policy.Visible(m)
		details := tools.DetailsOf(t)
		if st := a.opts.Policy.HintStatus(m); st != "" {
			details = append(details, [2]string{"read_only_hint", st})
		}
		out = append(out, ToolInfo{Meta: m, Wire: wire, Visible: visible, Hidden: why, Details: details})
	}
	if a.opts.Withdrawn != nil {
		for _, w := range a.opts.Withdrawn() {
			out = append(out, ToolInfo{Meta: w.Meta, Hidden: w.Why, Details: tools.MetaDetails(w.Meta)})
		}
	}
	return out
}

// History lists the journaled calls of the session, oldest first.
// Compactions are listed among them, by time, as /undo walks them.
func (a *Agent) History() ([]history.Entry, error) {
	if err := a.whole(); err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	// A shell's `myclaw undo` may have changed the journal meanwhile.
	if err := a.journal.Refresh(); err != nil {
		a.opts.Logf("refresh the journal: %v", err)
	}
	entries := append(a.journal.Entries(), a.compactionEntries()...)
	slices.SortStableFunc(entries, func(x, y history.Entry) int { return x.Time.Compare(y.Time) })
	return entries, nil
}

// Diff is what the session changed, one unified diff per file (seq 0), or
// the change of journaled call #seq.
func (a *Agent) Diff(seq int) (string, error) {
	if err := a.whole(); err != nil {
		return "", err
	}
	a.mu.Lock()
	entries := a.journal.Entries()
	a.mu.Unlock()
	if seq > 0 {
		return history.CallDiff(entries, seq, a.opts.Store.Blobs())
	}
	return history.SessionDiff(entries, a.opts.Store.Blobs())
}

// Sessions lists the sessions of the workspace, newest first: those with
// something in them, and this one even while it is empty.
func (a *Agent) Sessions() ([]history.SessionInfo, error) {
	list, err := a.opts.Store.Sessions(a.opts.Workspace)
	return history.Listed(list, a.Session().Info().ID), err
}

// NewConversation starts a new session; the old one stays on disk.
func (a *Agent) NewConversation() error {
	_ = a.ready() // a session that failed to load may be left
	if err := a.idle(); err != nil {
		return err
	}
	s, err := a.opts.Store.NewSession(a.opts.Workspace, a.Model())
	if err != nil {
		return fmt.Errorf("start a new session: %w", err)
	}
	if err := a.switchTo(s); err != nil {
		return err
	}
	a.sessionSwitched("clear")
	return nil
}
