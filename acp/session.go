package acp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"myclaw/agent"
	"myclaw/app"
	"myclaw/approval"
	"myclaw/tools"
	"myclaw/tools/termtext"
)

// session is one ACP session: a myclaw session and the turn it runs.
type session struct {
	id  acpsdk.SessionId
	srv *server
	es  *app.EditorSession

	mu sync.Mutex
	// cancel ends the running turn or command; nil when idle. idle is
	// closed when it has ended.
	cancel context.CancelFunc
	idle   chan struct{}
	// turn numbers the turns, to make the editor's tool call ids unique
	// (model servers reuse theirs).
	turn int
	// reasonFor names the call the person rejected "with a reason": the
	// next prompt is that reason, and reaches the model as such.
	reasonFor string
	// stopped is set when the turn was ended by myclaw for a rejection
	// with a reason, not by the editor.
	stopped bool
	closed  bool
	// proposal is the plan submitted in plan mode and not yet accepted;
	// accepted is set when leaving plan mode accepted it: the next prompt
	// carries the plan out.
	proposal *tools.Proposal
	accepted string
	// hold is the level a custom command set for its prompt (mode:), and
	// the one that comes back when it is over.
	hold *modeHold

	// announceMu orders the updates of the slash commands; announced is
	// the list the editor was last sent.
	announceMu sync.Mutex
	announced  *string
}

// send delivers an update; a failure (the editor gone) is logged. Updates
// are sent after a cancel too: the editor is owed each call's end.
func (ss *session) send(u acpsdk.SessionUpdate) {
	ctx := context.WithoutCancel(ss.srv.ctx)
	if err := ss.srv.peer().SessionUpdate(ctx, acpsdk.SessionNotification{SessionId: ss.id, Update: u}); err != nil {
		ss.srv.logf("session %s: update: %v", ss.id, err)
	}
}

// bufferWait bounds a read of an editor's buffer: then the file on disk
// is read.
const bufferWait = 10 * time.Second

// readBuffer reads a file as the editor holds it (fs/read_text_file).
func (ss *session) readBuffer(ctx context.Context, abs string) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, bufferWait)
	defer cancel()
	r, err := ss.srv.peer().ReadTextFile(ctx, acpsdk.ReadTextFileRequest{SessionId: ss.id, Path: abs})
	if err != nil {
		ss.es.Logf("acp: session %s: read %s through the editor: %v (read from disk)", ss.id, abs, err)
		return "", false
	}
	return r.Content, true
}

// text streams a message to the editor, made inert.
func (ss *session) text(s string) { ss.send(acpsdk.UpdateAgentMessageText(termtext.Visible(s))) }

// begin marks a turn or command as running under a context of its own,
// cancelled by session/cancel. A prompt that comes while one runs
// replaces it (the SDK has cancelled the older one): it waits for its end.
func (ss *session) begin(ctx context.Context) (context.Context, func(), error) {
	for {
		ss.mu.Lock()
		if ss.closed {
			ss.mu.Unlock()
			return nil, nil, errors.New("the session is closed")
		}
		if ss.cancel == nil {
			break
		}
		prev, idle := ss.cancel, ss.idle
		ss.mu.Unlock()
		prev()
		select {
		case <-idle:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
	defer ss.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	idle := make(chan struct{})
	ss.cancel, ss.idle = cancel, idle
	ss.turn++
	ss.stopped = false
	return ctx, func() {
		cancel()
		ss.mu.Lock()
		ss.cancel = nil
		ss.mu.Unlock()
		close(idle)
	}, nil
}

// cancelTurn cancels what the session runs.
func (ss *session) cancelTurn() {
	ss.mu.Lock()
	c := ss.cancel
	ss.mu.Unlock()
	if c != nil {
		c()
	}
}

// prompt runs one prompt: a slash command, or a turn of the agent.
func (ss *session) prompt(ctx context.Context, blocks []acpsdk.ContentBlock) (acpsdk.PromptResponse, error) {
	text, links, err := ss.promptText(blocks)
	if err != nil {
		return acpsdk.PromptResponse{}, err
	}
	ctx, end, err := ss.begin(ctx)
	if err != nil {
		return acpsdk.PromptResponse{}, err
	}
	defer end()
	resp, err := ss.dispatch(ctx, text, links)
	ss.settleMode(resp.StopReason == acpsdk.StopReasonCancelled || ctx.Err() != nil)
	return resp, err
}

// dispatch runs a prompt's text: a slash command, or a turn of the agent.
func (ss *session) dispatch(ctx context.Context, text string, links []string) (acpsdk.PromptResponse, error) {
	if name, args, ok := slashCommand(text); ok && len(links) == 0 {
		if c := ss.findCommand(name); c != nil {
			return ss.runCommand(ctx, c, text, args)
		}
	}
	ss.mu.Lock()
	reasonFor := ss.reasonFor
	ss.reasonFor = ""
	ss.mu.Unlock()
	if reasonFor != "" {
		text = fmt.Sprintf("(My reason for rejecting your %s call:) %s", reasonFor, text)
	}
	ss.mu.Lock()
	if ss.accepted != "" {
		text = ss.accepted + "\n\n" + text
		ss.accepted = ""
	}
	ss.mu.Unlock()
	return ss.run(ctx, text, links)
}

// run is one turn of the agent, its events turned into updates.
func (ss *session) run(ctx context.Context, text string, links []string) (acpsdk.PromptResponse, error) {
	ag := ss.es.Agent
	ss.mu.Lock()
	turn := ss.turn
	ss.mu.Unlock()
	u := newUpdater(ss, turn, ag.Tools())
	for _, path := range links {
		if err := ag.Mention(ctx, path, u.emit); err != nil {
			ss.text(fmt.Sprintf("Could not attach %s: %v\n", path, err))
		}
	}
	err := ag.Run(ctx, text, u.emit, &approver{ss: ss, u: u})
	ss.mu.Lock()
	stopped := ss.stopped
	ss.mu.Unlock()
	switch {
	case stopped:
		// Ended for a rejection with a reason: the turn waits for it.
		return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonEndTurn}, nil
	case err != nil && errors.Is(err, context.Canceled):
		return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonCancelled}, nil
	case err != nil:
		var ue *agent.UserError
		if errors.As(err, &ue) {
			return acpsdk.PromptResponse{}, userError(err)
		}
		if u.failed != "" {
			return acpsdk.PromptResponse{}, acpsdk.NewInternalError(map[string]any{"error": u.failed})
		}
		return acpsdk.PromptResponse{}, acpsdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	if u.done.Reason == agent.DoneLimit {
		return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonMaxTurnRequests}, nil
	}
	return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonEndTurn}, nil
}

