package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"myclaw/tools"
	"myclaw/tools/proc"
	"myclaw/tools/snapshot"
	"myclaw/tools/termtext"
)

//go:embed shell_run.md
var shellRunDescription string

const (
	shellDefaultTimeout = 120 * time.Second
	shellMaxTimeout     = 600 * time.Second
	// shellGrace is added to the tool's declared timeout so that the
	// command's own timeout, which keeps the output, fires first.
	shellGrace = 30 * time.Second
	// shellWaitDelay bounds how long output is still read after the tree
	// was killed, in case a process out of reach keeps the pipes open.
	shellWaitDelay = 2 * time.Second
	// shellShownBytes is the output budget shown to the model, both streams
	// together; each stream keeps half of it at each end.
	shellShownBytes = 30 << 10
	// shellMinShownBytes is the least shown however full the context is.
	shellMinShownBytes = 2 << 10
	// shellLogCap bounds the full-output file so a runaway command cannot
	// fill the disk.
	shellLogCap = 100 << 20
)

// ShellOptions configures shell_run.
type ShellOptions struct {
	Dir            string        // workspace, absolute: the command's working directory
	OutputDir      string        // where full outputs are saved (created on demand)
	DefaultTimeout time.Duration // 0 -> 120 s
	MaxTimeout     time.Duration // 0 -> 600 s
	Env            []string      // base environment (nil -> os.Environ()); always passed through ScrubEnv
	// ShownBytes says how much output the model may be shown now, head and
	// tail together (nil or 0: 30 KB; kept within 2–30 KB). The agent
	// shrinks it as the context window fills.
	ShownBytes func() int
	// Undo, when set, records each command's changes to the workspace so
	// that /undo can restore them.
	Undo    *ShellUndo
	Sandbox tools.Sandbox // confines calls whose context asks for it (nil: none)
	// OnlyConfined refuses a call whose context does not ask for the
	// sandbox: an edit agent's commands must run in its layer, never in
	// the workspace itself.
	OnlyConfined bool
	// Jobs, when set, lets a call run in the background ("background":
	// true); shell_jobs reads and stops those jobs.
	Jobs *ShellJobs
}

type shellRun struct {
	opts ShellOptions
	meta tools.Meta
}

type shellArgs struct {
	Command    string `json:"command"`
	TimeoutS   *int   `json:"timeout_s"`
	Background bool   `json:"background"`
}

