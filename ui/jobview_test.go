package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"myclaw/tools"
)

// jobOutputFake is a backend whose jobs have output.
type jobOutputFake struct {
	*jobsFake
	output map[string]string
	tails  []string // the ids read
}

func (f *jobOutputFake) JobTail(id string, n int) (tools.JobInfo, string, error) {
	f.tails = append(f.tails, id)
	for _, in := range f.jobs {
		if in.ID == id {
			out := f.output[id]
			return in, out[max(len(out)-n, 0):], nil
		}
	}
	in, err := f.StopJob(id) // the same not-found error
	return in, "", err
}

// readJob runs the read a /jobs view asked for, with the job's age pinned.
func readJob(t *testing.T, m Model, cmd func() any) (Model, bool) {
	t.Helper()
	msg, ok := cmd().(jobTailMsg)
	if !ok {
		t.Fatalf("the view asked for %T; want a read of the job", msg)
	}
	msg.age = 90 * time.Second
	m, next := updateCmd(m, msg)
	return m, next != nil
}

func jobModel(t *testing.T, w, h int) (Model, *jobOutputFake) {
	var out strings.Builder
	for i := 1; i <= 40; i++ {
		out.WriteString("GET /api/items 200 " + strings.Repeat("·", i%7) + "\n")
	}
	out.WriteString("\x1b]0;owned\x07\x1b[31mready\x1b[0m on :3000\tok\n")
	f := &jobOutputFake{jobsFake: &jobsFake{fakeBackend: newFake(), jobs: []tools.JobInfo{
		{ID: "job1", Command: "npm run dev", Running: true, Started: time.Now()},
	}}, output: map[string]string{"job1": out.String()}}
	m := newTestModel(t, f)
	return update(m, sizeMsg(w, h)), f
}

// /jobs ID shows the tail of the job's output in place of the input and
// follows it while the job runs; Esc closes it.
func TestJobsIDFollowsTheOutput(t *testing.T) {
	for _, size := range []struct {
		name string
		w, h int
	}{{"80x24", 80, 24}, {"120x40", 120, 40}} {
		t.Run(size.name, func(t *testing.T) {
			m, f := jobModel(t, size.w, size.h)
			m = typeText(m, "/jobs 1")
			m.input.closed = true
			m, cmd := updateCmd(m, keyMsg("enter"))
			if m.job == nil || cmd == nil {
				t.Fatal("/jobs 1 opened no view of the job")
			}
			m, follows := readJob(t, m, func() any { return cmd() })
			if !follows {
				t.Error("the view of a running job does not read it again")
			}
			view := screen(m)
			if strings.Contains(view, "owned") || strings.Contains(m.View(), "\x1b]0;") {
				t.Errorf("the job's escape sequences reached the screen:\n%s", view)
			}
			golden.RequireEqual(t, []byte(view))

			// More output comes; the next read shows it.
			f.output["job1"] += "POST /api/items 201\n"
			m, follow := updateCmd(m, jobFollowMsg{seq: m.job.seq})
			m, _ = readJob(t, m, func() any { return follow() })
			if !strings.Contains(screen(m), "POST /api/items 201") {
				t.Errorf("the view does not follow the output:\n%s", screen(m))
			}
			m = update(m, keyMsg("esc"))
			if m.job != nil || !strings.Contains(screen(m), "Ask anything") {
				t.Errorf("esc left the view open:\n%s", screen(m))
			}
			if _, cmd := updateCmd(m, jobFollowMsg{seq: 1}); cmd != nil {
				t.Error("a closed view still reads the job")
			}
		})
	}
}

// /jobs job1 works as /jobs 1 does; an unknown id says what to type.
func TestJobsIDTakesEitherFormAndNamesAWrongOne(t *testing.T) {
	m, f := jobModel(t, 80, 24)
	code := 2
	f.jobs[0].Running, f.jobs[0].ExitCode = false, &code
	m = runLine(t, m, "/jobs job1")
	if len(f.tails) != 1 || f.tails[0] != "job1" || m.job == nil {
		t.Fatalf("read %v; want job1 read and shown", f.tails)
	}
	if got := screen(m); !strings.Contains(got, "job1 · exited 2") {
		t.Errorf("the view of an ended job does not say how it ended:\n%s", got)
	}
	m = update(m, keyMsg("esc"))
	m = runLine(t, m, "/jobs 7")
	if got := lastBlock(m); m.job != nil || !strings.Contains(got, `no job "job7"`) || !strings.Contains(got, "/jobs lists") {
		t.Errorf("unknown id: %q; want the id named and /jobs suggested", got)
	}
}

// Typing in the view closes it and goes to the prompt, so the stop its
// footer suggests works; Esc leaves the job's last lines in the transcript;
// PgUp scrolls back.
func TestJobsViewHandsTypingToThePrompt(t *testing.T) {
	m, f := jobModel(t, 80, 24)
	m = typeText(m, "/jobs 1")
	m.input.closed = true
	m, cmd := updateCmd(m, keyMsg("enter"))
	m, _ = readJob(t, m, func() any { return cmd() })
	m = update(m, keyMsg("pgup"))
	if got := screen(m); !strings.Contains(got, "rows back") || strings.Contains(got, "ready on :3000") {
		t.Errorf("pgup did not scroll the view back:\n%s", got)
	}
	m = update(m, keyMsg("pgdown"))
	if got := screen(m); !strings.Contains(got, "ready on :3000") {
		t.Errorf("pgdown did not come back to the newest output:\n%s", got)
	}
	m = update(m, keyMsg("esc"))
	if got := lastBlock(m); m.job != nil || !strings.Contains(got, "job1 · running · npm run dev") || !strings.Contains(got, "ready on :3000") || strings.Count(got, "GET /api/items") != jobNoteLines-1 {
		t.Errorf("after esc the transcript holds %q; want the job and its last lines", got)
	}

	m = typeText(m, "/jobs 1")
	m.input.closed = true
	m, cmd = updateCmd(m, keyMsg("enter"))
	m, _ = readJob(t, m, func() any { return cmd() })
	m = typeText(m, "/jobs stop 1")
	if m.job != nil || m.input.ta.value() != "/jobs stop 1" {
		t.Fatalf("typing in the view: view open %v, prompt %q", m.job != nil, m.input.ta.value())
	}
	m.input.closed = true
	m, cmd = updateCmd(m, keyMsg("enter"))
	runCmd(t, m, cmd)
	if len(f.stopped) != 1 || f.stopped[0] != "job1" {
		t.Errorf("stopped %v; want job1", f.stopped)
	}
}

// Long lines wrap into several rows; the footer counts the lines shown.
func TestJobsViewCountsLinesNotRows(t *testing.T) {
	m, f := jobModel(t, 80, 24)
	var out strings.Builder
	for i := range 10 {
		out.WriteString(strings.Repeat("x", 100) + " line " + string(rune('a'+i)) + "\n")
	}
	f.output["job1"] = out.String()
	m = typeText(m, "/jobs 1")
	m.input.closed = true
	m, cmd := updateCmd(m, keyMsg("enter"))
	m, _ = readJob(t, m, func() any { return cmd() })
	if got := screen(m); !strings.Contains(got, "last 6 lines") {
		t.Errorf("12 rows of 2-row lines; want the footer to say 6 lines:\n%s", got)
	}
}
