package ui

import (
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/history"
	"myclaw/tools/termtext"
)

// A long session is resumed from its end: the first frame shows its last
// turns (Options.Earlier) under a line saying the earlier ones are
// loading, and Options.Rest loads them behind it. They then take that
// line's place, above what is shown, so the view does not move: the bottom
// stays where it was, and a view scrolled up stays on the line it showed.

// Rest is the part of a resumed conversation before the turns
// Options.Earlier holds, loaded behind the first frame.
type Rest struct {
	// Before goes above the turns shown, oldest first. When Whole, it is
	// the whole conversation instead, which replaces them (their end did
	// not come out as the end of the whole).
	Before []Earlier
	Whole  bool
	// Notices are what the load skipped or recovered (a corrupt line, an
	// undo a crash interrupted).
	Notices []Notice
	// Journal is the session's calls, for the cards' undo state.
	Journal []history.Entry
	// Notice, when set, takes the place of the resume's notice (the one
	// marked Resumed): it can say what only the whole session tells, how
	// many messages it holds.
	Notice string
	// Err says the load failed: the session cannot go on.
	Err error
	// Placed, if set, is called behind the frame once the turns are in
	// place (the app gives the load's garbage back to the system).
	Placed func()
}

// restState is a resumed conversation's earlier part while it loads.
type restState struct {
	load func() Rest
	// line stands where the earlier turns go; shown are the blocks of
	// the turns the first frame showed.
	line    *transientBlock
	shown   []block
	started bool
	// notice is the resume's notice, which Rest.Notice replaces.
	notice block
}

// restMsg brings the earlier part of the conversation: of the one state
// stands for (another session may have taken its place meanwhile).
type restMsg struct {
	rest  Rest
	state *restState
}

// restDelay is how long after the first message the load starts: the
// program builds the first view before it reads a message, but the
// renderer writes it at its next tick (up to 16 ms later); a load started
// at once took both cores from that write (a 1,000-turn resume's first
// frame came 70–100 ms after a new session's, and 10–30 ms after with the
// delay).
const restDelay = 40 * time.Millisecond

// startRest starts the load once the first frame is out, so that the load
// does not compete with it for the cores.
func (m Model) startRest() tea.Cmd {
	r := m.rest
	if r == nil || r.started {
		return nil
	}
	r.started = true
	load := r.load // r itself only names the load
	return func() tea.Msg {
		time.Sleep(restDelay)
		return restMsg{rest: load(), state: r}
	}
}

// showTail shows the last turns of a conversation whose earlier part
// load loads, under a line saying so.
func (m Model) showTail(list []Earlier, load func() Rest) Model {
	line := &transientBlock{noticeBlock("earlier turns of the session are loading…")}
	m.tr.add(line)
	n := len(m.tr.blocks)
	m = m.showEarlier(list)
	m.rest = &restState{load: load, line: line, shown: append([]block(nil), m.tr.blocks[n:]...)}
	return m
}

// restNotice notes b, which shows n, as the resume's notice when n is
// it and the earlier turns load.
func (m Model) restNotice(n Notice, b block) Model {
	if n.Resumed && m.rest != nil {
		m.rest.notice = b
	}
	return m
}

// waitsForRest says, under a prompt sent while the earlier turns load,
// that it waits for them: the request carries every message.
func (m Model) waitsForRest() Model {
	if m.rest == nil || m.turn == nil {
		return m
	}
	return m.addBlock(noticeBlock("The session's earlier turns are still loading: this waits for them (a request carries every message)."))
}

// handleRest puts the earlier turns rs loaded in place of its loading
// line.
func (m Model) handleRest(rs *restState, r Rest) (Model, tea.Cmd) {
	if rs == nil || rs != m.rest || !m.tr.holds(rs.line) {
		return m, nil // another conversation took its place (/clear, /resume)
	}
	m.rest = nil
	unseen := m.tr.unseen
	if r.Err != nil {
		text, hint := errorParts(r.Err)
		m.tr.replace([]block{rs.line}, errorBlock(text, hint))
	} else {
		bs, ans := earlierBlocks(r.Before)
		old := []block{rs.line}
		var live []answer // of the turns since the start
		if r.Whole {
			old = append(old, rs.shown...)
			for _, a := range m.answers {
				if a.turn > 0 {
					live = append(live, a)
				}
			}
		} else {
			live = m.answers
		}
		m.tr.replace(old, bs...)
		m.answers = append(ans, live...)
		if len(m.answers) > maxAnswers {
			m.answers = m.answers[len(m.answers)-maxAnswers:]
		}
		m = m.markJournal(r.Journal)
		if r.Notice != "" && rs.notice != nil && m.tr.holds(rs.notice) {
			m.tr.replace([]block{rs.notice}, noticeBlock(r.Notice))
		}
	}
	if m.inl != nil {
		m.inl.journalDue = false // the cards may be printed now
	}
	// Nothing new at the bottom.
	m.tr.unseen = unseen
	for _, n := range r.Notices {
		if strings.TrimSpace(n.Text) != "" {
			m = m.addBlock(noticeBlockOf(n))
		}
	}
	if r.Placed == nil {
		return m, refreshStatus(m.backend)
	}
	// After the status line's count, which walks every message too.
	return m, tea.Sequence(refreshStatus(m.backend), func() tea.Msg {
		r.Placed()
		return nil
	})
}

// finishRest waits for earlier turns still loading when the program ends,
// so that what is written to the normal screen is the whole conversation.
func (m Model) finishRest() Model {
	if m.rest == nil {
		return m
	}
	m, _ = m.handleRest(m.rest, m.rest.load())
	return m
}

// holds reports whether b is in the transcript.
func (t *transcript) holds(b block) bool {
	for _, x := range t.blocks {
		if x == b {
			return true
		}
	}
	return false
}

// earlierBlocks are the blocks of a resumed conversation and its answers
// for /copy, earlier turns counting down from -1 (live ones count up).
func earlierBlocks(list []Earlier) (bs []block, ans []answer) {
	past := 0
	for _, e := range list {
		switch e.Role {
		case "user":
			past--
			bs = append(bs, earlierPromptBlock(e.Text))
		case "assistant":
			if strings.TrimSpace(e.Text) == "" {
				continue
			}
			src := termtext.Screen(e.Text)
			bs = append(bs, &mdBlock{src: src})
			text := strings.Trim(src, "\n")
			if strings.TrimSpace(text) == "" {
				continue
			}
			if n := len(ans); n > 0 && ans[n-1].turn == past {
				ans[n-1].text += "\n\n" + text
				continue
			}
			ans = append(ans, answer{turn: past, text: text})
		default:
			if e.Call != nil {
				bs = append(bs, pastCard(*e.Call))
				continue
			}
			bs = append(bs, noticeBlock(e.Text))
		}
	}
	return bs, ans
}