// awaitReason ends the turn after the person rejected call "with a
// reason": their next prompt is the reason.
func (ss *session) awaitReason(tool string) {
	ss.mu.Lock()
	ss.reasonFor, ss.stopped = tool, true
	c := ss.cancel
	ss.mu.Unlock()
	ss.text("\n\nRejected. Send your reason as the next message: it goes to the model as why you rejected the " + tool + " call.\n")
	if c != nil {
		c()
	}
}

// modes is the session's mode state: its autonomy level.
func (ss *session) modes() *acpsdk.SessionModeState {
	st := &acpsdk.SessionModeState{CurrentModeId: acpsdk.SessionModeId(ss.es.Agent.Autonomy())}
	for _, m := range modeList {
		d := m.desc
		st.AvailableModes = append(st.AvailableModes, acpsdk.SessionMode{Id: acpsdk.SessionModeId(m.level), Name: m.name, Description: &d})
	}
	return st
}

// setMode sets the autonomy level a mode stands for.
func (ss *session) setMode(_ context.Context, id acpsdk.SessionModeId) error {
	m, ok := findMode(id)
	if !ok {
		var ids []string
		for _, m := range modeList {
			ids = append(ids, string(m.level))
		}
		return acpsdk.NewInvalidParams(map[string]any{"modeId": fmt.Sprintf("unknown mode %q: want %s", id, strings.Join(ids, ", "))})
	}
	ag := ss.es.Agent
	ss.mu.Lock()
	ss.hold = nil // the editor chose the level
	p := ss.proposal
	accept := p != nil && ag.Autonomy() == approval.Plan && m.level != approval.Plan && m.level != approval.ReadOnly
	if accept {
		// Leaving plan mode for a level that can act accepts the plan, as
		// y does in the terminal: the next prompt carries it out.
		ss.proposal, ss.accepted = nil, agent.AcceptedPrompt(*p, false, m.level)
	}
	ss.mu.Unlock()
	if accept {
		ag.AcceptPlan(*p, m.level)
		ss.send(acpsdk.UpdatePlan(planEntries(p.Items())...))
		ss.text(fmt.Sprintf("\nPlan accepted: %d steps, in %s mode. Send a prompt (\"go\" will do) to carry it out.\n", len(p.Steps), m.name))
	} else {
		ag.SetAutonomy(m.level)
	}
	ss.es.Logf("acp: session %s: autonomy %s", ss.id, m.level)
	ss.send(acpsdk.SessionUpdate{CurrentModeUpdate: &acpsdk.SessionCurrentModeUpdate{CurrentModeId: id}})
	return nil
}

// close ends the session: its turn cancelled, its jobs and MCP servers
// stopped.
func (ss *session) close() {
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return
	}
	ss.closed = true
	c := ss.cancel
	ss.mu.Unlock()
	if c != nil {
		c()
	}
	ss.es.Close()
}

// userError is a start-up or turn failure as the editor shows it.
func userError(err error) error {
	var ue *agent.UserError
	if errors.As(err, &ue) {
		msg := ue.Msg
		if ue.Hint != "" {
			msg += " " + ue.Hint
		}
		return &acpsdk.RequestError{Code: -32603, Message: termtext.Visible(msg)}
	}
	var use *app.UsageError
	if errors.As(err, &use) {
		return acpsdk.NewInvalidParams(map[string]any{"error": use.Msg})
	}
	return acpsdk.NewInternalError(map[string]any{"error": termtext.Visible(err.Error())})
}

// Mode is an ACP session mode: an autonomy level by another name.
type mode struct {
	level approval.Level
	name  string
	desc  string
}

// modeList is what the editor offers, least autonomous first; a mode is
// one line here.
var modeList = []mode{
	{approval.ReadOnly, "Read-only", "Only tools that change nothing are offered to the model."},
	{approval.Ask, "Ask", "Every call with a side effect asks first, unless a rule allows it."},
	{approval.AutoEdit, "Auto-edit", "Edits in the workspace with a faithful preview run without asking; the rest asks."},
	{approval.Full, "Full", "Everything runs without asking; deny rules still hold and commands stay sandboxed."},
	{approval.Plan, "Plan", "Only read-only tools, commands run read-only; the model submits a plan, which switching to Ask, Auto-edit or Full accepts."},
}

func findMode(id acpsdk.SessionModeId) (mode, bool) {
	for _, m := range modeList {
		if string(m.level) == string(id) {
			return m, true
		}
	}
	return mode{}, false
}
