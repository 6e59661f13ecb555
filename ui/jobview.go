package ui

import (
	"myclaw/tools/termtext"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"myclaw/tools"
)

// JobOutput is implemented by a Backend whose jobs' output can be read
// by the person: /jobs ID shows its tail and follows it.
type JobOutput interface {
	// JobTail describes job id with the last n bytes of its output.
	JobTail(id string, n int) (tools.JobInfo, string, error)
}

const (
	// jobTailBytes is how much of a job's output the view reads.
	jobTailBytes = 16 << 10
	// jobFollowEvery is how often an open view reads the output again.
	jobFollowEvery = 500 * time.Millisecond
)

// jobView shows the newest output of one background job in place of the
// input, read again while the job runs, until Esc closes it.
type jobView struct {
	c    *common
	src  JobOutput
	cmd  string // the command that lists and stops them: "jobs", "agents"
	id   string
	seq  int // tells this view's reads from those of one closed before
	info tools.JobInfo
	age  time.Duration
	text string // the tail, sanitised
	read bool   // a read came back
	back int    // rows scrolled back from the newest (PgUp)
}

// jobTailMsg brings a read of a job's output.
type jobTailMsg struct {
	seq  int
	info tools.JobInfo
	age  time.Duration
	text string
	err  error
}

// jobFollowMsg asks the open view to read the output again.
type jobFollowMsg struct{ seq int }

func readJobTail(out JobOutput, id string, seq int) tea.Cmd {
	return func() tea.Msg {
		in, text, err := out.JobTail(id, jobTailBytes)
		return jobTailMsg{seq: seq, info: in, age: time.Since(in.Started), text: termtext.Screen(text), err: err}
	}
}

func followJob(seq int) tea.Cmd {
	return tea.Tick(jobFollowEvery, func(time.Time) tea.Msg { return jobFollowMsg{seq: seq} })
}

// openJob runs /jobs ID: id is "job1" or "1".
func (m Model) openJob(id string) (Model, tea.Cmd) {
	out, ok := m.backend.(JobOutput)
	if !ok {
		m = m.addBlock(errorBlock("the output of background jobs cannot be shown here", "/jobs lists them"))
		return m, nil
	}
	if _, err := strconv.Atoi(id); err == nil {
		id = "job" + id
	}
	m.jobSeq++
	m.job = &jobView{c: m.c, src: out, cmd: "jobs", id: id, seq: m.jobSeq}
	return m, readJobTail(out, id, m.jobSeq)
}

// handleJobTail shows a read, and reads again later while the job runs.
func (m Model) handleJobTail(msg jobTailMsg) (Model, tea.Cmd) {
	if m.job == nil || m.job.seq != msg.seq {
		return m, nil
	}
	if msg.err != nil {
		text, _ := errorParts(msg.err)
		m = m.addBlock(errorBlock(text, "/"+m.job.cmd+" lists them and their ids"))
		m.job = nil
		return m, nil
	}
	m.job.info, m.job.age, m.job.text, m.job.read = msg.info, msg.age, msg.text, true
	if msg.info.Running {
		return m, followJob(msg.seq)
	}
	return m, nil
}

// handleJobFollow reads the output of the open view again.
func (m Model) handleJobFollow(msg jobFollowMsg) (Model, tea.Cmd) {
	if m.job == nil || m.job.seq != msg.seq {
		return m, nil
	}
	return m, readJobTail(m.job.src, m.job.id, msg.seq)
}

// update handles a key in the open view: PgUp and PgDn scroll it; any
// other key closes it, and all but Esc go on to the prompt, so typing
// "/jobs stop 1" there works. passOn says the key is the prompt's.
func (v *jobView) update(msg tea.KeyMsg) (next *jobView, passOn bool) {
	switch {
	case msg.Paste:
		return nil, true
	case key.Matches(msg, v.c.keys.PageUp):
		v.back += max(v.rows()-1, 1)
		return v, false
	case key.Matches(msg, v.c.keys.PageDown):
		v.back = max(v.back-max(v.rows()-1, 1), 0)
		return v, false
	case key.Matches(msg, v.c.keys.Cancel):
		return nil, false
	}
	return nil, true
}

