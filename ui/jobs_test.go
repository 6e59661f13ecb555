package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"myclaw/tools"
)

// jobsFake is a backend with background jobs.
type jobsFake struct {
	*fakeBackend
	jobs    []tools.JobInfo
	stopped []string
}

func (f *jobsFake) Jobs() []tools.JobInfo { return f.jobs }

func (f *jobsFake) StopJob(id string) (tools.JobInfo, error) {
	for i, in := range f.jobs {
		if in.ID == id {
			if !in.Running {
				return in, nil
			}
			f.jobs[i].Running, f.jobs[i].Stopped = false, true
			f.stopped = append(f.stopped, id)
			return f.jobs[i], nil
		}
	}
	return tools.JobInfo{}, tools.Errorf(tools.KindNotFound, "Use one of the ids shell_jobs {\"action\":\"list\"} shows.", "no job %q", id)
}

func TestJobsCommandAndStatusCount(t *testing.T) {
	code := 0
	f := &jobsFake{fakeBackend: newFake(), jobs: []tools.JobInfo{
		{ID: "job1", Command: "npm run dev", Running: true, Started: time.Now().Add(-90 * time.Second), OutputBytes: 2048},
		{ID: "job2", Command: "go build", ExitCode: &code, Started: time.Now()},
	}}
	m := newTestModel(t, f)
	m = runCmd(t, m, refreshStatus(f))
	if got := m.statusView(); !strings.Contains(got, "1 job") || strings.Contains(got, "1 jobs") {
		t.Errorf("status line %q; want the running job counted", got)
	}
	m = runLine(t, m, "/jobs")
	got := lastBlock(m)
	for _, want := range []string{"job1", "running", "npm run dev", "job2", "exited 0", "/jobs stop ID"} {
		if !strings.Contains(got, want) {
			t.Errorf("/jobs output %q lacks %q", got, want)
		}
	}
	m = runLine(t, m, "/jobs stop 1")
	if len(f.stopped) != 1 || !strings.Contains(lastBlock(m), "stopped job1") {
		t.Fatalf("stop: %v, %q", f.stopped, lastBlock(m))
	}
	m = runLine(t, m, "/jobs stop 2")
	if got := lastBlock(m); !strings.Contains(got, "job2 had already exited (exit code 0), nothing to stop: go build") || strings.Contains(got, "stopped") {
		t.Errorf("stop of an exited job: %q; want it said to have exited already", got)
	}
	m = runCmd(t, m, refreshStatus(f))
	if got := m.statusView(); strings.Contains(got, "job") {
		t.Errorf("status line %q after the stop; want no job count", got)
	}
	m = runLine(t, m, "/jobs stop nope")
	if got := lastBlock(m); !strings.Contains(got, `no job "nope"`) || !strings.Contains(got, "/jobs lists the jobs") || strings.Contains(got, "shell_jobs") {
		t.Errorf("bad stop: %q; want the person told to type /jobs", got)
	}
	m = runLine(t, newTestModel(t, newFake()), "/jobs")
	if !strings.Contains(lastBlock(m), "not available") {
		t.Errorf("plain backend: %q", lastBlock(m))
	}
}

// At 80 columns a long command wraps under the command column, not under
// the id.
func TestJobsTableWrapsUnderTheCommand(t *testing.T) {
	f := &jobsFake{fakeBackend: newFake(), jobs: []tools.JobInfo{
		{ID: "job1", Command: "while true; do curl -s http://127.0.0.1:3000/api/health && echo ok; sleep 5; done", Running: true, Started: time.Now()},
	}}
	m := update(newTestModel(t, f), sizeMsg(80, 24))
	m = runLine(t, m, "/jobs")
	lines := strings.Split(ansi.Strip(lastBlock(m)), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "  job1 ") || !strings.HasPrefix(lines[1], strings.Repeat(" ", 40)) || strings.TrimSpace(lines[1]) == "" {
		t.Fatalf("/jobs at 80 columns:\n%s\nwant the command's second line under the command column", strings.Join(lines, "\n"))
	}
	for _, l := range lines {
		if ansi.StringWidth(l) > 80 {
			t.Errorf("line of %d columns: %q", ansi.StringWidth(l), l)
		}
	}
}
