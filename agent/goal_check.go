package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"myclaw/approval"
	"myclaw/history"
	"myclaw/tools"
	"myclaw/tools/walk"
)

// check runs the goal's check through shell_run (its limits, output caps
// and scrubbed environment), confined as the goal says, and reports it as
// a call. What it changed in the workspace is journaled in the iteration's
// group, so that undoing the iteration takes it back too.
func (r *goalRun) check(ctx context.Context, it int) (checkRun, error) {
	a := r.a
	tool := a.opts.UserTools.Shell
	// A test suite may take long: the check gets the longest time the
	// tool allows a command ([shell] max_timeout_s).
	argv := map[string]any{"command": r.g.Check}
	if t := maxTimeout(tool.Meta().Schema); t > 0 {
		argv["timeout_s"] = t
	}
	args := argsJSON(argv)
	conf, err := checkConfinement(r.g, a.Autonomy())
	if err != nil {
		return checkRun{}, err
	}
	ev, content, res := a.runUserTool(tools.WithConfinement(ctx, conf), tool, "goal_check", args, r.emit)
	if err := ctx.Err(); err != nil {
		return checkRun{}, err
	}
	if ev.Status != StatusOK {
		return checkRun{}, &UserError{Msg: "The check could not run: " + ev.Message, Hint: ev.Hint}
	}
	entry := history.Entry{CallID: ev.Call.ID, Tool: ev.Call.Tool, Args: args, Summary: "goal check: " + r.g.Check, Time: a.opts.Now(), Group: r.group(it)}
	if jerr := a.journalRun(entry, res); jerr != nil {
		return checkRun{}, &UserError{Msg: "Cannot write the undo journal after the check ran.", Hint: "Check free space and permissions of the state directory.", Err: jerr}
	}
	code := -1
	if ev.ExitCode != nil {
		code = *ev.ExitCode
	}
	chk := checkRun{GoalCheck: GoalCheck{Passed: code == 0, ExitCode: code}, content: content, output: res.Body, tail: lastLines(res.Body, goalTailLines)}
	if !chk.Passed {
		chk.Failures = CountFailures(fullOutput(res.Output, res.Body))
	}
	return chk, nil
}

// maxTimeout is the maximum of the timeout_s argument a tool's schema
// declares, 0 when it declares none.
func maxTimeout(schema json.RawMessage) int {
	var v struct {
		Properties struct {
			TimeoutS struct {
				Maximum int `json:"maximum"`
			} `json:"timeout_s"`
		} `json:"properties"`
	}
	if json.Unmarshal(schema, &v) != nil {
		return 0
	}
	return v.Properties.TimeoutS.Maximum
}

// goalTailLines is how much of the check's output a goal_iteration event
// carries for people.
const goalTailLines = 12

// rollback takes back iteration it, which made the check worse. It
// returns why it could not ("" when it did); the error is a broken
// journal or a cancelled ctx.
func (r *goalRun) rollback(ctx context.Context, it int) (string, error) {
	a := r.a
	a.mu.Lock()
	j := a.journal
	a.mu.Unlock()
	entries := j.Entries()
	newest := -1
	for i := len(entries) - 1; i >= 0; i-- {
		if e := entries[i]; e.Reversible && (e.State == history.StateApplied || e.State == history.StatePending) {
			newest = i
			break
		}
	}
	if newest < 0 || entries[newest].Group != r.group(it) {
		return "the check got worse, but the iteration's changes cannot be taken back: none were journaled as reversible", nil
	}
	outs, err := j.Undo(ctx, 1, false, a.resolver())
	if err != nil && !errors.Is(err, history.ErrNothingToUndo) {
		return "", err
	}
	for _, o := range outs {
		if o.Err != nil {
			return "the check got worse, but taking the iteration back stopped: " + o.Message, nil
		}
	}
	return "", nil
}

