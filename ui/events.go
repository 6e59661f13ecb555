package ui

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/tools/termtext"
)

const (
	// eventBuffer is the room between a turn and the UI. When it is full,
	// emit waits: events are never dropped.
	eventBuffer = 4096
	// maxBatch bounds the events one message carries to Update.
	maxBatch = 4096
	// frameInterval is the fastest the live answer is re-rendered (~30/s).
	frameInterval = 33 * time.Millisecond
	// maxFrameInterval bounds the back-off when live blocks get expensive.
	maxFrameInterval = 250 * time.Millisecond
)

// turnItem is what a turn sends to the UI: an event, or the end of the
// turn with Run's error.
type turnItem struct {
	ev  agent.Event
	end bool
	err error
}

// eventsMsg is a batch of a turn's items, in order.
type eventsMsg struct {
	turn  int
	items []turnItem
}

// renderTickMsg publishes the streamed text to the screen.
type renderTickMsg struct{}

// serverCheckedMsg reports the startup check of the model server.
type serverCheckedMsg struct{ err error }

// waitForEvents is the re-armed Cmd of a turn: it waits for one item,
// then takes every item already waiting (up to maxBatch) so that a fast
// stream costs one Update per batch, not one per token.
func waitForEvents(turn int, ch <-chan turnItem) tea.Cmd {
	return func() tea.Msg {
		it, ok := <-ch
		if !ok {
			return eventsMsg{turn: turn, items: []turnItem{{end: true}}}
		}
		return eventsMsg{turn: turn, items: takeWaiting(ch, []turnItem{it})}
	}
}

// takeWaiting appends the items already waiting in ch to items, without
// blocking, up to maxBatch and up to the end of the turn.
func takeWaiting(ch <-chan turnItem, items []turnItem) []turnItem {
	for len(items) < maxBatch && (len(items) == 0 || !items[len(items)-1].end) {
		select {
		case it, ok := <-ch:
			if !ok {
				it = turnItem{end: true}
			}
			items = append(items, it)
		default:
			return items
		}
	}
	return items
}

// onlyDeltas reports whether items are all streamed text or reasoning:
// nothing the screen shows before the next publish tick.
func onlyDeltas(items []turnItem) bool {
	for _, it := range items {
		switch it.ev.(type) {
		case agent.TextDelta, agent.ReasoningDelta:
		default:
			return false
		}
	}
	return true
}

// shared is the state the program shares with the goroutines it starts:
// the turn goroutines and the Approver. Every turn goroutine is counted in
// wg and ends when Backend.Run returns; shutdown cancels the running turn
// and waits for it, so that the session is saved before Run returns.
type shared struct {
	base     context.Context
	approver *Approver

	mu     sync.Mutex
	closed bool
	cancel context.CancelFunc
	wg     sync.WaitGroup
	quit   chan struct{} // closed at shutdown: nobody reads events any more
}

func newShared(base context.Context) *shared {
	return &shared{base: base, approver: NewApprover(), quit: make(chan struct{})}
}

// begin registers a turn goroutine; false once shutting down.
func (s *shared) begin(cancel context.CancelFunc) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.wg.Add(1)
	s.cancel = cancel
	return true
}

// shutdown stops the running turn and waits up to timeout for it to end.
// It reports whether every turn goroutine ended.
func (s *shared) shutdown(timeout time.Duration) bool {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		if s.cancel != nil {
			s.cancel()
		}
		close(s.quit)
	}
	s.mu.Unlock()
	s.approver.Close()
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(timeout):
		return false
	}
}

// turnState is the running turn as the UI sees it.
type turnState struct {
	id         int
	cancel     context.CancelFunc
	ch         <-chan turnItem
	start      time.Time
	elapsed    time.Duration
	frame      int
	spunAt     time.Time // when the spinner last turned
	cancelling bool
	sawError   bool
	cancelled  bool
	// atTick: nobody waits on ch; the next publish tick reads it.
	atTick bool
	// retry is the turn's retry line: each new attempt replaces it.
	retry block
}

