// Package ui is myclaw's terminal interface, a Bubble Tea program.
//
// The root Model routes messages to its parts: the transcript (prompts,
// streamed markdown answers, tool cards, fenced untrusted output, notices),
// the prompt input with slash-command completion, the approval pane and the
// status line. A turn runs Backend.Run in a goroutine of its own; its events
// reach Update in batches through a re-armed Cmd, and approval requests
// arrive through the Approver on a channel of their own. Update never
// blocks and does no I/O: backend calls run in Cmds that return messages.
//
// Speed comes from caching: every block of the transcript keeps its
// rendered lines per width, a frame only touches the blocks on screen, and
// a streamed answer is split into blocks so that only its unfinished last
// block is rendered again, at most ~30 times a second.
package ui

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"myclaw/agent"
	"myclaw/tools"
)

// Model is the root tea.Model of the TUI.
type Model struct {
	c       *common
	backend Backend
	shared  *shared
	tr      *transcript
	input   inputModel
	pane    *approvalPane
	queue   []*pendingApproval
	cards   map[string]*toolCard
	status  statusInfo
	sc      *statusCache // parts of the status line, kept between frames
	sl      *statusLine  // the line [status] shapes, and its command

	turn        *turnState
	turnSeq     int
	live        *liveText
	think       *reasoningBlock
	tickPending bool
	lastPublish time.Time // when streamed text last reached the screen
	quitArmed   bool
	// busyNote is what the status line says until the next key about
	// input that waits for the running turn (see keptWhileBusy).
	busyNote string
	// queued are prompts sent while a turn ran, sent in order after it.
	queued []string
	// notices carries lines from outside a turn.
	notices <-chan Notice
	// typedAs maps a prompt sent for a custom command to the line typed
	// (/review calc.go), for /fork to show what the person wrote.
	typedAs map[string]string
	// pasted maps a prompt with large pastes to how the input showed it,
	// chips in place of the pastes, until the transcript shows it.
	pasted map[string]sentText
	// pastes holds the text of pastes the input reader took out of the
	// key stream (see pasteReader); nil when it reads no terminal.
	pastes *pasteQueue
	// form is the MCP server form on screen; forms wait behind it.
	form  *elicitForm
	forms []FormRequest
	// picker is a list to choose from (/sessions, /fork) in place of the input.
	picker *picker
	// job shows a background job's output (/jobs ID) in place of the input;
	// jobSeq numbers the views opened, so a closed one's reads are dropped.
	job    *jobView
	jobSeq int
	// agents is the /agents list, in place of the input.
	agents *agentList
	// compactCancel cancels a running /compact.
	compactCancel context.CancelFunc
	// previewing is set while a call the person chose to preview runs;
	// the pane comes back with its result.
	previewing bool
	// remerging is set while an agent's merge is proposed again after the
	// person resolved a conflict; the pane comes back with it.
	remerging bool
	// editedCall is the id of the call the person just edited: its pane
	// comes back with the edit, which it says.
	editedCall string
	formCh     <-chan FormRequest
	// loadCommands loads the custom commands; commandsStamp tells cheaply
	// whether their folders changed since.
	loadCommands  CommandLoader
	commandsStamp func() string
	// plan is the model's checklist (todo_write), shown above the input.
	plan []tools.PlanItem
	// goal is the goal run of the running turn (/goal), for the status line.
	goal *goalState
	// review is a plan submitted in plan mode, waiting for a decision.
	review *planReview
	// cmdMode is the level a custom command set for its prompt (mode:),
	// and the one that comes back when it is over.
	cmdMode *modeHold
	// fsys is the workspace, for the @ completion's index.
	fsys fs.FS
	// notify calls for attention while the terminal is not focused.
	notify *notifier
	// answers are the latest answers, for /copy.
	answers []answer
	// welcome is the first block; it shows the server check's outcome.
	welcome *welcomeBlock
	// historyPath is the prompt history file ("" keeps none).
	historyPath string
	// levelsPending counts Shift+Tab level changes not yet set in the
	// backend; until they are, the status line keeps its own level.
	levelsPending int
	// inl is the inline screen's state; nil on the alternate screen.
	inl *inlineState
	// rest is the earlier part of a resumed conversation while it loads
	// behind the first frame (rest.go).
	rest *restState
}

