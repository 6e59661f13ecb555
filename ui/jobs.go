package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"myclaw/agent"
	"myclaw/tools"
	"myclaw/tools/termtext"
)

// Jobs is implemented by a Backend whose shell runs background jobs; /jobs
// and the status line's job count use it.
type Jobs interface {
	// Jobs describes the session's background jobs, oldest first.
	Jobs() []tools.JobInfo
	// StopJob stops one job (its whole process tree) and describes it.
	StopJob(id string) (tools.JobInfo, error)
}

// runningJobs counts the backend's running jobs (0 without Jobs).
func runningJobs(b Backend) int {
	j, ok := b.(Jobs)
	if !ok {
		return 0
	}
	n := 0
	for _, in := range j.Jobs() {
		if in.Running {
			n++
		}
	}
	return n
}

// jobsCommand runs /jobs, /jobs ID and /jobs stop ID.
func (m Model) jobsCommand(args []string) (Model, tea.Cmd) {
	j, ok := m.backend.(Jobs)
	if !ok {
		m = m.addBlock(errorBlock("background jobs are not available here", ""))
		return m, nil
	}
	switch {
	case len(args) == 0:
		return m, func() tea.Msg {
			list, now := j.Jobs(), time.Now()
			return commandResultMsg{draw: func(c *common) []string { return drawJobs(c, list, now) }, refresh: true}
		}
	case len(args) == 2 && args[0] == "stop":
		id := args[1]
		if _, err := strconv.Atoi(id); err == nil {
			id = "job" + id // "/jobs stop 1", as /permissions remove takes a number
		}
		return m, func() tea.Msg {
			in, err := j.StopJob(id)
			if err != nil {
				// The tool's hint speaks to the model; the person types /jobs.
				text, _ := errorParts(err)
				return commandResultMsg{err: &agent.UserError{Msg: text, Hint: "/jobs lists the jobs and their ids"}, refresh: true}
			}
			if !in.Stopped && in.ExitCode != nil {
				// It ended before the stop: nothing was stopped.
				return commandResultMsg{draw: textDraw(fmt.Sprintf("%s had already exited (exit code %d), nothing to stop: %s", in.ID, *in.ExitCode, tools.ClipOneLine(in.Command, 80))), refresh: true}
			}
			text := "stopped " + in.ID + ": " + tools.ClipOneLine(in.Command, 80)
			if in.SandboxNote != "" {
				// What the job planted and the sandbox took away is told.
				text += "\n" + strings.TrimPrefix(in.SandboxNote, "permission_denied: ")
			}
			return commandResultMsg{draw: textDraw(text), refresh: true}
		}
	case len(args) == 1 && args[0] != "stop":
		return m.openJob(args[0])
	}
	m = m.addBlock(errorBlock("usage: /jobs [ID | stop ID]", "lists the background jobs, follows one's output, or stops one"))
	return m, nil
}

// drawJobs lists jobs one per line: id, state, age, output, command; a
// long command wraps under its own column.
func drawJobs(c *common, list []tools.JobInfo, now time.Time) []string {
	w := c.contentWidth() - 2
	if len(list) == 0 {
		return textDraw("no background jobs (the model starts one with shell_run and background: true)")(c)
	}
	var out []string
	for _, in := range list {
		state := "running"
		switch {
		case in.Running:
		case in.Stopped:
			state = "stopped"
		case in.ExitCode != nil:
			state = "exited " + strconv.Itoa(*in.ExitCode)
		}
		head := fmt.Sprintf("%-6s %-10s %8s  %8s  ", termtext.OneLine(in.ID, 20), state, formatElapsed(now.Sub(in.Started)), tools.HumanSize(in.OutputBytes))
		hw := ansi.StringWidth(head)
		cmd := wrapWords(tools.ClipOneLine(in.Command, 200), max(w-hw, 20))
		out = append(out, "  "+head+cmd[0])
		for _, l := range cmd[1:] {
			out = append(out, "  "+strings.Repeat(" ", hw)+l)
		}
	}
	return append(out, textDraw("/jobs ID shows one's output and follows it; /jobs stop ID stops one; all stop when myclaw exits")(c)...)
}