// liveText is the assistant answer being streamed: its text, split into
// blocks, and the block on screen that shows the unfinished part.
type liveText struct {
	screen termtext.Stream
	stream *mdStream
	tail   *mdTail
	dirty  bool
	// goesOn marks where the answer resumes below a block the UI put
	// in its way (a command's output); nil when there is none.
	goesOn block
	// published are the answer's finished blocks already in the
	// transcript.
	published []block
}

// titler is a backend that can name a session for its first prompt as the
// input showed it, pastes as chips, rather than by the text sent.
type titler interface{ TitleAs(title string) }

// startTurn sends prompt to the backend in a goroutine of its own.
func (m Model) startTurn(prompt string) (Model, tea.Cmd) {
	return m.startTurnAs(prompt, prompt)
}

// startTurnAs shows typed and sends prompt (they differ for a custom
// command).
func (m Model) startTurnAs(typed, prompt string) (Model, tea.Cmd) {
	b, approver := m.backend, m.shared.approver
	mentions := m.mentionsOf(prompt)
	shown := m.pasted[typed].shown
	return m.startRun(typed, func(ctx context.Context, emit func(agent.Event)) error {
		if err := attachAll(ctx, b, mentions, emit); err != nil {
			return err
		}
		if t, ok := b.(titler); ok && shown != "" {
			t.TitleAs(shown)
		}
		return b.Run(ctx, prompt, emit, approver)
	})
}

// startRun shows what the user typed (unless it is shown already: "")
// and runs fn in a goroutine of its own, as a turn: its events reach the
// transcript, Esc cancels it.
func (m Model) startRun(typed string, fn func(ctx context.Context, emit func(agent.Event)) error) (Model, tea.Cmd) {
	if typed != "" {
		m.tr.add(m.promptBlock(typed))
	}
	ctx, cancel := context.WithCancel(m.shared.base)
	ch := make(chan turnItem, eventBuffer)
	m.turnSeq++
	m.cards = map[string]*toolCard{}
	now := time.Now()
	m.turn = &turnState{id: m.turnSeq, cancel: cancel, ch: ch, start: now, spunAt: now}
	paceTurn(true)
	m.tr.toBottom()
	sh, log := m.shared, m.c.log
	id := m.turnSeq
	run := func() tea.Msg {
		send := func(it turnItem) {
			select {
			case ch <- it:
			case <-sh.quit:
			}
		}
		defer close(ch)
		if !sh.begin(cancel) {
			cancel()
			send(turnItem{end: true, err: errApproverClosed})
			return nil
		}
		defer sh.wg.Done()
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					log.Error("turn panicked", "panic", r, "stack", string(debug.Stack()))
					err = fmt.Errorf("internal error: %v", r)
				}
			}()
			log.Info("turn started", "turn", id)
			err = fn(ctx, func(ev agent.Event) { send(turnItem{ev: ev}) })
		}()
		log.Info("turn ended", "turn", id, "err", err)
		cancel()
		send(turnItem{end: true, err: err})
		return nil
	}
	return m, tea.Batch(run, waitForEvents(id, ch), spinnerTick(id))
}

// cancelTurn asks the running turn to stop; it ends when Run returns.
func (m Model) cancelTurn() (Model, tea.Cmd) {
	if m.turn == nil {
		return m, nil
	}
	m.turn.cancel()
	m.turn.cancelling = true
	m = m.closePane()
	return m, nil
}

func (m Model) handleEvents(msg eventsMsg) (Model, tea.Cmd) {
	if m.turn == nil || msg.turn != m.turn.id {
		return m, nil
	}
	m, ended, cmd := m.applyItems(msg.items)
	if ended {
		return m, cmd
	}
	var cmds []tea.Cmd
	if m.live != nil && m.live.dirty || m.think != nil && m.think.dirty {
		if !m.tickPending && m.c.now().Sub(m.lastPublish) >= m.renderInterval()-frameInterval/2 {
			// A model typing at its pace is read once a frame
			// (chat's readGap): what a read brings is shown at once,
			// without a tick's wake-ups and its wait.
			m = m.publish()
		} else {
			var tick tea.Cmd
			m, tick = m.scheduleRender()
			cmds = append(cmds, tick)
		}
	}
	if m.tickPending && onlyDeltas(msg.items) {
		// What streams next shows at the publish tick, not before: the
		// tick takes it from the channel (readTurnAtTick), rather than a
		// wake-up of three goroutines for every token.
		m.turn.atTick = true
	} else {
		cmds = append(cmds, waitForEvents(m.turn.id, m.turn.ch))
	}
	return m, tea.Batch(cmds...)
}