// newModel builds the model; base is the parent of every turn's context.
func newModel(base context.Context, b Backend, opts Options, log *slog.Logger) Model {
	// Detected once: lipgloss caches both, so frames never query the terminal.
	profile := lipgloss.ColorProfile()
	theme, themeErr := pickTheme(opts.Theme, opts.Themes)
	c := &common{
		width: defaultWidth, height: defaultHeight,
		styles: NewStyles(theme),
		keys:   DefaultKeyMap(),
		md:     newMarkdown(theme, profile, log),
		log:    log,
		now:    time.Now,
	}
	m := Model{
		c:       c,
		backend: b,
		shared:  newShared(base),
		tr:      newTranscript(),
		cards:   map[string]*toolCard{},
		sc:      &statusCache{},
		typedAs: map[string]string{},
		pasted:  map[string]sentText{},
	}
	m.input = newInput(c)
	m.historyPath = opts.HistoryPath
	m.input.history = loadPromptHistory(opts.HistoryPath)
	m.input.histIdx = len(m.input.history)
	home, _ := os.UserHomeDir()
	m.status = statusInfo{workspace: oneLine(shortenHome(opts.Workspace, home)), model: b.Model(), unsandboxed: opts.Unsandboxed}
	m.status.apply(b.Status(), b.Autonomy())
	m.welcome = newWelcome(opts.Version, b.Model(), opts.Server, m.status.level, opts.Unsandboxed)
	m.tr.add(m.welcome)
	if opts.Rest != nil {
		m = m.showTail(opts.Earlier, opts.Rest)
	} else {
		m = m.showEarlier(opts.Earlier)
	}
	for _, n := range opts.Banner {
		if strings.TrimSpace(n.Text) != "" {
			b := noticeBlockOf(n)
			m.tr.add(b)
			m = m.restNotice(n, b)
		}
	}
	m.notices = opts.Notices
	m.formCh = opts.Forms
	m.loadCommands, m.commandsStamp = opts.Commands, opts.CommandsStamp
	c.workspace = opts.Workspace
	if opts.EditorKey != "" {
		c.keys.ExternalEditor = key.NewBinding(key.WithKeys(opts.EditorKey), key.WithHelp(opts.EditorKey, c.keys.ExternalEditor.Help().Desc))
	}
	m = m.setUpLooks(opts, theme, themeErr)
	m.notify = newNotifier(opts.Notify, opts.Output)
	m.fsys = opts.Files
	if m.fsys == nil && opts.Workspace != "" {
		m.fsys = os.DirFS(opts.Workspace)
	}
	m.c.files.pending = m.fsys != nil // Init builds it
	if opts.Inline {
		m.inl = &inlineState{journalDue: m.hasPastCards()}
	}
	return m
}

// Init implements tea.Model: it starts waiting for approval requests and
// checks the model server behind the first frame.
func (m Model) Init() tea.Cmd {
	var journal tea.Cmd
	if m.hasPastCards() && m.rest == nil { // the rest brings the journal
		journal = loadJournal(m.backend)
	}
	return tea.Batch(m.shared.approver.waitForApproval(), checkServerStatus(m.shared.base, m.backend), fetchModels(m.shared.base, m.backend), waitForNotice(m.notices), loadCommandsStamped(m.loadCommands, m.commandsStamp), loadPrompts(m.backend), waitForForm(m.formCh), buildIndex(m.shared.base, m.fsys, m.c.workspace), journal, m.readBranch(), m.inlineInit())
}

