package ui

import (
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/tools"
)

// spinnerFrames animate the status line while a turn runs.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// spinnerInterval paces the spinner; it only ticks during a turn.
const spinnerInterval = 100 * time.Millisecond

// spinnerTickMsg advances the spinner of one turn; ticks of an ended turn
// are dropped, which stops the ticking.
type spinnerTickMsg struct {
	turn int
	now  time.Time
}

func spinnerTick(turn int) tea.Cmd { return spinnerTickIn(turn, spinnerInterval) }

func spinnerTickIn(turn int, d time.Duration) tea.Cmd {
	return tea.Tick(d, func(t time.Time) tea.Msg { return spinnerTickMsg{turn: turn, now: t} })
}

// spinnerIdleCheck is how often the spinner's own tick looks while text
// streams: the publications turn it then, so its tick only takes over
// when they stop.
const spinnerIdleCheck = 3 * spinnerInterval

// spin turns the spinner if it last turned a spinnerInterval ago or more,
// and reports whether it did.
func (t *turnState) spin(now time.Time) bool {
	if now.Sub(t.spunAt) < spinnerInterval {
		return false
	}
	t.frame++
	t.elapsed = now.Sub(t.start)
	t.spunAt = now
	return true
}

// statusInfo is what the status line shows besides the running turn.
type statusInfo struct {
	model     string
	level     approval.Level
	workspace string
	tokens    int
	window    int
	estimated bool
	// cache is the share of the last request's prompt the server took
	// from its prompt cache, in percent, when cacheKnown (the server said).
	cache      int
	cacheKnown bool
	// windowGuess is set while the window is myclaw's guess, not the
	// server's or the config's figure.
	windowGuess bool
	undo        int
	cost        string // the session's cost so far, "" when unknown
	costUSD     float64
	jobs        int    // background jobs running
	agents      int    // sub-agents running
	mouseOff    bool   // mouse capture is off (the wheel does not scroll)
	unsandboxed bool   // shell commands run without the sandbox (--sandbox off)
	sandbox     string // sandboxed, no sandbox, or "" when the backend cannot say
	session     string // the session's id
	branch      string // the workspace's git branch, when [status] shows it
}

// statusRefreshMsg brings fresh figures from the backend.
type statusRefreshMsg struct {
	status  agent.Status
	level   approval.Level
	jobs    int
	sandbox string
	agents  int
}

func refreshStatus(b Backend) tea.Cmd {
	return func() tea.Msg {
		return statusRefreshMsg{status: b.Status(), level: b.Autonomy(), jobs: runningJobs(b), sandbox: sandboxState(b), agents: runningAgents(b)}
	}
}

func (s *statusInfo) apply(st agent.Status, level approval.Level) {
	if st.Model != "" {
		s.model = st.Model
	}
	if level != "" {
		s.level = level
	}
	if st.ContextWindow > 0 || st.TokensUsed > 0 {
		s.tokens, s.window = st.TokensUsed, st.ContextWindow
		s.windowGuess = st.WindowSource == "estimated"
		s.estimated = st.TokensEstimated
	}
	s.undo = st.UndoDepth
	s.cost, s.costUSD = "", 0
	if st.CostKnown {
		s.cost, s.costUSD = formatUSD(st.Cost), st.Cost
	}
}

// shortCount writes a token count the short way: 950, 12.3k, 1.2M.
func shortCount(n int) string {
	switch {
	case n < 1000:
		return strconv.Itoa(n)
	case n < 100_000:
		return strings.TrimSuffix(strconv.FormatFloat(float64(n)/1000, 'f', 1, 64), ".0") + "k"
	case n < 1_000_000:
		return strconv.Itoa(n/1000) + "k"
	default:
		return strings.TrimSuffix(strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64), ".0") + "M"
	}
}

// shortenHome writes p with "~" for the home directory. The model does it
// once, when it is built: the status line shows the result as it is.
func shortenHome(p, home string) string {
	if home != "" && home != "/" && (p == home || strings.HasPrefix(p, home+"/")) {
		return "~" + p[len(home):]
	}
	return p
}

// statusCache keeps the parts of the status line that change rarely, so
// that a frame only renders the spinner's segment again (and not even
// that between two spinner ticks). It belongs to the Bubble Tea
// goroutine, like the rest of the model.
type statusCache struct {
	left     string // model · level · workspace
	leftKey  statusLeftKey
	right    string // tokens · undo
	rightKey statusInfo
	run      string // spinner and elapsed time
	runKey   statusRunKey
}

