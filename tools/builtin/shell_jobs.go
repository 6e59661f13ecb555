package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"myclaw/tools"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

//go:embed shell_jobs.md
var shellJobsDescription string

const (
	// jobKeptBytes is how much of a job's output is kept for reading.
	jobKeptBytes = 256 << 10
	// jobFirstWait is how long shell_run waits for a new job's first
	// output (or its end) before answering.
	jobFirstWait = 2 * time.Second
	// jobMaxRunning bounds the jobs running at once.
	jobMaxRunning = 8
)

// ShellJobs holds the background jobs of one session: commands started by
// shell_run with background true. Every job runs contained like any shell
// command (its own session, no terminal, its whole tree killed when it
// stops); StopAll ends them when the session does, and KillProcesses when
// myclaw exits. It is safe for concurrent use.
type ShellJobs struct {
	mu   sync.Mutex
	jobs []*shellJob
	next int
	// onEnd hears of each job that ended by itself (not stopped).
	onEnd func(tools.JobInfo)
}

// OnEnd sets f to be called, on a goroutine of its own, with each job that
// ends by itself: a status line counting the running jobs gets fresh.
func (j *ShellJobs) OnEnd(f func(tools.JobInfo)) {
	j.mu.Lock()
	j.onEnd = f
	j.mu.Unlock()
}

// NewShellJobs returns an empty job table.
func NewShellJobs() *ShellJobs { return &ShellJobs{} }

type shellJob struct {
	id      string
	command string
	started time.Time
	proc    *shellProc
	out     *jobOutput
	ended   chan struct{} // closed once the job and its tree are gone and cleaned up after
	// cleanup runs once the tree is gone, before ended closes: the
	// sandbox's sweep of what the job left (nil: nothing to do).
	cleanup func() string

	mu       sync.Mutex
	readOff  int64
	exitCode int
	stopped  bool
	note     string // cleanup's word
}

// jobOutput keeps the last jobKeptBytes of a job's output, both streams
// interleaved, with absolute offsets so that reads can resume.
type jobOutput struct {
	mu    sync.Mutex
	buf   []byte
	total int64
}

// Write implements io.Writer for both output streams.
func (o *jobOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.total += int64(len(p))
	o.buf = append(o.buf, p...)
	if len(o.buf) > 2*jobKeptBytes {
		o.buf = append(o.buf[:0], o.buf[len(o.buf)-jobKeptBytes:]...)
	}
	return len(p), nil
}

// read returns up to limit bytes from offset from (cut at a rune start), the
// offset after them, and how many bytes before them were dropped.
func (o *jobOutput) read(from int64, limit int) (string, int64, int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	start := o.total - int64(len(o.buf))
	var skipped int64
	if from < start {
		skipped, from = start-from, start
	}
	b := o.buf[from-start:]
	if len(b) > limit {
		b = tools.CutUTF8(b, limit)
	}
	return string(b), from + int64(len(b)), skipped
}

func (o *jobOutput) size() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.total
}

// start runs cmd, built from the command line line, as a new job;
// cleanup (nil: none) runs once its tree is gone, before it counts as
// ended, so that a session ending waits for it.
func (j *ShellJobs) start(cmd *exec.Cmd, line string, cleanup func() string) (*shellJob, error) {
	j.mu.Lock()
	running := 0
	for _, job := range j.jobs {
		if job.running() {
			running++
		}
	}
	if running >= jobMaxRunning {
		j.mu.Unlock()
		return nil, tools.Errorf(tools.KindQuotaExceeded, "Stop a job you no longer need with shell_jobs {\"action\":\"stop\",\"id\":...} first.",
			"%d background jobs are running already, the most allowed", running)
	}
	j.next++
	id := "job" + strconv.Itoa(j.next)
	j.mu.Unlock()

	out := &jobOutput{}
	proc, err := startShell(cmd, out, out)
	if err != nil {
		return nil, err
	}
	job := &shellJob{id: id, command: line, started: time.Now(), proc: proc, out: out, ended: make(chan struct{}), cleanup: cleanup}
	go func() {
		<-proc.exited
		// The job's own process ended: what it left behind goes too.
		proc.stop()
		note := ""
		if job.cleanup != nil {
			note = job.cleanup()
		}
		job.mu.Lock()
		job.note = note
		job.exitCode = shellExitCode(proc.cmd.ProcessState)
		stopped := job.stopped
		job.mu.Unlock()
		close(job.ended)
		j.mu.Lock()
		onEnd := j.onEnd
		j.mu.Unlock()
		if onEnd != nil && !stopped {
			onEnd(job.info())
		}
	}()
	j.mu.Lock()
	j.jobs = append(j.jobs, job)
	j.mu.Unlock()
	return job, nil
}