// Update implements tea.Model.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := m.update(msg)
	m, arm := m.guardForm()
	if arm != nil {
		cmd = tea.Batch(cmd, arm)
	}
	if sl := m.runStatusCommand(); sl != nil {
		cmd = tea.Batch(cmd, sl)
	}
	if ld := m.startRest(); ld != nil {
		cmd = tea.Batch(cmd, ld)
	}
	if m.inl != nil {
		var pr tea.Cmd
		if m, pr = m.inlineStep(msg); pr != nil {
			cmd = tea.Batch(cmd, pr)
		}
	}
	return m, cmd
}

// update handles msg; Update then keeps the form's key guard.
func (m Model) update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.c.width, m.c.height = max(msg.Width, 1), max(msg.Height, 1)
		m.input.resize()
		if m.pane != nil && m.pane.mode != modeChoose {
			m.pane.fitEditor()
		}
		return m, nil
	case tea.KeyMsg:
		return m.handleKey(takePaste(m.pastes, msg))
	case tea.MouseMsg:
		return m.handleMouse(msg)
	case eventsMsg:
		return m.handleEvents(msg)
	case renderTickMsg:
		m.tickPending = false
		m, cmd := m.readTurnAtTick()
		return m.publish(), cmd
	case spinnerTickMsg:
		if m.turn == nil || msg.turn != m.turn.id {
			return m, nil
		}
		if !m.turn.spin(msg.now) {
			// Streamed text turned it meanwhile, in the same frames.
			return m, spinnerTickIn(m.turn.id, spinnerIdleCheck)
		}
		return m, spinnerTick(m.turn.id)
	case approvalWithdrawnMsg:
		return m.handleApprovalWithdrawn(msg)
	case approvalRequestMsg:
		m, cmd := m.handleApprovalRequest(msg)
		return m, tea.Batch(cmd, m.notify.notify("approval needed: "+msg.p.req.Tool+" "+msg.p.req.Summary))
	case tea.FocusMsg:
		m.notify.focused = true
		return m, nil
	case tea.BlurMsg:
		m.notify.focused = false
		return m, nil
	case approvalDecidedMsg:
		return m.handleDecision(msg)
	case paneEndTurnMsg:
		return m.handlePaneEndTurn(msg)
	case paneArmedMsg:
		if m.pane != nil && m.pane.p == msg.p {
			m.pane.armed = true
		}
		return m, nil
	case formArmedMsg:
		if m.form == msg.f && m.form.arming && m.form.shown == msg.shown {
			m.form.armed, m.form.arming = true, false
		}
		return m, nil
	case commandResultMsg:
		return m.handleCommandResult(msg)
	case tooLongMsg:
		return m.handleTooLong(msg)
	case jobTailMsg:
		return m.handleJobTail(msg)
	case jobFollowMsg:
		return m.handleJobFollow(msg)
	case conflictEditedMsg:
		return m.handleConflictEdited(msg)
	case agentListMsg:
		return m.handleAgentList(msg)
	case agentListFollowMsg:
		return m.handleAgentListFollow(msg)
	case journalMsg:
		return m.markJournal(msg.entries), nil
	case restMsg:
		return m.handleRest(msg.state, msg.rest)
	case sessionSwitchedMsg:
		return m.handleSessionSwitched(msg)
	case forkPromptsMsg:
		return m.handleForkPrompts(msg)
	case compactDoneMsg:
		m.compactCancel, m.busyNote = nil, "" // what waited for it can go
		m.tr.remove(msg.progress)
		m, cmd := m.handleCommandResult(msg.res)
		m, next, ok := m.nextQueued(msg.res.err != nil)
		if ok {
			m, start := m.startTurn(next)
			return m, tea.Batch(cmd, start)
		}
		return m, cmd
	case modelListMsg:
		return m.modelPicker(msg)
	case modelsMsg:
		m.c.models = msg.list
		return m, nil
	case formRequestMsg:
		return m.handleFormRequest(msg)
	case formAnsweredMsg:
		return m.handleFormAnswer(msg)
	case noticeMsg:
		m = m.addBlock(noticeBlockOf(msg.n))
		return m, tea.Batch(waitForNotice(m.notices), refreshStatus(m.backend), loadPrompts(m.backend))
	case editorDoneMsg:
		return m.handleEditorDone(msg)
	case planEditedMsg:
		return m.handlePlanEdited(msg)
	case indexBuiltMsg:
		m.c.files.set(msg)
		m.input.refresh()
		return m, nil
	case promptsMsg:
		m.c.prompts = msg.list
		m.input.refresh()
		return m, nil
	case customCommandsMsg:
		return m.setCustomCommands(msg), nil
	case levelSetMsg:
		return m.levelSet(msg)
	case statusLineMsg:
		return m.handleStatusLine(msg)
	case statusRefreshMsg:
		level := msg.level
		if m.levelsPending > 0 {
			level = "" // read before a Shift+Tab's change reached the backend
		}
		m.status.apply(msg.status, level)
		m.welcome.setLevel(m.status.level)
		m.status.jobs = msg.jobs
		m.status.sandbox, m.status.session = msg.sandbox, msg.status.SessionID
		m.status.agents = msg.agents
		return m, m.readBranch()
	case serverStatusMsg:
		return m.handleServerStatus(msg)
	case serverCheckedMsg:
		m.welcome.checked(msg.err)
		if msg.err != nil {
			text, hint := errorParts(msg.err)
			var ue *agent.UserError
			if errors.As(msg.err, &ue) {
				// One sentence and the next step; the cause (dial tcp …:
				// connection refused) is in the log.
				text = ue.Msg
				m.c.log.Info("server check failed", "err", msg.err)
			}
			if hint == "" {
				hint = "check the server address and the model name; /model switches the model"
			}
			m = m.addBlock(errorBlock(text, hint))
		}
		// The check learns the model's window: the status line shows it now.
		return m, refreshStatus(m.backend)
	}
	// Pasted text arrives as a KeyMsg; nothing else reaches the editors.
	return m, nil
}

