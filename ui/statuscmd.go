package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"myclaw/tools/proc"
	"myclaw/tools/termtext"
)

// statusInput is what the status command reads on stdin: the fields of
// Claude Code's statusline contract that myclaw knows, so that scripts
// written for it work, and myclaw's own under "myclaw".
type statusInput struct {
	HookEventName string `json:"hook_event_name"`
	SessionID     string `json:"session_id,omitempty"`
	Cwd           string `json:"cwd"`
	Model         struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"model"`
	Workspace struct {
		CurrentDir string `json:"current_dir"`
		ProjectDir string `json:"project_dir"`
	} `json:"workspace"`
	Version     string `json:"version,omitempty"`
	OutputStyle struct {
		Name string `json:"name"`
	} `json:"output_style"`
	Cost struct {
		TotalCostUSD    *float64 `json:"total_cost_usd,omitempty"`
		TotalDurationMS int64    `json:"total_duration_ms"`
	} `json:"cost"`
	ContextWindow *statusWindow `json:"context_window,omitempty"`
	Myclaw        struct {
		Autonomy  string `json:"autonomy"`
		Sandbox   string `json:"sandbox,omitempty"`
		UndoDepth int    `json:"undo_depth"`
		Jobs      int    `json:"jobs"`
		GitBranch string `json:"git_branch,omitempty"`
		Tokens    int    `json:"tokens"`
	} `json:"myclaw"`

	start time.Time // for the duration, measured when the command runs
}

type statusWindow struct {
	Size                int     `json:"context_window_size"`
	UsedPercentage      float64 `json:"used_percentage"`
	RemainingPercentage float64 `json:"remaining_percentage"`
}

func statusPayload(s statusInfo, workspace, version string, start time.Time) statusInput {
	var in statusInput
	in.HookEventName = "Status"
	in.SessionID = s.session
	in.Cwd = workspace
	in.Model.ID, in.Model.DisplayName = s.model, s.model
	in.Workspace.CurrentDir, in.Workspace.ProjectDir = workspace, workspace
	in.Version = version
	in.OutputStyle.Name = "default"
	if s.cost != "" {
		c := s.costUSD
		in.Cost.TotalCostUSD = &c
	}
	if s.window > 0 {
		used := min(100*float64(s.tokens)/float64(s.window), 100)
		in.ContextWindow = &statusWindow{Size: s.window, UsedPercentage: used, RemainingPercentage: 100 - used}
	}
	in.Myclaw.Autonomy = string(s.level)
	in.Myclaw.Sandbox = s.sandbox
	if s.unsandboxed {
		in.Myclaw.Sandbox = "unsandboxed"
	}
	in.Myclaw.UndoDepth, in.Myclaw.Jobs, in.Myclaw.GitBranch, in.Myclaw.Tokens = s.undo, s.jobs, s.branch, s.tokens
	in.start = start
	return in
}

// statusOutMax bounds what is read of the command's output: one line.
const statusOutMax = 4 << 10

// execStatus runs the status command through the shell, as the user's
// own command (it comes only from their config), with the environment's
// secrets left out like every command myclaw starts. It returns the first
// line printed, sanitised, or why it failed.
func execStatus(ctx context.Context, command string, confine func(*exec.Cmd) (func(), error), dir string, in statusInput) (string, string) {
	in.Cost.TotalDurationMS = time.Since(in.start).Milliseconds()
	payload, err := json.Marshal(in)
	if err != nil {
		return "", err.Error()
	}
	name, args := statusShell(command)
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(payload)
	cmd.Env = proc.ScrubEnv(os.Environ())
	cmd.WaitDelay = statusCommandLimit
	var out, errOut capWriter
	out.max, errOut.max = statusOutMax, statusOutMax
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if confine != nil {
		done, err := confine(cmd)
		if err != nil {
			return "", err.Error()
		}
		defer done()
	}
	err = proc.RunContained(ctx, cmd)
	if ctx.Err() != nil {
		return "", fmt.Sprintf("it ran over %s and was stopped", statusCommandLimit)
	}
	if err != nil {
		why := err.Error()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			why = fmt.Sprintf("exit status %d", ee.ExitCode())
		}
		if tail := termtext.OneLine(string(errOut.b), 200); tail != "" {
			why += ": " + tail
		}
		return "", why
	}
	line, _, _ := strings.Cut(string(out.b), "\n")
	line = termtext.OneLine(termtext.Strip(line), 0)
	if line == "" {
		return "", "it printed nothing"
	}
	return line, ""
}

// capWriter keeps the first max bytes written to it.
type capWriter struct {
	b   []byte
	max int
}

func (w *capWriter) Write(p []byte) (int, error) {
	if room := w.max - len(w.b); room > 0 {
		w.b = append(w.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
