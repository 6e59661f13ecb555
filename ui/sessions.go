package ui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"myclaw/agent"
	"myclaw/tools/termtext"
)

// Sessions is what /sessions, /resume and /fork need beyond Backend: to
// continue another session of the workspace in place of this one.
type Sessions interface {
	// OpenSession continues the stored session id.
	OpenSession(id string) (SessionView, error)
	// Fork continues in a copy of this session: of all of it (before 0)
	// or of what came before prompt number before.
	Fork(before int) (SessionView, error)
	// Prompts lists the user prompts of this session, oldest first.
	Prompts() ([]agent.Prompt, error)
}

// SessionView is what the TUI shows after switching sessions.
type SessionView struct {
	// Notice says what happened, e.g. which session was forked.
	Notice string
	// Earlier is the conversation so far, as at start.
	Earlier []Earlier
	// Rest, when set, loads the conversation before Earlier, as
	// Options.Rest does: a long session opens from its end, the notice
	// (which Rest.Notice may replace) under its last turns.
	Rest func() Rest
	// Draft goes into the input (the prompt a fork was made before).
	Draft string
}

// sessionSwitchedMsg carries the result of opening or forking a session.
type sessionSwitchedMsg struct {
	view SessionView
	err  error
}

// pickItem is one row of a picker; value is what picking it passes on.
type pickItem struct {
	label, value string
}

// picker is a list to choose one item from, shown in place of the input.
// A filterable one narrows the list to the items holding what is typed.
type picker struct {
	c          *common
	title      string
	items      []pickItem
	sel        int // in the shown items
	pick       func(value string) tea.Cmd
	verb       string // what Enter does to the item, "opens" when empty
	filterable bool
	filter     string
}

// pickerRows bounds the rows shown; the list scrolls with the selection.
const pickerRows = 10

// shown is the items that hold the filter (all without one).
func (p *picker) shown() []pickItem {
	if p.filter == "" {
		return p.items
	}
	var out []pickItem
	f := strings.ToLower(p.filter)
	for _, it := range p.items {
		if strings.Contains(strings.ToLower(it.label), f) {
			out = append(out, it)
		}
	}
	return out
}

// typed narrows a filterable list by what a key typed; it reports whether
// the key was taken.
func (p *picker) typed(msg tea.KeyMsg) bool {
	if !p.filterable {
		return false
	}
	switch msg.Type {
	case tea.KeyRunes, tea.KeySpace:
		p.filter += string(msg.Runes)
	case tea.KeyBackspace:
		if p.filter == "" {
			return true
		}
		r := []rune(p.filter)
		p.filter = string(r[:len(r)-1])
	default:
		return false
	}
	p.sel = 0
	return true
}

func (p *picker) update(msg tea.KeyMsg) (*picker, tea.Cmd) {
	k := &p.c.keys
	if p.typed(msg) {
		return p, nil
	}
	items := p.shown()
	switch {
	case key.Matches(msg, k.Cancel):
		return nil, nil
	case key.Matches(msg, k.Choose):
		if len(items) == 0 {
			return p, nil
		}
		return nil, p.pick(items[p.sel].value)
	case key.Matches(msg, k.PreviewUp):
		p.sel = max(p.sel-1, 0)
	case key.Matches(msg, k.PreviewDown):
		p.sel = max(min(p.sel+1, len(items)-1), 0)
	case key.Matches(msg, k.PreviewPgUp):
		p.sel = max(p.sel-pickerRows, 0)
	case key.Matches(msg, k.PreviewPgDown):
		p.sel = max(min(p.sel+pickerRows, len(items)-1), 0)
	}
	return p, nil
}