// transcriptHeight is what is left for the transcript once the bottom
// part (input or pane, popup, status line) is laid out.
func (m Model) transcriptHeight() int {
	return max(m.c.height-len(m.bottomView())-1, 1)
}

func (m Model) bottomView() []string {
	if m.pane != nil {
		return m.pane.view()
	}
	if m.form != nil {
		return m.form.view()
	}
	if m.picker != nil {
		return m.picker.view()
	}
	if m.job != nil {
		return m.job.view()
	}
	if m.agents != nil {
		return m.agents.view()
	}
	if m.reviewing() {
		return m.reviewView()
	}
	if m.previewing && m.remerging {
		st := &m.c.styles
		return []string{st.Dim.Render(truncate("  merging the agent's change again, against the workspace as it now is · "+m.c.keys.Cancel.Help().Key+" cancels", max(m.c.width, minWidth)))}
	}
	if m.previewing {
		st := &m.c.styles
		return []string{st.Dim.Render(truncate("  previewing: the command runs once in a scratch layer, without network · "+m.c.keys.Cancel.Help().Key+" cancels", max(m.c.width, minWidth)))}
	}
	out := append(m.planView(), m.input.popupView()...)
	return append(append(out, m.queuedView()...), m.input.view()...)
}

func (m Model) handleKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := &m.c.keys
	m.busyNote = ""
	// A paste is text, never a key; naming it for key.Matches copies it
	// once per binding, which a paste of megabytes cannot afford.
	if !msg.Paste && key.Matches(msg, k.Interrupt) {
		switch {
		case m.turn != nil:
			m.quitArmed = false
			return m.cancelTurn()
		case m.picker != nil || m.job != nil || m.agents != nil:
			m.picker, m.job, m.agents = nil, nil, nil
			return m, nil
		case m.pane == nil && m.form == nil && m.input.ta.value() != "":
			// A draft goes first: quitting needs an empty prompt.
			m.input.setValue("")
			m.quitArmed = false
			return m, nil
		case m.quitArmed:
			return m.quit()
		}
		m.quitArmed = true
		return m, nil
	}
	m.quitArmed = false
	if m.pane != nil {
		var cmd tea.Cmd
		m.pane, cmd = m.pane.update(msg)
		return m, cmd
	}
	if m.form != nil && !m.form.armed {
		return m.typeAhead(msg), nil
	}
	if m.form != nil {
		var cmd tea.Cmd
		m.form, cmd = m.form.update(msg)
		return m, cmd
	}
	if m.picker != nil {
		var cmd tea.Cmd
		m.picker, cmd = m.picker.update(msg)
		return m, cmd
	}
	if m.agents != nil {
		return m.agentListKey(msg)
	}
	if m.job != nil {
		v := m.job
		next, passOn := v.update(msg)
		m.job = next
		if next != nil {
			return m, nil
		}
		if note := v.note(); note != "" {
			m = m.addBlock(newFuncBlock(textDraw(note)))
		}
		if !passOn {
			return m, nil
		}
	}
	if m.reviewing() {
		return m.handleReviewKey(msg)
	}
	if m.previewing {
		if !msg.Paste && key.Matches(msg, k.Cancel) {
			return m.cancelTurn()
		}
		return m, nil // the pane comes back with the result
	}
	switch {
	case msg.Paste:
	case key.Matches(msg, k.Cancel):
		if m.input.popupVisible() {
			m.input.closed = true
			return m, nil
		}
		if m.compactCancel != nil {
			m.compactCancel()
			return m, nil
		}
		return m.cancelTurn()
	case m.inl != nil && key.Matches(msg, k.PageUp, k.PageDown, k.Top, k.Bottom):
		return m, nil // printed lines scroll in the terminal's scrollback
	case key.Matches(msg, k.PageUp):
		h := m.transcriptHeight()
		m.tr.scroll(m.c, h, -max(h-2, 1))
		return m, nil
	case key.Matches(msg, k.PageDown):
		h := m.transcriptHeight()
		m.tr.scroll(m.c, h, max(h-2, 1))
		return m, nil
	case key.Matches(msg, k.Top):
		m.tr.toTop(m.c, m.transcriptHeight())
		return m, nil
	case key.Matches(msg, k.Bottom):
		m.tr.toBottom()
		return m, nil
	case key.Matches(msg, k.ToggleTools):
		m.c.expandTools = !m.c.expandTools
		m.c.gen++
		return m, nil
	case key.Matches(msg, k.ExternalEditor):
		// The editor gets the pasted text itself, not the chips.
		return m, openEditor(m.input.expandPastes(m.input.ta.value()))
	case key.Matches(msg, k.ToggleThink):
		m.c.showThink = !m.c.showThink
		m.c.gen++
		return m, nil
	case key.Matches(msg, k.ToggleMouse):
		return m.setMouse(m.c.mouseOff)
	case key.Matches(msg, k.CycleLevel):
		return m.cycleLevel()
	}
	if !msg.Paste && key.Matches(msg, k.HistoryPrev) && len(m.queued) > 0 && m.input.ta.value() == "" {
		m = m.unqueue()
		return m, nil
	}
	was := m.input.ta.value()
	if text := m.input.update(msg); text != "" {
		m = m.notePasted(text)
		next, cmd := m.submit(text)
		return next, tea.Batch(cmd, savePrompt(m.historyPath, text))
	}
	if now := m.input.ta.value(); strings.HasPrefix(now, "/") && (!strings.HasPrefix(was, "/") || key.Matches(msg, k.Complete)) {
		// The commands folder may have changed since it was read.
		return m, tea.Batch(m.maybeIndex(), rescanCommands(m.commandsStamp, m.loadCommands, m.c.customStamp))
	}
	return m, m.maybeIndex()
}