// checkConfinement is how the check runs: as the goal says, and at the
// readonly and plan levels with the workspace read-only and no network,
// since those levels promise that nothing in the workspace changes (the
// level is read at each check: it may change during the run). Unsandboxed,
// nothing would hold that promise: the check is refused.
func checkConfinement(g Goal, level approval.Level) (tools.Confinement, error) {
	c := g.Confinement
	if level != approval.ReadOnly && level != approval.Plan {
		return c, nil
	}
	if g.Unconfined || !c.Sandboxed {
		return c, &UserError{Msg: "At autonomy " + string(level) + " the check must not change the workspace, and without the sandbox nothing keeps it from doing so: it did not run.",
			Hint: "/autonomy auto-edit lets the check (and the model) write, or run with the sandbox on."}
	}
	c.ReadOnly, c.Network = true, false
	return c, nil
}

// failureLine matches the lines CountFailures counts: Go's "--- FAIL"
// (each failing test and subtest), unittest's "FAIL: " and "ERROR: ",
// pytest's "FAILED ".
var failureLine = regexp.MustCompile(`(?m)^\s*(--- FAIL|FAIL: |ERROR: |FAILED )`)

// CountFailures counts the failures a check's output names, by the lines
// failureLine matches; an output that names none counts as one failure
// (the check failed, by its exit status).
func CountFailures(output string) int {
	return max(len(failureLine.FindAllStringIndex(output, -1)), 1)
}

// noise is what differs between two runs of a check on the same files:
// timings, addresses, process ids and temporary names.
var noise = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|us|ms|s|m|h)\b|0x[0-9a-fA-F]+|\d{5,}`)

// normalizeCheckOutput drops the noise from a check's output, so that two
// runs that failed alike compare equal.
func normalizeCheckOutput(s string) string { return noise.ReplaceAllString(s, "#") }

// fullOutput is the whole output of a shell_run result: the file it was
// saved to when the result shows only part (bounded), else the body.
func fullOutput(output any, body string) string {
	b, err := json.Marshal(output)
	if err != nil {
		return body
	}
	var v struct {
		OutputFile string `json:"output_file"`
	}
	if json.Unmarshal(b, &v) != nil || v.OutputFile == "" {
		return body
	}
	f, err := os.Open(v.OutputFile)
	if err != nil {
		return body
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCountedOutput))
	if err != nil {
		return body
	}
	return string(data)
}

// maxCountedOutput bounds the output read to count failures.
const maxCountedOutput = 32 << 20

func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// workspaceState fingerprints the workspace's files (as the workspace
// lister sees them: ignored files left out), to tell whether an
// iteration changed anything. A file whose size and time are as last seen
// is not read again.
type workspaceState struct {
	dir   string
	cache map[string]fileSum
}

type fileSum struct {
	size int64
	mod  time.Time
	sum  string
}

// maxStateEntries bounds the walk of a huge workspace: changes past it go
// unseen.
const maxStateEntries = 200_000

// maxHashedFile: a larger file is known by its size and time alone.
const maxHashedFile = 8 << 20

func newWorkspaceState(dir string) *workspaceState {
	return &workspaceState{dir: dir, cache: map[string]fileSum{}}
}

// fingerprint returns a digest of every file's path and content.
func (s *workspaceState) fingerprint(ctx context.Context) (string, error) {
	h := sha256.New()
	seen := map[string]fileSum{}
	_, err := walk.Files(ctx, os.DirFS(s.dir), walk.Options{Excludes: walk.UserExcludes(), MaxEntries: maxStateEntries}, func(p string, d fs.DirEntry) error {
		info, err := d.Info()
		if err != nil {
			return nil // gone since it was listed
		}
		fsum, ok := s.cache[p]
		if !ok || fsum.size != info.Size() || !fsum.mod.Equal(info.ModTime()) {
			fsum = fileSum{size: info.Size(), mod: info.ModTime(), sum: hashFile(filepath.Join(s.dir, filepath.FromSlash(p)), info)}
		}
		seen[p] = fsum
		fmt.Fprintf(h, "%s\x00%s\x00", p, fsum.sum)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("read the workspace's files: %w", err)
	}
	s.cache = seen
	return hex.EncodeToString(h.Sum(nil)), nil
}

func hashFile(path string, info fs.FileInfo) string {
	stamp := fmt.Sprintf("size %d time %d", info.Size(), info.ModTime().UnixNano())
	if info.Size() > maxHashedFile {
		return stamp
	}
	f, err := os.Open(path)
	if err != nil {
		return stamp
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, maxHashedFile)); err != nil {
		return stamp
	}
	return hex.EncodeToString(h.Sum(nil))
}