func (job *shellJob) running() bool {
	select {
	case <-job.ended:
		return false
	default:
		return true
	}
}

func (job *shellJob) info() tools.JobInfo {
	job.mu.Lock()
	defer job.mu.Unlock()
	in := tools.JobInfo{ID: job.id, Command: job.command, Running: job.running(), Stopped: job.stopped, Started: job.started, OutputBytes: job.out.size(), SandboxNote: job.note}
	in.UnreadBytes = in.OutputBytes - job.readOff
	if !in.Running {
		code := job.exitCode
		in.ExitCode = &code
	}
	return in
}

// readNew returns the output the model has not read yet, at most limit bytes.
func (job *shellJob) readNew(limit int) (string, int64) {
	job.mu.Lock()
	defer job.mu.Unlock()
	text, next, skipped := job.out.read(job.readOff, limit)
	job.readOff = next
	return text, skipped
}

// stop kills the job's whole tree and waits until it is gone.
func (job *shellJob) stop() {
	if !job.running() {
		return
	}
	job.mu.Lock()
	job.stopped = true
	job.mu.Unlock()
	job.proc.tree.Kill()
	<-job.ended
}

func (j *ShellJobs) find(id string) (*shellJob, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var ids []string
	for _, job := range j.jobs {
		if job.id == id {
			return job, nil
		}
		ids = append(ids, job.id)
	}
	if len(ids) == 0 {
		return nil, tools.Errorf(tools.KindNotFound, "No background job runs; start one with shell_run {\"background\": true}.", "no job %q: there are no jobs", id)
	}
	return nil, tools.Errorf(tools.KindNotFound, "Use one of the ids shell_jobs {\"action\":\"list\"} shows.", "no job %q; jobs: %s", id, strings.Join(ids, ", ")).With("id", id)
}

// List describes every job of the session, oldest first.
func (j *ShellJobs) List() []tools.JobInfo {
	j.mu.Lock()
	jobs := slices.Clone(j.jobs)
	j.mu.Unlock()
	out := make([]tools.JobInfo, 0, len(jobs))
	for _, job := range jobs {
		out = append(out, job.info())
	}
	return out
}

// Tail describes one job with the last n bytes of its output, for a
// person following it; what the model has read is left as it is.
func (j *ShellJobs) Tail(id string, n int) (tools.JobInfo, string, error) {
	job, err := j.find(id)
	if err != nil {
		return tools.JobInfo{}, "", err
	}
	in := job.info()
	from := max(in.OutputBytes-int64(n), 0)
	text, _, _ := job.out.read(from, n)
	if from > 0 {
		// The first bytes may be the end of a rune cut in two.
		text = strings.TrimLeftFunc(text, func(r rune) bool { return r == utf8.RuneError })
	}
	return in, text, nil
}

// Running counts the jobs still running.
func (j *ShellJobs) Running() int {
	n := 0
	for _, in := range j.List() {
		if in.Running {
			n++
		}
	}
	return n
}

// Stop stops one job and describes it once it is gone.
func (j *ShellJobs) Stop(id string) (tools.JobInfo, error) {
	job, err := j.find(id)
	if err != nil {
		return tools.JobInfo{}, err
	}
	job.stop()
	return job.info(), nil
}

// StopAll stops every running job; the session is ending.
func (j *ShellJobs) StopAll() {
	if j == nil {
		return
	}
	j.mu.Lock()
	jobs := slices.Clone(j.jobs)
	j.mu.Unlock()
	var wg sync.WaitGroup
	for _, job := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			job.stop()
		}()
	}
	wg.Wait()
}