func (p *picker) view() []string {
	st := &p.c.styles
	w := p.c.contentWidth()
	var out []string
	for _, l := range wrapPlain(p.title, w) {
		out = append(out, st.PaneTitle.Render(l))
	}
	items := p.shown()
	if p.filterable {
		out = append(out, truncate("  filter: "+termtext.Visible(p.filter)+"▏", w))
	}
	first := min(max(p.sel-pickerRows/2, 0), max(len(items)-pickerRows, 0))
	for i := first; i < len(items) && i < first+pickerRows; i++ {
		line := "  " + items[i].label
		if i == p.sel {
			line = "› " + items[i].label
			out = append(out, st.OK.Render(truncate(line, w)))
			continue
		}
		out = append(out, truncate(line, w))
	}
	verb := p.verb
	if verb == "" {
		verb = "opens"
	}
	if len(items) == 0 {
		out = append(out, st.Dim.Render(truncate("  nothing holds "+strconv.Quote(p.filter)+" · backspace widens it", w)))
	}
	foot := fmt.Sprintf("  %d of %d · ↑↓ choose · enter %s · %s closes", min(p.sel+1, len(items)), len(items), verb, p.c.keys.Cancel.Help().Key)
	if p.filterable {
		foot = fmt.Sprintf("  %d of %d · type to filter · ↑↓ choose · enter %s · %s closes", min(p.sel+1, len(items)), len(items), verb, p.c.keys.Cancel.Help().Key)
	}
	out = append(out, st.Dim.Render(truncate(foot, w)))
	return out
}

// sessionsCommand runs /sessions and /resume: with an id it opens that
// session, without one it offers the sessions of the workspace to pick.
func (m Model) sessionsCommand(name string, args []string) (Model, tea.Cmd) {
	sw, ok := m.backend.(Sessions)
	if len(args) > 1 || !ok && (len(args) > 0 || name == "resume") {
		m = m.addBlock(errorBlock("usage: /"+name+" [ID]", "open a session of this workspace; without an ID, pick one"))
		return m, nil
	}
	if len(args) == 1 {
		return m, openSession(sw, args[0])
	}
	list, err := m.backend.Sessions()
	if err != nil || !ok {
		return m, func() tea.Msg {
			return commandResultMsg{draw: func(c *common) []string { return drawSessions(c, list) }, err: err}
		}
	}
	current := m.backend.Status().SessionID
	var items []pickItem
	for _, s := range list {
		label := pad(oneLine(s.ID), 21) + s.Updated.Local().Format("2006-01-02 15:04") + "  "
		if s.ID == current {
			label += "(this one) "
		} else if s.Parent != "" {
			label += "(fork of " + oneLine(s.Parent) + ") "
		}
		label += oneLine(s.Title)
		items = append(items, pickItem{label: label, value: s.ID})
	}
	if len(items) == 0 {
		m = m.addBlock(newFuncBlock(func(c *common) []string { return drawSessions(c, nil) }))
		return m, nil
	}
	m.picker = &picker{c: m.c, title: "Sessions of this workspace, the newest first", items: items, pick: func(id string) tea.Cmd {
		if id == current {
			// Picked, it would only say nothing: say why.
			return func() tea.Msg {
				return commandResultMsg{draw: noticeLines("Session " + id + " is already the session in use.")}
			}
		}
		return openSession(sw, id)
	}}
	return m, nil
}

func openSession(sw Sessions, id string) tea.Cmd {
	return func() tea.Msg {
		v, err := sw.OpenSession(id)
		return sessionSwitchedMsg{view: v, err: err}
	}
}

// forkCommand runs /fork: /fork N forks before prompt N; /fork alone
// offers the whole conversation (first) or a point before a prompt.
func (m Model) forkCommand(args []string) (Model, tea.Cmd) {
	sw, ok := m.backend.(Sessions)
	n := 0
	if len(args) == 1 {
		var err error
		if n, err = strconv.Atoi(args[0]); err != nil || n < 1 {
			ok = false
		}
	}
	if !ok || len(args) > 1 {
		m = m.addBlock(errorBlock("usage: /fork [N]", "go on in a copy of this session; N: from before your prompt number N"))
		return m, nil
	}
	if m.rest != nil {
		// The backend's Fork waits for the load (or refuses a failed
		// one): say why nothing happens at once.
		m = m.addBlock(noticeBlock("The session's earlier turns are still loading: a fork waits for them (it copies the whole conversation)."))
	}
	if n > 0 {
		return m, forkBefore(sw, n)
	}
	// The prompts are read behind the frame: a long session's
	// transcript is megabytes.
	return m, func() tea.Msg {
		prompts, err := sw.Prompts()
		return forkPromptsMsg{sw: sw, prompts: prompts, err: err}
	}
}

