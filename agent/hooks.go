package agent

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

	"myclaw/approval"
	"myclaw/tools"
	"myclaw/tools/proc"
	"myclaw/tools/termtext"
)

// Hook is a command run before matching tool calls. It reads the call as
// JSON on stdin and answers on stdout with {"decision": "allow"|"deny"|"pass",
// "reason": "..."}; empty output with exit status 0 means pass. A hook that
// fails, times out or answers nonsense denies: a broken guard must not let
// calls through.
type Hook struct {
	// Tool selects the tools the hook watches (the rules' glob syntax).
	Tool    approval.ToolPattern
	Command []string
	Timeout time.Duration
	// Origin says where the hook was declared, for messages.
	Origin string
}

// hookInput is what a hook reads on stdin.
type hookInput struct {
	Event      string          `json:"event"`
	CallID     string          `json:"call_id"`
	Tool       string          `json:"tool"`
	Args       json.RawMessage `json:"args"`
	Capability string          `json:"capability,omitempty"`
	Summary    string          `json:"summary,omitempty"`
	Workspace  string          `json:"workspace"`
	Tainted    bool            `json:"tainted"`
}

type hookOutput struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

func matchingHooks(hooks []Hook, tool string) []Hook {
	var out []Hook
	for _, h := range hooks {
		if h.Tool.Match(tool) {
			out = append(out, h)
		}
	}
	return out
}

// runHooks runs the hooks matching req in order. The first allow or deny
// decides; it reports ok=false when every hook passed (or none matched).
func runHooks(ctx context.Context, hooks []Hook, req approval.Request, workspace string) (approval.Verdict, bool) {
	for _, h := range matchingHooks(hooks, req.Tool) {
		v, decided := runHook(ctx, h, req, workspace)
		if decided {
			// The reason reaches the model and the audit log; a hook's
			// output may hold a credential like any command's.
			v.Why = tools.Redact(v.Why)
			return v, true
		}
	}
	return approval.Verdict{}, false
}

func runHook(ctx context.Context, h Hook, req approval.Request, workspace string) (approval.Verdict, bool) {
	name := strings.Join(h.Command, " ")
	if h.Origin != "" {
		name += " (" + h.Origin + ")"
	}
	by := "hook: " + strings.Join(h.Command, " ")
	deny := func(why string) (approval.Verdict, bool) {
		return approval.Verdict{Outcome: approval.OutcomeDeny, By: by, Why: why}, true
	}
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	in, _ := json.Marshal(hookInput{Event: "pre_tool", CallID: req.CallID, Tool: req.Tool, Args: req.Args, Capability: req.Capability, Summary: req.Summary, Workspace: workspace, Tainted: req.Taint != nil})
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.Command(h.Command[0], h.Command[1:]...)
	cmd.Dir = workspace
	cmd.Stdin = bytes.NewReader(in)
	cmd.Env = proc.ScrubEnv(os.Environ())
	cmd.WaitDelay = 2 * time.Second
	// A decision is a short JSON object: more output than this is not one.
	stdout := &capped{max: 64 << 10}
	stderr := &capped{max: 64 << 10, keepTail: true}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := proc.RunContained(hctx, cmd)
	switch {
	case hctx.Err() != nil && ctx.Err() == nil:
		return deny(fmt.Sprintf("The pre-tool hook %q timed out after %s, so the call was denied.", name, timeout))
	case err != nil:
		var ee *exec.ExitError
		tail := strings.TrimSpace(termtext.Strip(lastBytes(string(stderr.buf), 400)))
		if errors.As(err, &ee) {
			return deny(fmt.Sprintf("The pre-tool hook %q failed (exit status %d: %s), so the call was denied.", name, ee.ExitCode(), tail))
		}
		return deny(fmt.Sprintf("The pre-tool hook %q could not run (%v), so the call was denied.", name, err))
	}
	if stdout.over {
		return deny(fmt.Sprintf("The pre-tool hook %q printed more than a decision (over 64 KB), so the call was denied.", name))
	}
	out := bytes.TrimSpace(stdout.buf)
	if len(out) == 0 {
		return approval.Verdict{}, false
	}
	var ho hookOutput
	if err := json.Unmarshal(out, &ho); err != nil {
		return deny(fmt.Sprintf("The pre-tool hook %q printed something that is not a decision (%v), so the call was denied.", name, err))
	}
	reason := termtext.Strip(ho.Reason)
	switch ho.Decision {
	case "allow":
		return approval.Verdict{Outcome: approval.OutcomeAllow, By: by, Why: reason}, true
	case "deny":
		if reason == "" {
			reason = "A pre-tool hook denied this call."
		}
		return approval.Verdict{Outcome: approval.OutcomeDeny, By: by, Why: reason}, true
	case "pass", "":
		return approval.Verdict{}, false
	}
	return deny(fmt.Sprintf("The pre-tool hook %q answered %q; want allow, deny or pass. The call was denied.", name, ho.Decision))
}

// capped keeps at most max bytes of what is written to it: the head, or
// with keepTail the tail. It never fails, so the child is never blocked.
type capped struct {
	buf      []byte
	max      int
	keepTail bool
	over     bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.buf = append(c.buf, p...)
	if len(c.buf) > c.max {
		c.over = true
		if c.keepTail {
			c.buf = append(c.buf[:0], c.buf[len(c.buf)-c.max:]...)
		} else {
			c.buf = c.buf[:c.max]
		}
	}
	return len(p), nil
}

func lastBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