// readTurnAtTick takes what the turn sent since its channel was left for
// the publish tick, and waits on the channel again.
func (m Model) readTurnAtTick() (Model, tea.Cmd) {
	if m.turn == nil || !m.turn.atTick {
		return m, nil
	}
	m.turn.atTick = false
	m, ended, cmd := m.applyItems(takeWaiting(m.turn.ch, nil))
	if ended {
		return m, cmd
	}
	return m, waitForEvents(m.turn.id, m.turn.ch)
}

// applyItems hands a turn's items to the transcript; ended reports that
// the turn ended (cmd is then what follows).
func (m Model) applyItems(items []turnItem) (_ Model, ended bool, cmd tea.Cmd) {
	for _, it := range items {
		if it.end {
			m, cmd := m.endTurn(it.err)
			return m, true, tea.Batch(cmd, m.notify.notify("the turn finished"))
		}
		m = m.handleEvent(it.ev)
	}
	return m, false, nil
}

func (m Model) handleEvent(ev agent.Event) Model {
	m, attached := m.attachEvent(ev)
	if attached {
		return m
	}
	if m2, ok := m.goalEvent(ev); ok {
		return m2
	}
	switch ev := ev.(type) {
	case agent.TextDelta:
		if m.think != nil {
			m = m.finishThink()
		}
		if m.live == nil {
			m.live = &liveText{stream: newMDStream(), tail: &mdTail{}}
			m.tr.add(m.live.tail)
		}
		m.live.stream.write(m.live.screen.Write(ev.Text))
		m.live.dirty = true
	case agent.ReasoningDelta:
		if m.live != nil {
			m = m.finishLive()
		}
		if m.think == nil {
			m.think = &reasoningBlock{live: true}
			m.tr.add(m.think)
		}
		m.think.write(ev.Text)
	case agent.ToolCallEvent:
		var card *toolCard
		m, card = m.card(ev.Call)
		card.update(func(t *toolCard) {
			t.queued = ""
			if ev.Phase == "queued" {
				t.queued = fmt.Sprintf("queued · %d of %d", ev.Position, ev.Count)
			}
			if ev.Summary != "" {
				t.summary = ev.Summary
			}
			if len(ev.OutsidePlan) > 0 {
				t.outsidePlan = ev.OutsidePlan
			}
			if ev.Call.Edited {
				// It runs as the person edited it: the card names that.
				t.call, t.arg = ev.Call, keyArg(ev.Call.Args)
			}
		})
	case agent.ToolResultEvent:
		var card *toolCard
		m, card = m.card(ev.Call)
		card.finish(ev)
	case agent.ToolOutputEvent:
		if card, ok := m.cards[ev.CallID]; ok && card.status == "" {
			card.update(func(t *toolCard) {
				t.addLive(ev.Text)
				if ev.Progress != "" {
					t.progress = ev.Progress
				}
			})
		}
	case agent.ApprovalEvent:
		card, ok := m.cards[ev.CallID]
		if !ok {
			break
		}
		if ev.Tool == approval.NetworkTool {
			// A running command's host contact: the card keeps its own
			// decision and says what it waits for.
			host := ""
			if ev.Phase == "asked" {
				host = strings.TrimPrefix(ev.Request.Capability, "net:connect:")
			}
			card.update(func(t *toolCard) { t.waitingHost = host })
			break
		}
		job := startsJob(ev.Request)
		if ev.Phase == "asked" {
			card.update(func(t *toolCard) { t.waiting, t.job, t.outsidePlan = true, job, ev.Request.OutsidePlan })
			break
		}
		card.update(func(t *toolCard) { t.waiting, t.job = false, job })
		if ev.Phase == "decided" && ev.Decision != nil {
			card.decided(*ev.Decision)
		}
	case agent.PlanEvent:
		if ev.Proposal != nil {
			m = m.proposed(*ev.Proposal)
			break
		}
		m.plan = ev.Items
	case agent.UsageEvent:
		if ev.ContextWindow > 0 {
			m.status.window = ev.ContextWindow
			m.status.windowGuess = ev.WindowSource == "estimated"
		}
		if ev.Kind != "" && ev.Kind != agent.RequestTurn {
			// A summary request does not measure the conversation.
			break
		}
		// The meter is what the next request carries, as Status counts
		// it once the turn ends; a backend that does not say shows the
		// request's count.
		switch {
		case ev.Context > 0:
			m.status.tokens, m.status.estimated = ev.Context, ev.ContextEstimated
		case ev.TotalTokens > 0:
			m.status.tokens, m.status.estimated = ev.TotalTokens, ev.Estimated
		default:
			m.status.tokens, m.status.estimated = ev.PromptTokens+ev.CompletionTokens, ev.Estimated
		}
		m.status.cacheKnown = ev.CachedTokens != nil && ev.PromptTokens > 0
		if m.status.cacheKnown {
			m.status.cache = *ev.CachedTokens * 100 / ev.PromptTokens
		}
	case agent.RetryEvent:
		if m.turn.retry != nil {
			m.tr.remove(m.turn.retry)
		}
		m.turn.retry = noticeBlock(fmt.Sprintf("retrying in %s (attempt %d of %d): %s",
			formatElapsed(ev.Wait), ev.Attempt, ev.Max, oneLine(ev.Reason)))
		m = m.addTurnBlock(m.turn.retry)
	case agent.NoticeEvent:
		if ev.TextCalls {
			m = m.finishLiveAs(ev.Answer)
		}
		if ev.Warning {
			m = m.addTurnBlock(warnBlock(ev.Text))
		} else {
			m = m.addTurnBlock(noticeBlock(ev.Text))
		}
	case agent.CompactionEvent:
		m = m.addTurnBlock(compactionBlock(ev))
	case agent.ErrorEvent:
		m.turn.sawError = true
		m = m.addTurnBlock(errorBlock(ev.Message, ev.Hint))
	case agent.DoneEvent:
		switch ev.Reason {
		case agent.DoneCancelled:
			m.turn.cancelled = true
		case agent.DoneLimit:
			m = m.addTurnBlock(noticeBlock("stopped after " + strconv.Itoa(ev.Rounds) + " rounds: the turn reached its round limit"))
		}
	}
	return m
}