// forkBefore forks before prompt number before (0: all of it).
func forkBefore(sw Sessions, before int) tea.Cmd {
	return func() tea.Msg {
		v, err := sw.Fork(before)
		return sessionSwitchedMsg{view: v, err: err}
	}
}

// forkPromptsMsg brings the prompts /fork offers to fork before.
type forkPromptsMsg struct {
	sw      Sessions
	prompts []agent.Prompt
	err     error
}

// handleForkPrompts offers the whole conversation (first) or a point
// before one of the prompts.
func (m Model) handleForkPrompts(msg forkPromptsMsg) (Model, tea.Cmd) {
	sw, prompts := msg.sw, msg.prompts
	if msg.err != nil {
		m = m.addBlock(errorBlock("cannot list the prompts: "+msg.err.Error(), ""))
		return m, nil
	}
	items := []pickItem{{label: "here: the whole conversation so far", value: "0"}}
	for i := len(prompts) - 1; i >= 0; i-- {
		p := prompts[i]
		items = append(items, pickItem{label: fmt.Sprintf("before prompt %d: %s", p.N, truncate(oneLine(m.asTyped(p.Text)), 70)), value: strconv.Itoa(p.N)})
	}
	m.picker = &picker{c: m.c, title: "Fork from where? The fork gets its own undo history; this session stays as it is.", items: items, pick: func(v string) tea.Cmd {
		before, _ := strconv.Atoi(v)
		return forkBefore(sw, before)
	}}
	return m, nil
}

// asTyped is a prompt as the person typed it: the custom command line for
// the prompt it expanded to in this run, else the prompt itself.
func (m Model) asTyped(prompt string) string {
	if typed, ok := m.typedAs[strings.TrimSpace(prompt)]; ok {
		return typed
	}
	return prompt
}

// handleSessionSwitched shows the session the conversation now continues in.
func (m Model) handleSessionSwitched(msg sessionSwitchedMsg) (Model, tea.Cmd) {
	if msg.err != nil {
		text, hint := errorParts(msg.err)
		m = m.addBlock(errorBlock(text, hint))
		return m, nil
	}
	m = m.finishLive()
	m = m.finishThink()
	m.tr.clear()
	m.rest = nil
	m.cards = map[string]*toolCard{}
	m.plan = nil
	if v := msg.view; v.Rest != nil {
		m = m.showTail(v.Earlier, v.Rest)
	} else {
		m = m.showEarlier(v.Earlier)
	}
	if msg.view.Notice != "" {
		b := noticeBlock(msg.view.Notice)
		m = m.addBlock(b)
		m = m.restNotice(Notice{Text: msg.view.Notice, Resumed: true}, b)
	}
	if msg.view.Draft != "" {
		m.input.setValue(m.asTyped(msg.view.Draft))
	}
	// The rest brings the journal; Update starts its load.
	if m.hasPastCards() && m.rest == nil {
		return m, tea.Batch(refreshStatus(m.backend), loadJournal(m.backend))
	}
	return m, refreshStatus(m.backend)
}

// showEarlier adds the conversation of a resumed session to the transcript.
func (m Model) showEarlier(list []Earlier) Model {
	bs, ans := earlierBlocks(list)
	m.tr.add(bs...)
	for _, a := range ans {
		m = m.keepAnswer(a.turn, a.text)
	}
	return m
}

// clearedNote says where the undo history of the session left by /clear is.
func clearedNote(old string) string {
	if old == "" {
		return "new conversation"
	}
	return "new conversation. The earlier one, session " + old + ", keeps its undo history: /resume " + old +
		" goes back to it (or, from a shell, myclaw undo --session " + old + ")"
}