// wheelLines is how far one notch of the mouse wheel scrolls.
const wheelLines = 3

func (m Model) handleMouse(msg tea.MouseMsg) (Model, tea.Cmd) {
	if msg.Action != tea.MouseActionPress {
		return m, nil
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		m.tr.scroll(m.c, m.transcriptHeight(), -wheelLines)
	case tea.MouseButtonWheelDown:
		m.tr.scroll(m.c, m.transcriptHeight(), wheelLines)
	}
	return m, nil
}

// submit sends a prompt or runs a slash command. "//" at the start sends a
// prompt that begins with "/".
func (m Model) submit(text string) (Model, tea.Cmd) {
	// What is sent gets its answer at the bottom: show it there.
	m.tr.toBottom()
	if strings.HasPrefix(text, "/") && !strings.HasPrefix(text, "//") {
		return m.runCommand(text)
	}
	if strings.HasPrefix(text, "!") {
		m, cmd := m.submitShell(text)
		return m.waitsForRest(), cmd
	}
	text = strings.TrimPrefix(text, "/")
	if m.turn != nil || m.compactCancel != nil {
		// Sent once the turn (or the compaction) is over.
		m.queued = append(m.queued, text)
		return m, nil
	}
	if m, ok := m.tooLong(text); ok {
		return m, nil
	}
	m, cmd := m.startTurn(text)
	return m.waitsForRest(), cmd
}