// jobNoteLines is how much of the output the transcript keeps of a closed
// view.
const jobNoteLines = 5

// note is what stays in the transcript once the view closes: the job, its
// state and its last lines.
func (v *jobView) note() string {
	if !v.read {
		return ""
	}
	head := v.id + " · " + v.state() + " · " + tools.ClipOneLine(v.info.Command, 200)
	text := strings.TrimRight(v.text, "\n")
	if text == "" {
		return head + "\n(no output yet)"
	}
	lines := strings.Split(text, "\n")
	if len(lines) > jobNoteLines {
		head += " · its last " + strconv.Itoa(jobNoteLines) + " lines:"
		lines = lines[len(lines)-jobNoteLines:]
	}
	return head + "\n" + strings.Join(lines, "\n")
}

func (v *jobView) state() string {
	in := v.info
	switch {
	case !v.read:
		return "reading…"
	case in.Running:
		return "running"
	case in.Stopped:
		return "stopped"
	case in.ExitCode != nil:
		return "exited " + strconv.Itoa(*in.ExitCode)
	}
	return "finished"
}

// rows is how many lines of output the view shows at this height.
func (v *jobView) rows() int { return min(max(v.c.height/2, 3), 20) }

func (v *jobView) view() []string {
	st := &v.c.styles
	w := v.c.contentWidth()
	in := v.info
	title := v.id + " · " + v.state()
	if v.read {
		title += " · " + formatElapsed(v.age) + " · " + tools.ClipOneLine(in.Command, 200)
	}
	out := []string{st.PaneTitle.Render(truncate(title, w))}
	var body []string
	var from []int // the line of the output each row shows
	for i, l := range strings.Split(strings.TrimRight(v.text, "\n"), "\n") {
		for _, r := range wrapPlain(expandTabs(l), w-2) {
			body, from = append(body, r), append(from, i)
		}
	}
	n := v.rows()
	v.back = min(v.back, max(len(body)-n, 0))
	end := len(body) - v.back
	start := max(end-n, 0)
	shown := 0
	if end > start {
		shown = from[end-1] - from[start] + 1
	}
	whole := len(body) > n
	body = body[start:end]
	switch {
	case !v.read:
	case v.text == "":
		out = append(out, st.Dim.Render("  (no output yet)"))
	default:
		for _, l := range body {
			out = append(out, "  "+l)
		}
	}
	// Typing closes the view and goes to the prompt.
	var foot []string
	switch {
	case v.back > 0:
		foot = append(foot, tools.Count(shown, "line")+", "+strconv.Itoa(v.back)+" rows back", "pgdn goes on")
	case whole:
		foot = append(foot, "last "+tools.Count(shown, "line"), "pgup scrolls")
	}
	if in.Running {
		foot = append(foot, "following live")
	}
	foot = append(foot, v.c.keys.Cancel.Help().Key+" closes")
	if in.Running {
		foot = append(foot, "type /"+v.cmd+" stop "+v.id+" to stop it")
	}
	for _, l := range joinWrap(foot, " · ", w-2) {
		out = append(out, st.Dim.Render("  "+l))
	}
	return out
}

// joinWrap joins parts with sep into lines of at most w columns, breaking
// only between parts (a part wider than w is cut).
func joinWrap(parts []string, sep string, w int) []string {
	var out []string
	cur := ""
	for _, p := range parts {
		switch {
		case cur == "":
			cur = p
		case ansi.StringWidth(cur+sep+p) <= w:
			cur += sep + p
		default:
			out = append(out, truncate(cur, w))
			cur = p
		}
	}
	return append(out, truncate(cur, w))
}