// card returns the card of a call, adding it to the transcript the first
// time the call is seen. Some servers reuse call ids from one response to
// the next, so a finished card is never reused: the id starts a new one.
func (m Model) card(call agent.Call) (Model, *toolCard) {
	if c, ok := m.cards[call.ID]; ok && c.status == "" {
		return m, c
	}
	c := newToolCard(call)
	m = m.addTurnBlock(c)
	m.cards[call.ID] = c
	return m, c
}

// endTurn closes the turn: the answer is finished, a cancelled turn gets
// its mark, an error its line, and the status line is refreshed.
func (m Model) endTurn(err error) (Model, tea.Cmd) {
	t := m.turn
	paceTurn(false)
	m = m.finishLive()
	m = m.finishThink()
	cancelled := t.cancelled || errors.Is(err, context.Canceled) || (t.cancelling && err != nil)
	for _, c := range m.cards {
		if c.status == "" {
			c.update(func(c *toolCard) {
				c.status = agent.StatusCancelled
				if !cancelled {
					c.status, c.message = agent.StatusError, "the turn ended before this call finished"
				}
			})
		}
	}
	switch {
	case cancelled:
		m.tr.add(noticeBlock("⊘ cancelled"))
	case err != nil && !t.sawError:
		msg, hint := errorParts(err)
		m.tr.add(errorBlock(msg, hint))
	}
	t.cancel()
	m.turn, m.busyNote = nil, "" // what waited for the turn can go
	m = m.closePane()
	m = m.settleCommandMode(cancelled)
	m, next, ok := m.nextQueued(cancelled)
	if ok {
		m, cmd := m.startTurn(next)
		return m, tea.Batch(refreshStatus(m.backend), cmd)
	}
	return m, refreshStatus(m.backend)
}

