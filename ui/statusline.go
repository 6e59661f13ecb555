package ui

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"myclaw/approval"
	"myclaw/tools"
	"myclaw/tools/termtext"
)

// StatusSegments are the segments [status] line can show, in no order.
// jobs and agents show only while some run.
var StatusSegments = []string{"model", "level", "sandbox", "workspace", "tokens", "cost", "undo", "branch", "jobs", "agents"}

// statusLine is what [status] makes of the status line: segments picked
// and ordered, or a command's output. It belongs to the Bubble Tea
// goroutine, like statusCache.
type statusLine struct {
	segments []string // nil: the standard line
	command  string
	confine  func(*exec.Cmd) (func(), error)
	version  string
	start    time.Time // the session's start, for the command's duration

	cache    string
	cacheKey shapedKey

	// The command's runs: one at a time, then a pause (cooling) before
	// the next, and a run only when what it is given changed since.
	running, cooling, ran bool
	sent                  statusInfo
	out                   string // its last line, sanitised; "" before one
	failShown             bool   // its failure was told; told again only after it worked
}

type shapedKey struct {
	info  statusInfo
	width int
}

func newStatusLine(opts Options) *statusLine {
	return &statusLine{segments: opts.StatusLine, command: strings.TrimSpace(opts.StatusCommand), confine: opts.StatusConfine, version: opts.Version, start: time.Now()}
}

// shaped says [status] changed the line (and, for a command, that it has
// printed one).
func (sl *statusLine) shaped() bool {
	return sl != nil && (len(sl.segments) > 0 || sl.out != "")
}

// wantsBranch says a segment or the command shows the git branch.
func (sl *statusLine) wantsBranch() bool {
	return sl != nil && (sl.command != "" || slices.Contains(sl.segments, "branch"))
}

// SandboxStater is a backend that can say whether the shell sandbox is on.
type SandboxStater interface {
	SandboxState() approval.Sandbox
}

// sandboxState is the sandbox as the status line names it; "" when the
// backend cannot say. It runs in a Cmd.
func sandboxState(b Backend) string {
	s, ok := b.(SandboxStater)
	if !ok {
		return ""
	}
	st := s.SandboxState()
	switch {
	case st.Off:
		return "unsandboxed"
	case st.Active:
		return "sandboxed"
	}
	return "no sandbox"
}

// shapedStatus draws the line [status] asked for: the command's output or
// the segments on the left, the running turn and the mouse on the right.
func (m Model) shapedStatus(w int) string {
	st := &m.c.styles
	s := m.status
	var right []string
	if m.turn != nil {
		right = append(right, m.runStatus())
	}
	if s.mouseOff {
		right = append(right, st.Status.Render("mouse off"))
	}
	r := strings.Join(right, st.Status.Render(" · "))
	rw := ansi.StringWidth(r)
	room := max(w-rw-2, 1)
	sl := m.sl
	key := shapedKey{info: s, width: room}
	if key != sl.cacheKey || sl.cache == "" {
		var left string
		if sl.out != "" {
			left = " " + st.Status.Render(truncate(sl.out, room-1))
		} else {
			left = " " + truncate(m.segmentsView(), room-1)
		}
		sl.cache, sl.cacheKey = left, key
	}
	gap := w - ansi.StringWidth(sl.cache) - rw - 1
	return sl.cache + strings.Repeat(" ", max(gap, 1)) + r
}

// segmentsView joins the segments that have something to show.
func (m Model) segmentsView() string {
	st := &m.c.styles
	s := m.status
	var parts []string
	for _, seg := range m.sl.segments {
		var p string
		switch seg {
		case "model":
			p = st.StatusModel.Render(oneLine(s.model))
		case "level":
			if s.level != "" {
				// The sandbox segment, when shown, says unsandboxed itself.
				p = levelLabel(st, s.level, s.unsandboxed && !slices.Contains(m.sl.segments, "sandbox"))
			}
		case "sandbox":
			switch {
			case s.unsandboxed || s.sandbox == "unsandboxed":
				p = st.LevelUnsandboxed.Render("unsandboxed")
			case s.sandbox == "no sandbox":
				p = st.LevelFull.Render(s.sandbox)
			case s.sandbox != "":
				p = st.Status.Render(s.sandbox)
			}
		case "workspace":
			p = st.Status.Render(s.workspace)
		case "tokens":
			if t := tokensText(s); t != "" {
				if c := cacheText(s); c != "" {
					t += " · " + c
				}
				p = st.Status.Render(t)
			}
		case "cost":
			if s.cost != "" {
				p = st.Status.Render(s.cost)
			}
		case "undo":
			if s.undo > 0 {
				p = st.Status.Render("undo " + strconv.Itoa(s.undo))
			}
		case "branch":
			if s.branch != "" {
				p = st.Status.Render("git:" + s.branch)
			}
		case "jobs":
			if s.jobs > 0 {
				p = st.Status.Render(tools.Count(s.jobs, "job"))
			}
		case "agents":
			if s.agents > 0 {
				p = st.Status.Render(tools.Count(s.agents, "agent"))
			}
		}
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, st.Status.Render(" · "))
}