func (m Model) handleCommandResult(msg commandResultMsg) (Model, tea.Cmd) {
	if msg.cleared {
		m = m.finishLive()
		m = m.finishThink()
		m.tr.clear()
		m.rest = nil
		m.cards = map[string]*toolCard{}
		m.plan = nil
		m.review = nil
	}
	m = m.markJournal(msg.journal)
	if msg.draw != nil {
		m = m.addBlock(newFuncBlock(msg.draw))
	}
	if msg.err != nil {
		text, hint := errorParts(msg.err)
		m = m.addBlock(errorBlock(text, hint))
	}
	if msg.refresh || msg.cleared {
		return m, refreshStatus(m.backend)
	}
	return m, nil
}

// quit ends the program; Run then cancels a running turn and waits for it.
func (m Model) quit() (Model, tea.Cmd) {
	if m.turn != nil {
		m.turn.cancel()
	}
	if m.inl != nil {
		m.inl.quitting = true
	}
	return m, tea.Quit
}

// addBlock adds a block that comes from the UI rather than from the
// turn: a command and its output, an error about what was typed, a
// notice. While an answer or its reasoning streams, the block goes just
// above the live block, which stays last and carries on unbroken below it
// (what streamed so far is published first, so the order holds).
func (m Model) addBlock(b block) Model {
	if m.live == nil && m.think == nil {
		m.tr.add(b)
		return m
	}
	m = m.publish()
	if m.live == nil {
		m.tr.insertBeforeLast(b)
		return m
	}
	// The answer goes on below what was put in its way: say so, once for
	// a run of such blocks.
	if n := len(m.tr.blocks); n >= 2 && m.live.goesOn != nil && m.tr.blocks[n-2] == m.live.goesOn {
		m.tr.remove(m.live.goesOn)
	}
	m.live.goesOn = goesOnBlock()
	m.tr.insertBeforeLast(b, m.live.goesOn)
	return m
}

// addTurnBlock adds a block that comes from the turn. Events arrive in
// order, so a streamed answer or reasoning in progress is complete: it is
// finished first.
func (m Model) addTurnBlock(b block) Model {
	m = m.finishLive()
	m = m.finishThink()
	m.tr.add(b)
	return m
}

// View implements tea.Model. Its cost depends on the screen size, not on
// the length of the conversation.
func (m Model) View() string {
	if m.inl != nil {
		return m.inlineView()
	}
	bottom := m.bottomView()
	th := max(m.c.height-len(bottom)-1, 1)
	lines := m.tr.view(m.c, th)
	if m.tr.unseen && !m.tr.follow && len(lines) > 1 {
		lines[len(lines)-1] = m.c.styles.StatusHint.Render(truncate("  ↓ new output · "+m.c.keys.Bottom.Help().Key+" to follow", m.c.width))
	}
	return m.frame(lines, bottom)
}

// frame joins the transcript's lines, the bottom (input, pane) and the
// status line into the view.
func (m Model) frame(lines, bottom []string) string {
	var b strings.Builder
	b.Grow((len(lines) + len(bottom) + 1) * (m.c.width + 16))
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	for _, l := range bottom {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.WriteString(m.statusView())
	return b.String()
}
