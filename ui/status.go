package ui

import (
	"os"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"myclaw/agent"
	"myclaw/approval"
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

func spinnerTick(turn int) tea.Cmd {
	return tea.Tick(spinnerInterval, func(t time.Time) tea.Msg { return spinnerTickMsg{turn: turn, now: t} })
}

// statusInfo is what the status line shows besides the running turn.
type statusInfo struct {
	model     string
	level     approval.Level
	workspace string
	tokens    int
	window    int
	estimated bool
	undo      int
}

// statusRefreshMsg brings fresh figures from the backend.
type statusRefreshMsg struct {
	status agent.Status
	level  approval.Level
}

func refreshStatus(b Backend) tea.Cmd {
	return func() tea.Msg { return statusRefreshMsg{status: b.Status(), level: b.Autonomy()} }
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
	}
	s.undo = st.UndoDepth
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

// homeDir is read once: the status line shortens the workspace with "~".
var homeDir, _ = os.UserHomeDir()

func shortPath(p string) string {
	if homeDir != "" && (p == homeDir || strings.HasPrefix(p, homeDir+"/")) {
		return "~" + p[len(homeDir):]
	}
	return p
}

// statusView is the bottom line: model, autonomy, workspace on the left;
// tokens, undo depth and the running turn on the right.
func (m Model) statusView() string {
	st := &m.c.styles
	w := max(m.c.width, minWidth)
	s := m.status

	var right []string
	switch {
	case m.quitArmed:
		// The hint is all that matters now: it takes the whole right side.
		r := st.StatusHint.Render("press ctrl+c again to quit")
		left := " " + st.StatusModel.Render(oneLine(s.model))
		return left + strings.Repeat(" ", max(w-ansi.StringWidth(left)-ansi.StringWidth(r)-1, 1)) + r
	case m.turn != nil:
		frame := spinnerFrames[m.turn.frame%len(spinnerFrames)]
		label := formatElapsed(m.turn.elapsed)
		if m.turn.cancelling {
			label += " · cancelling…"
		} else {
			label += " · esc cancels"
		}
		right = append(right, st.Spinner.Render(frame)+" "+st.Status.Render(label))
	}
	if s.window > 0 || s.tokens > 0 {
		t := shortCount(s.tokens)
		if s.estimated {
			t = "~" + t
		}
		if s.window > 0 {
			t += "/" + shortCount(s.window)
		}
		right = append(right, st.Status.Render(t+" tokens"))
	}
	if s.undo > 0 {
		right = append(right, st.Status.Render("undo "+strconv.Itoa(s.undo)))
	}
	r := strings.Join(right, st.Status.Render(" · "))

	left := " " + st.StatusModel.Render(oneLine(s.model))
	if s.level != "" {
		left += st.Status.Render(" · " + string(s.level))
	}
	room := w - ansi.StringWidth(left) - ansi.StringWidth(r) - 4
	if ws := shortPath(oneLine(s.workspace)); ws != "" && room > 5 {
		if ansi.StringWidth(ws) > room {
			ws = ansi.TruncateLeft(ws, ansi.StringWidth(ws)-room+1, "…")
		}
		left += st.Status.Render(" · " + ws)
	}
	gap := w - ansi.StringWidth(left) - ansi.StringWidth(r) - 1
	if gap < 1 {
		return truncate(left+" "+r, w)
	}
	return left + strings.Repeat(" ", gap) + r
}

// formatElapsed is the running time: 0.4s, 12.3s, 2m05s.
func formatElapsed(d time.Duration) string {
	if d < time.Minute {
		return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
	}
	return formatDuration(d)
}