// scheduleRender arms the publish tick unless one is pending. The pace
// backs off when rendering the live block (the answer's tail or the
// reasoning) gets slow, so a huge unfinished block cannot eat the CPU.
func (m Model) scheduleRender() (Model, tea.Cmd) {
	if m.tickPending {
		return m, nil
	}
	m.tickPending = true
	d := m.renderInterval() - m.c.now().Sub(m.lastPublish)
	d = max(d, frameInterval/2)
	return m, tea.Tick(d, func(time.Time) tea.Msg { return renderTickMsg{} })
}

// renderInterval is the least time between two publications: a frame, or
// three times the last live render when that took longer.
func (m Model) renderInterval() time.Duration {
	return min(max(frameInterval, 3*m.c.liveCost), maxFrameInterval)
}

// publish moves what streamed since the last tick onto the screen:
// finished blocks go into the transcript (rendered when first seen), the
// unfinished one replaces the live tail.
func (m Model) publish() Model {
	m.lastPublish = m.c.now()
	if m.turn != nil && (m.live != nil && m.live.dirty || m.think != nil && m.think.dirty) {
		// The spinner turns in the frames that show text, rather than
		// in ten more a second of its own.
		m.turn.spin(m.lastPublish)
	}
	if m.live != nil && m.live.dirty {
		if done := m.live.stream.take(); len(done) > 0 {
			bs := make([]block, len(done))
			for i, src := range done {
				bs[i] = &mdBlock{src: src}
			}
			m.tr.insertBeforeLast(bs...)
			m.live.published = append(m.live.published, bs...)
		}
		m.live.tail.set(closeTail(m.live.stream.tail()))
		m.live.dirty = false
		m.tr.unseen = m.tr.unseen || !m.tr.follow
	}
	if m.think != nil && m.think.dirty {
		m.think.publish()
	}
	return m
}

// finishLive ends the streamed answer: all of it becomes finished blocks.
func (m Model) finishLive() Model {
	if m.live == nil {
		return m
	}
	m.live.stream.write(m.live.screen.Flush())
	m.live.stream.finish()
	m = m.keepAnswer(m.turnSeq, m.live.stream.src.String())
	m.tr.remove(m.live.tail)
	for _, src := range m.live.stream.take() {
		m.tr.add(&mdBlock{src: src})
	}
	m.live = nil
	return m
}

// finishLiveAs ends the streamed answer with answer in place of what
// streamed: the tool calls the model wrote as text run as calls, whose
// cards show them, so the answer kept in the conversation leaves them out
// and the screen and /copy do as well.
func (m Model) finishLiveAs(answer string) Model {
	if m.live == nil {
		return m
	}
	old := append(m.live.published, m.live.tail)
	var screen termtext.Stream
	s := newMDStream()
	s.write(screen.Write(answer))
	s.write(screen.Flush())
	s.finish()
	var bs []block
	for _, src := range s.take() {
		bs = append(bs, &mdBlock{src: src})
	}
	m.tr.replace(old, m.unprinted(m.live.published, bs)...)
	m = m.keepAnswer(m.turnSeq, answer)
	m.live = nil
	return m
}

func (m Model) finishThink() Model {
	if m.think == nil {
		return m
	}
	m.think.finish()
	m.think = nil
	return m
}

// checkServer runs Backend.CheckServer behind the first frame.
func checkServer(base context.Context, b Backend) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(base, 30*time.Second)
		defer cancel()
		return serverCheckedMsg{err: b.CheckServer(ctx)}
	}
}