// jobResult is the answer to starting, reading or stopping a job: its
// state and the output not read before, fenced like any command output.
func jobResult(job *shellJob, summary string) tools.Result {
	text, skipped := job.readNew(shellShownBytes)
	in := job.info()
	out := struct {
		tools.JobInfo
		Note string `json:"note,omitempty"`
	}{JobInfo: in}
	var notes []string
	if skipped > 0 {
		notes = append(notes, fmt.Sprintf("%s of older output were dropped before it was read", tools.HumanSize(skipped)))
	}
	if in.UnreadBytes > 0 {
		notes = append(notes, fmt.Sprintf("%s more output waits: read again", tools.HumanSize(in.UnreadBytes)))
	}
	if in.Running {
		notes = append(notes, "read new output with shell_jobs {\"action\":\"read\",\"id\":\""+in.ID+"\"}, stop it with {\"action\":\"stop\"}")
	}
	if in.SandboxNote != "" {
		notes = append([]string{in.SandboxNote}, notes...)
		summary += " · the sandbox undid what it left"
	}
	out.Note = strings.Join(notes, "; ")
	if text == "" {
		text = "(no new output)\n"
	}
	return tools.Result{
		Output:     out,
		Body:       text,
		Source:     "shell:" + tools.ClipOneLine(in.Command, 60),
		Summary:    summary,
		Capability: "shell:jobs",
	}
}

type shellJobsTool struct {
	jobs *ShellJobs
	meta tools.Meta
}

// NewShellJobsTool returns shell_jobs, the model's view of its background
// jobs: list them, read their new output, stop one. It is read-only in the
// approval sense: stopping only ends what an approved shell_run started.
func NewShellJobsTool(jobs *ShellJobs) tools.Tool {
	return &shellJobsTool{jobs: jobs, meta: tools.Meta{
		Name:        "shell_jobs",
		Description: strings.TrimSpace(shellJobsDescription),
		Schema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "action": {"type": "string", "enum": ["list", "read", "stop"], "description": "list, read (new output) or stop (the whole process tree)."},
    "id": {"type": "string", "maxLength": 32, "description": "Job id, for read and stop."}
  },
  "required": ["action"],
  "additionalProperties": false
}`),
		ReadOnly:         true,
		Risk:             tools.RiskLow,
		ReturnsUntrusted: true,
		Capability:       "shell:jobs",
		Source:           tools.SourceBuiltin,
	}}
}

// Meta implements Tool.
func (t *shellJobsTool) Meta() tools.Meta { return t.meta }

// Execute implements Tool.
func (t *shellJobsTool) Execute(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Action string `json:"action"`
		ID     string `json:"id"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, "Send {\"action\": \"list\"|\"read\"|\"stop\", \"id\": \"job1\"}.", "arguments are not valid: %v", err)
	}
	if a.Action == "list" {
		list := t.jobs.List()
		var b strings.Builder
		for _, in := range list {
			state := "running"
			if !in.Running {
				state = "exited " + strconv.Itoa(*in.ExitCode)
				if in.Stopped {
					state = "stopped"
				}
			}
			fmt.Fprintf(&b, "%s  %s  %s  %s output, %s unread\n", in.ID, state, tools.ClipOneLine(in.Command, 80), tools.HumanSize(in.OutputBytes), tools.HumanSize(in.UnreadBytes))
		}
		if len(list) == 0 {
			b.WriteString("(no jobs)\n")
		}
		return tools.Result{Output: struct {
			Jobs []tools.JobInfo `json:"jobs"`
		}{list}, Body: b.String(), Source: "shell:jobs", Summary: tools.Count(len(list), "background job"), Capability: "shell:jobs"}, nil
	}
	if a.ID == "" {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, "Name the job in \"id\" (shell_jobs {\"action\":\"list\"} shows them).", "%s needs an id", a.Action)
	}
	job, err := t.jobs.find(a.ID)
	if err != nil {
		return tools.Result{}, err
	}
	if a.Action == "stop" {
		job.stop()
		return jobResult(job, "Stopped "+job.id), nil
	}
	return jobResult(job, "Read "+job.id), nil
}