type statusLeftKey struct {
	model, workspace string
	level            approval.Level
	room             int // columns left for the workspace
}

type statusRunKey struct {
	frame      int
	label      string
	cancelling bool
}

// statusView is the bottom line: model, autonomy, workspace on the left;
// tokens, undo depth and the running turn on the right.
func (m Model) statusView() string {
	st := &m.c.styles
	sc := m.sc
	w := max(m.c.width, minWidth)
	s := m.status

	if m.sl.shaped() && !m.quitArmed && m.busyNote == "" {
		return m.shapedStatus(w)
	}
	if m.quitArmed || m.busyNote != "" {
		// The hint is all that matters now: it takes the whole right side.
		hint := "press " + m.c.keys.Interrupt.Help().Key + " again to quit"
		if !m.quitArmed {
			hint = m.busyNote
		}
		left := " " + st.StatusModel.Render(oneLine(s.model))
		r := st.StatusHint.Render(truncate(hint, max(w-ansi.StringWidth(left)-2, 10)))
		return left + strings.Repeat(" ", max(w-ansi.StringWidth(left)-ansi.StringWidth(r)-1, 1)) + r
	}

	right := m.staticStatus()
	if m.turn != nil {
		run := m.runStatus()
		if g := m.goalStatus(); g != "" {
			// A goal's budget stands in for the meters while it runs.
			run, right = g+st.Status.Render(" · ")+run, ""
		}
		if right == "" {
			right = run
		} else {
			right = run + st.Status.Render(" · ") + right
		}
	}
	rw := ansi.StringWidth(right)

	room := w - rw - 4
	key := statusLeftKey{model: s.model, workspace: s.workspace, level: s.level, room: room}
	if key != sc.leftKey || sc.left == "" {
		left := " " + st.StatusModel.Render(oneLine(s.model))
		if s.level != "" {
			left += st.Status.Render(" · ") + levelLabel(st, s.level, s.unsandboxed)
		}
		room -= ansi.StringWidth(left)
		if ws := s.workspace; ws != "" && room > 5 {
			if ansi.StringWidth(ws) > room {
				ws = ansi.TruncateLeft(ws, ansi.StringWidth(ws)-room+1, "…")
			}
			left += st.Status.Render(" · " + ws)
		}
		sc.left, sc.leftKey = left, key
	}
	gap := w - ansi.StringWidth(sc.left) - rw - 1
	if gap < 1 {
		return truncate(sc.left+" "+right, w)
	}
	return sc.left + strings.Repeat(" ", gap) + right
}

// levelLabel is the autonomy level as the status line shows it: ask and
// readonly plain, auto-edit and full in colours of their own, and the
// choice to run commands unsandboxed in red, beside any level that can
// run them.
func levelLabel(st *Styles, l approval.Level, unsandboxed bool) string {
	switch {
	case l == approval.Plan:
		return st.LevelAutoEdit.Render(string(l))
	case unsandboxed && l != approval.ReadOnly:
		return st.LevelUnsandboxed.Render(string(l) + " · unsandboxed")
	case l == approval.AutoEdit:
		return st.LevelAutoEdit.Render(string(l))
	case l == approval.Full:
		return st.LevelFull.Render(string(l))
	}
	return st.Status.Render(string(l))
}

// staticStatus is the right side of the status line but the running turn:
// the tokens and the undo depth.
func (m Model) staticStatus() string {
	st := &m.c.styles
	s := m.status
	key := statusInfo{tokens: s.tokens, window: s.window, estimated: s.estimated, cache: s.cache, cacheKnown: s.cacheKnown, windowGuess: s.windowGuess, undo: s.undo, cost: s.cost, jobs: s.jobs, agents: s.agents, mouseOff: s.mouseOff}
	if key == m.sc.rightKey {
		return m.sc.right
	}
	var parts []string
	if t := tokensText(s); t != "" {
		parts = append(parts, st.Status.Render(t))
	}
	if c := cacheText(s); c != "" {
		parts = append(parts, st.Status.Render(c))
	}
	if s.cost != "" {
		parts = append(parts, st.Status.Render(s.cost))
	}
	if s.undo > 0 {
		parts = append(parts, st.Status.Render("undo "+strconv.Itoa(s.undo)))
	}
	if s.agents > 0 {
		parts = append(parts, st.Status.Render(tools.Count(s.agents, "agent")))
	}
	if s.jobs > 0 {
		parts = append(parts, st.Status.Render(tools.Count(s.jobs, "job")))
	}
	if s.mouseOff {
		parts = append(parts, st.Status.Render("mouse off"))
	}
	m.sc.right, m.sc.rightKey = strings.Join(parts, st.Status.Render(" · ")), key
	return m.sc.right
}

