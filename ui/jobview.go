package ui

import (
	"myclaw/tools/termtext"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

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
	id   string
	seq  int // tells this view's reads from those of one closed before
	info tools.JobInfo
	age  time.Duration
	text string // the tail, sanitised
	read bool   // a read came back
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
	m.job = &jobView{c: m.c, id: id, seq: m.jobSeq}
	return m, readJobTail(out, id, m.jobSeq)
}

// handleJobTail shows a read, and reads again later while the job runs.
func (m Model) handleJobTail(msg jobTailMsg) (Model, tea.Cmd) {
	if m.job == nil || m.job.seq != msg.seq {
		return m, nil
	}
	if msg.err != nil {
		m.job = nil
		text, _ := errorParts(msg.err)
		m = m.addBlock(errorBlock(text, "/jobs lists the jobs and their ids"))
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
	out, ok := m.backend.(JobOutput)
	if m.job == nil || m.job.seq != msg.seq || !ok {
		return m, nil
	}
	return m, readJobTail(out, m.job.id, msg.seq)
}

func (v *jobView) update(msg tea.KeyMsg) *jobView {
	if key.Matches(msg, v.c.keys.Cancel) {
		return nil
	}
	return v
}

// rows is how many lines of output the view shows at this height.
func (v *jobView) rows() int { return min(max(v.c.height/2, 3), 20) }

func (v *jobView) view() []string {
	st := &v.c.styles
	w := v.c.contentWidth()
	in := v.info
	state := "running"
	switch {
	case !v.read:
		state = "reading…"
	case in.Running:
	case in.Stopped:
		state = "stopped"
	case in.ExitCode != nil:
		state = "exited " + strconv.Itoa(*in.ExitCode)
	}
	title := v.id + " · " + state
	if v.read {
		title += " · " + formatElapsed(v.age) + " · " + tools.ClipOneLine(in.Command, 200)
	}
	out := []string{st.PaneTitle.Render(truncate(title, w))}
	var body []string
	for l := range strings.SplitSeq(strings.TrimRight(v.text, "\n"), "\n") {
		body = append(body, wrapPlain(expandTabs(l), w-2)...)
	}
	n := v.rows()
	earlier := 0
	if len(body) > n {
		earlier, body = len(body)-n, body[len(body)-n:]
	}
	switch {
	case !v.read:
	case v.text == "":
		out = append(out, st.Dim.Render("  (no output yet)"))
	default:
		for _, l := range body {
			out = append(out, "  "+l)
		}
	}
	foot := "  " + v.c.keys.Cancel.Help().Key + " closes"
	if in.Running {
		foot = "  following live · " + v.c.keys.Cancel.Help().Key + " closes · /jobs stop " + v.id + " stops it"
	}
	if earlier > 0 {
		foot = "  last " + strconv.Itoa(n) + " lines ·" + strings.TrimPrefix(foot, " ")
	}
	return append(out, st.Dim.Render(truncate(foot, w)))
}