// statusLineMsg is a message of the status line's own Cmds.
type statusLineMsg interface{ statusLineMsg() }

// branchMsg brings the workspace's git branch.
type branchMsg struct{ branch string }

// statusRanMsg is the end of a run of the status command.
type statusRanMsg struct {
	out string
	err string // why it failed, "" when it printed a line
}

// statusCooledMsg ends the pause after a run of the status command.
type statusCooledMsg struct{}

func (branchMsg) statusLineMsg()       {}
func (statusRanMsg) statusLineMsg()    {}
func (statusCooledMsg) statusLineMsg() {}

// statusCommandPause is the least time between two runs of the status
// command: it runs when what it is given changes, at most this often.
var statusCommandPause = 300 * time.Millisecond

func (m Model) handleStatusLine(msg statusLineMsg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case branchMsg:
		m.status.branch = msg.branch
	case statusRanMsg:
		sl := m.sl
		sl.running, sl.cooling = false, true
		if msg.err != "" {
			sl.out = ""
			if !sl.failShown {
				sl.failShown = true
				m = m.addBlock(warnBlock("The status command failed: " + msg.err + ". The standard status line shows until it works; this is not said again."))
			}
		} else {
			sl.out, sl.failShown = msg.out, false
		}
		sl.cacheKey = shapedKey{}
		return m, tea.Tick(statusCommandPause, func(time.Time) tea.Msg { return statusCooledMsg{} })
	case statusCooledMsg:
		m.sl.cooling = false
	}
	return m, nil
}

// readBranch reads the workspace's git branch when the line shows it.
func (m Model) readBranch() tea.Cmd {
	if !m.sl.wantsBranch() || m.c.workspace == "" {
		return nil
	}
	dir := m.c.workspace
	return func() tea.Msg { return branchMsg{branch: gitBranch(dir)} }
}

// gitBranch is the branch checked out in the repository holding dir (the
// short commit when HEAD is detached), "" outside a repository. It reads
// .git/HEAD and follows a worktree's "gitdir:" file; it runs no git.
func gitBranch(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		dotgit := filepath.Join(d, ".git")
		fi, err := os.Stat(dotgit)
		if err == nil {
			gitdir := dotgit
			if !fi.IsDir() {
				b, err := os.ReadFile(dotgit)
				if err != nil {
					return ""
				}
				p, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
				if !ok {
					return ""
				}
				if !filepath.IsAbs(p) {
					p = filepath.Join(d, p)
				}
				gitdir = p
			}
			b, err := os.ReadFile(filepath.Join(gitdir, "HEAD"))
			if err != nil {
				return ""
			}
			head := strings.TrimSpace(string(b))
			if ref, ok := strings.CutPrefix(head, "ref: "); ok {
				return termtext.OneLine(strings.TrimPrefix(ref, "refs/heads/"), 60)
			}
			if len(head) >= 7 {
				return termtext.OneLine(head[:7], 0)
			}
			return ""
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// runStatusCommand starts the status command when what it would be given
// changed since its last run, none runs, and the pause after the last one
// is over; Update calls it after every message.
func (m Model) runStatusCommand() tea.Cmd {
	sl := m.sl
	if sl == nil || sl.command == "" || sl.running || sl.cooling {
		return nil
	}
	s := m.status
	s.mouseOff = false // not the command's business
	if sl.ran && s == sl.sent {
		return nil
	}
	sl.running, sl.ran, sl.sent = true, true, s
	in := statusPayload(s, m.c.workspace, sl.version, sl.start)
	return runStatusCmd(m.shared.base, sl.command, sl.confine, m.c.workspace, in)
}

// statusCommandLimit bounds a run of the status command.
var statusCommandLimit = time.Second

func runStatusCmd(base context.Context, command string, confine func(*exec.Cmd) (func(), error), dir string, in statusInput) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(base, statusCommandLimit)
		defer cancel()
		out, err := execStatus(ctx, command, confine, dir, in)
		if err != "" {
			return statusRanMsg{err: err}
		}
		return statusRanMsg{out: out}
	}
}

// setUpLooks applies what the config says of keys and the status line,
// and tells at start what it could not apply.
func (m Model) setUpLooks(opts Options, theme Theme, themeErr error) Model {
	if themeErr != nil {
		m.tr.add(warnBlock("[theme] " + themeErr.Error() + "; using auto"))
	} else if _, own := opts.Themes[opts.Theme]; own {
		if hard := theme.HardToRead(); len(hard) > 0 {
			m.tr.add(warnBlock("[themes." + opts.Theme + "] may be hard to read: " + strings.Join(hard, "; ")))
		}
	}
	for _, n := range ApplyKeys(&m.c.keys, opts.Keys) {
		m.tr.add(warnBlock(n))
	}
	m.sl = newStatusLine(opts)
	return m
}