// tokensText is the conversation's size against the window: "12.3k/128k
// tokens", with "~" on a figure that is a guess; "" before there is one.
func tokensText(s statusInfo) string {
	if s.window == 0 && s.tokens == 0 {
		return ""
	}
	t := shortCount(s.tokens)
	if s.estimated {
		t = "~" + t
	}
	if s.window > 0 {
		t += "/"
		if s.windowGuess {
			t += "~"
		}
		t += shortCount(s.window)
	}
	return t + " tokens"
}

// cacheText is the prompt-cache hit of the last request, "cache 92%", when
// the server reported it: a local server that finds the conversation's
// prefix in its cache answers in seconds instead of a minute.
func cacheText(s statusInfo) string {
	if !s.cacheKnown || s.tokens == 0 {
		return ""
	}
	return "cache " + strconv.Itoa(s.cache) + "%"
}

// runStatus is the running turn's segment: the spinner and the time.
func (m Model) runStatus() string {
	st := &m.c.styles
	t := m.turn
	key := statusRunKey{frame: t.frame % len(spinnerFrames), label: formatRunning(t.elapsed), cancelling: t.cancelling}
	if key == m.sc.runKey && m.sc.run != "" {
		return m.sc.run
	}
	label := key.label
	if t.cancelling {
		label += " · cancelling…"
	} else {
		label += " · " + m.c.keys.Cancel.Help().Key + " cancels"
	}
	m.sc.run, m.sc.runKey = st.Spinner.Render(spinnerFrames[key.frame])+" "+st.Status.Render(label), key
	return m.sc.run
}

// formatRunning is a running turn's time in whole seconds (0s, 12s,
// 2m05s): the spinner shows that it runs, and a figure changing ten times
// a second costs the terminal more than it tells.
func formatRunning(d time.Duration) string {
	if d < time.Minute {
		return strconv.Itoa(int(d/time.Second)) + "s"
	}
	return formatDuration(d)
}

// formatElapsed is a time taken: 0.4s, 12.3s, 2m05s.
func formatElapsed(d time.Duration) string {
	if d < time.Minute {
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	}
	return formatDuration(d)
}

// levelCycle is the order Shift+Tab steps through, plan mode last; readonly
// is left out (it hides tools, so /autonomy readonly says it), and so is
// running commands unsandboxed, which only --sandbox off chooses.
var levelCycle = []approval.Level{approval.Ask, approval.AutoEdit, approval.Full, approval.Plan}

// nextLevel is the level after l in the cycle; from readonly it is ask.
func nextLevel(l approval.Level) approval.Level {
	for i, c := range levelCycle {
		if c == l {
			return levelCycle[(i+1)%len(levelCycle)]
		}
	}
	return approval.Ask
}

// levelSetMsg says the backend now decides calls at level.
type levelSetMsg struct{ level approval.Level }

// cycleLevel shows the next level at once and sets it in the backend; the
// next call decision uses it, in this turn too.
func (m Model) cycleLevel() (Model, tea.Cmd) {
	next := nextLevel(m.status.level)
	m.status.level = next
	m.welcome.setLevel(next)
	m.levelsPending++
	return m, setLevel(m.backend, next)
}

func setLevel(b Backend, l approval.Level) tea.Cmd {
	return func() tea.Msg {
		b.SetAutonomy(l)
		return levelSetMsg{level: l}
	}
}

// levelSet notes that a change reached the backend. Cmds run in any
// order, so a stale one may have set an older level last: set the shown
// one again.
func (m Model) levelSet(msg levelSetMsg) (Model, tea.Cmd) {
	m.levelsPending = max(m.levelsPending-1, 0)
	if msg.level != m.status.level {
		m.levelsPending++
		return m, setLevel(m.backend, m.status.level)
	}
	return m, nil
}