// NewShellRun returns the shell_run tool: bash -c in opts.Dir with a
// timeout, a scrubbed environment and bounded output. An empty Dir means the
// current directory; a relative one is made absolute.
func NewShellRun(opts ShellOptions) tools.Tool {
	if opts.DefaultTimeout <= 0 {
		opts.DefaultTimeout = shellDefaultTimeout
	}
	if opts.MaxTimeout <= 0 {
		opts.MaxTimeout = shellMaxTimeout
	}
	if opts.DefaultTimeout > opts.MaxTimeout {
		opts.DefaultTimeout = opts.MaxTimeout
	}
	if abs, err := filepath.Abs(opts.Dir); err == nil {
		opts.Dir = abs
	}
	maxS := int(opts.MaxTimeout / time.Second)
	background := ""
	if opts.Jobs != nil {
		background = `,
    "background": {"type": "boolean", "description": "Run as a background job (a dev server, a watcher): the call returns at once with a job id and the first output; read and stop it with shell_jobs. It is stopped when the session ends."}`
	}
	schema := fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "command": {"type": "string", "minLength": 1, "maxLength": 100000, "description": "A bash command line, run with bash -c in the workspace directory."},
    "timeout_s": {"type": "integer", "minimum": 1, "maximum": %d, "description": "Seconds before the command and all its processes are killed (default %d, max %d)."}%s
  },
  "required": ["command"],
  "additionalProperties": false
}`, maxS, int(opts.DefaultTimeout/time.Second), maxS, background)
	return &shellRun{opts: opts, meta: tools.Meta{
		Name:             "shell_run",
		Shell:            true,
		Description:      strings.TrimSpace(shellRunDescription),
		Schema:           json.RawMessage(schema),
		Risk:             tools.RiskHigh,
		ReturnsUntrusted: true,
		Capability:       "shell:exec",
		Timeout:          opts.MaxTimeout + shellGrace,
		Source:           tools.SourceBuiltin,
	}}
}

// Meta implements Tool.
func (s *shellRun) Meta() tools.Meta { return s.meta }

func (s *shellRun) parse(raw json.RawMessage) (shellArgs, time.Duration, error) {
	var a shellArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, 0, tools.Errorf(tools.KindInvalidArgs, "Send {\"command\": \"...\"} with an optional integer timeout_s.", "arguments are not valid: %v", err)
	}
	if strings.TrimSpace(a.Command) == "" {
		return a, 0, tools.Errorf(tools.KindInvalidArgs, "Send the bash command line to run in \"command\".", "command is empty")
	}
	if strings.ContainsRune(a.Command, 0) {
		return a, 0, tools.Errorf(tools.KindInvalidArgs, "Remove the NUL byte from the command.", "command contains a NUL byte")
	}
	if a.Background && s.opts.Jobs == nil {
		return a, 0, tools.Errorf(tools.KindUnsupported, "Run the command in the foreground, without \"background\".", "background jobs are not available here")
	}
	timeout := s.opts.DefaultTimeout
	if a.TimeoutS != nil {
		maxS := int(s.opts.MaxTimeout / time.Second)
		if *a.TimeoutS < 1 || *a.TimeoutS > maxS {
			return a, 0, tools.Errorf(tools.KindInvalidArgs,
				fmt.Sprintf("Use a timeout_s between 1 and %d, split the work into shorter commands, or run a long job with \"background\": true.", maxS),
				"timeout_s %d is out of range 1..%d", *a.TimeoutS, maxS).With("timeout_s", *a.TimeoutS)
		}
		timeout = time.Duration(*a.TimeoutS) * time.Second
	}
	return a, timeout, nil
}

// DryRun implements Tool. It parses the command line without running it;
// the preview is an analysis, not a prediction, which is why the tool does
// not declare SupportsDryRun.
func (s *shellRun) DryRun(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	a, timeout, err := s.parse(raw)
	if err != nil {
		return tools.Result{}, err
	}
	cl, err := ParseCommandLine(a.Command, s.opts.Dir)
	if err != nil {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, "Fix the shell syntax (quotes, parentheses, here-documents) and call again.", "%v", err)
	}
	if termtext.HasHidden(a.Command) {
		// A terminal shows such a line as something else than what bash
		// reads (an OSC string hides its payload, a zero-width space
		// splits a word invisibly).
		cl.Warnings = append([]string{"the command holds raw control or invisible characters (shown escaped): what a terminal shows is not what bash runs"}, cl.Warnings...)
		cl.Risk, cl.RiskWhy = tools.RiskHigh, "holds raw control or invisible characters: what a terminal shows is not what bash runs"
	}
	if s.opts.Undo != nil && cl.Risk == tools.RiskMedium {
		cl.NotUndoable = s.opts.Undo.notUndoable(cl.Changes)
	}
	var p strings.Builder
	fmt.Fprintf(&p, "$ %s\n", tools.ClipOneLine(a.Command, 2000))
	if a.Background {
		fmt.Fprintf(&p, "in %s, as a background job: it runs until stopped, until it ends, or until the session ends; /undo cannot walk back what it changes\n", s.opts.Dir)
	} else {
		fmt.Fprintf(&p, "in %s, timeout %d s\n", s.opts.Dir, int(timeout/time.Second))
	}
	section := func(title string, items []string, bullet string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&p, "\n%s:\n", title)
		for _, it := range items {
			fmt.Fprintf(&p, "  %s%s\n", bullet, tools.ClipOneLine(it, 300))
		}
	}
	section("Runs", cl.Commands, "")
	section("Writes to", cl.Redirects, "")
	section("Warnings", cl.Warnings, "! ")
	var plan string
	if s.opts.Undo != nil && !a.Background {
		// A job's changes are not recorded: it runs on after the call.
		plan = s.opts.Undo.plan()
	}
	return tools.Result{
		Summary:    "Run `" + tools.ClipOneLine(a.Command, 80) + "`",
		UndoPlan:   plan,
		Preview:    strings.TrimRight(p.String(), "\n"),
		Capability: "shell:exec",
		Source:     "shell:" + tools.ClipOneLine(a.Command, 60),
		Command:    &cl,
	}, nil
}

// shellOutput is what the model reads besides the output itself.
type shellOutput struct {
	ExitCode    int    `json:"exit_code"`
	DurationMS  int64  `json:"duration_ms"`
	TimedOut    bool   `json:"timed_out"`
	StdoutBytes int64  `json:"stdout_bytes"`
	StderrBytes int64  `json:"stderr_bytes"`
	OutputFile  string `json:"output_file,omitempty"`
	Sandbox     string `json:"sandbox,omitempty"`
	Note        string `json:"note,omitempty"`
	// Stopped is set when the call was cancelled while the command ran.
	Stopped bool `json:"stopped,omitempty"`
	// FilesChanged lists the workspace files the command changed ("M a.go",
	// "A new.txt", "D old.txt"), bounded; /undo can restore them.
	FilesChanged []string `json:"files_changed,omitempty"`
}

// Execute implements Tool. A non-zero exit status is a result, not an error:
// the model needs the output to act on it.
func (s *shellRun) Execute(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	if run := previewedFrom(ctx, raw); run != nil {
		return s.apply(ctx, run)
	}
	return s.execute(ctx, raw, nil)
}

// captureBefore takes the capture a command's changes are measured from;
// nil (with the reason) when undo is off or the capture failed.
func (s *shellRun) captureBefore(ctx context.Context) (*snapshot.Snapshot, error) {
	if s.opts.Undo == nil {
		return nil, nil
	}
	before, err := s.opts.Undo.Tracker.Capture(ctx)
	if err != nil {
		return nil, errors.New("its changes to the workspace are not recorded, so it cannot be undone: " + err.Error())
	}
	return before, nil
}

// execute runs the command: in the workspace, or over a preview layer
// (then no capture is taken: nothing changes in the workspace).
func (s *shellRun) execute(ctx context.Context, raw json.RawMessage, layer *previewLayer) (tools.Result, error) {
	a, timeout, err := s.parse(raw)
	if err != nil {
		return tools.Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return tools.Result{}, err
	}
	if a.Background {
		return s.startJob(ctx, a.Command)
	}
	var notes []string
	fullLog, err := openShellLog(s.opts.OutputDir)
	if err != nil {
		notes = append(notes, "the full output could not be saved: "+err.Error())
	}
	stdout := newShellCapture(shellShownBytes/2, fullLog)
	stderr := newShellCapture(shellShownBytes/2, fullLog)
	stdout.progress, stderr.progress = tools.ProgressOf(ctx), tools.ProgressOf(ctx)

	cmd := s.command(a.Command)
	var sandbox *confinedRun
	if layer != nil {
		sandbox, err = layer.confine(cmd)
	} else {
		sandbox, err = s.confine(ctx, cmd)
	}
	if err != nil {
		fullLog.discard()
		return tools.Result{}, err
	}
	defer sandbox.close()
	var before *snapshot.Snapshot
	if layer == nil {
		if before, err = s.captureBefore(ctx); err != nil {
			notes = append(notes, err.Error())
		}
	}
	var rec shellRecorded
	recordChanges := func() {
		if before != nil {
			rec = s.opts.Undo.record(ctx, before)
		}
	}
	start := time.Now()
	sp, err := startShell(cmd, stdout, stderr)
	if err != nil {
		fullLog.discard()
		return tools.Result{}, s.startError(err)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var timedOut bool
	var stopped error
	select {
	case <-sp.exited:
	case <-timer.C:
		timedOut = true
	case <-ctx.Done():
		// The output so far is kept: with ctx.Err(), the result says what
		// the command printed before it was stopped; what it changed is
		// still undoable.
		stopped = ctx.Err()
	}
	elapsed := time.Since(start)
	// Whatever the command left running goes now, so that nothing outlives
	// the call; the output it wrote until then is kept.
	escaped := sp.stop()
	recordChanges()
	if rec.note != "" {
		notes = append(notes, rec.note)
	}

	out := shellOutput{
		ExitCode:    shellExitCode(sp.cmd.ProcessState),
		DurationMS:  elapsed.Milliseconds(),
		TimedOut:    timedOut,
		StdoutBytes: stdout.total,
		StderrBytes: stderr.total,
	}
	switch {
	case stopped != nil:
		out.Stopped = true
		notes = append(notes, fmt.Sprintf("stopped after %s (the user cancelled, or the call's time ran out): the command and all its processes were killed; the output up to then is below", elapsed.Round(100*time.Millisecond)))
	case timedOut:
		notes = append(notes, fmt.Sprintf("timed out after %d s: the command and all its processes were killed", int(timeout/time.Second)))
	case escaped:
		notes = append(notes, "a process that left the call's reach (it cleared its environment and was orphaned) kept the output open; its later output is not captured")
	}
	if _, ok := proc.ExitSignal(sp.cmd.ProcessState); ok && !timedOut && stopped == nil {
		notes = append(notes, proc.ExitDescription(sp.cmd.ProcessState))
	}

	body, truncNote := shellBody(stdout, stderr, s.shownBytes())
	if truncNote != "" {
		if path, err := fullLog.keep(); err != nil {
			truncNote += "; the full output could not be saved: " + err.Error()
		} else if path != "" {
			out.OutputFile = path
			truncNote += "; full output (stdout and stderr interleaved) in " + path
			if fullLog.capped {
				truncNote += fmt.Sprintf(" (capped at %s)", tools.HumanSize(shellLogCap))
			}
			truncNote += "; read parts of it with sed -n, grep -n or tail"
		}
		notes = append([]string{truncNote}, notes...)
	} else {
		fullLog.discard()
	}
	summary := fmt.Sprintf("Ran `%s`: exit %d in %s%s", tools.ClipOneLine(a.Command, 60), out.ExitCode, elapsed.Round(time.Millisecond), rec.summary)
	notes, summary = sandbox.report(&out, notes, summary, stderr)
	out.Note = strings.Join(notes, ". ")
	out.FilesChanged = rec.changed
	res := tools.Result{
		Undo:       rec.undo,
		UndoPlan:   rec.plan,
		Unchanged:  rec.unchanged,
		Output:     out,
		Body:       body,
		Source:     "shell:" + tools.ClipOneLine(a.Command, 60),
		Summary:    summary,
		Capability: "shell:exec",
	}
	if stopped != nil {
		res.Summary = fmt.Sprintf("Cancelled `%s` after %s%s", tools.ClipOneLine(a.Command, 60), elapsed.Round(100*time.Millisecond), rec.summary)
		return res, stopped
	}
	return res, nil
}

// shownBytes is the output budget of this call.
func (s *shellRun) shownBytes() int {
	n := 0
	if s.opts.ShownBytes != nil {
		n = s.opts.ShownBytes()
	}
	if n <= 0 {
		return shellShownBytes
	}
	return min(max(n, shellMinShownBytes), shellShownBytes)
}

func (s *shellRun) startError(err error) error {
	if errors.Is(err, exec.ErrNotFound) {
		return tools.Errorf(tools.KindUnsupported, "Shell commands cannot run on this system; tell the user bash is missing"+proc.BashInstallHint+".", "bash was not found in PATH")
	}
	if _, serr := os.Stat(s.opts.Dir); serr != nil {
		return tools.Errorf(tools.KindNotFound, "The workspace directory is missing; tell the user.", "the working directory %s is not accessible: %v", s.opts.Dir, serr)
	}
	return tools.Errorf(tools.KindUnknown, "Tell the user the command could not be started; do not retry blindly.", "the command could not start: %v", err)
}

// startJob starts a background job and answers with its id and what it
// printed in its first moments (or all of it, if it ended at once).
func (s *shellRun) startJob(ctx context.Context, line string) (tools.Result, error) {
	cmd := s.command(line)
	// A job is confined like any command the policy sandboxes.
	sandbox, err := s.confine(ctx, cmd)
	if err != nil {
		return tools.Result{}, err
	}
	var cleanup func() string
	if sandbox != nil {
		cleanup = sandbox.closeNote
	}
	job, err := s.opts.Jobs.start(cmd, line, cleanup)
	if err != nil {
		sandbox.close()
		if te := (*tools.Error)(nil); errors.As(err, &te) {
			return tools.Result{}, err
		}
		return tools.Result{}, s.startError(err)
	}
	t := time.NewTimer(jobFirstWait)
	defer t.Stop()
	select {
	case <-job.ended:
	case <-t.C:
	case <-ctx.Done():
		job.stop()
		return tools.Result{}, ctx.Err()
	}
	res := jobResult(job, "Started `"+tools.ClipOneLine(line, 60)+"` as "+job.id)
	res.Capability = "shell:exec"
	res.Unchanged = readsOnly(line, s.opts.Dir)
	return res, nil
}

// RunsInLayer reports a shell that runs commands only confined in an edit
// agent's layer (ShellOptions.OnlyConfined).
func (s *shellRun) RunsInLayer() bool { return s.opts.OnlyConfined }
