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

// Hook stages: when a hook runs.
const (
	StagePreTool      = "pre_tool"
	StagePostTool     = "post_tool"
	StageUserPrompt   = "user_prompt"
	StageSessionStart = "session_start"
	StageStop         = "stop"
	StagePreCompact   = "pre_compact"
	StageNotification = "notification"
)

// Stages lists the hook stages in the order a session meets them.
var Stages = []string{StageSessionStart, StageUserPrompt, StagePreTool, StagePostTool, StageNotification, StagePreCompact, StageStop}

// defaultHookTimeout bounds a hook that sets no timeout.
const defaultHookTimeout = 30 * time.Second

// maxHookText bounds a note or context a hook adds to what the model reads.
const maxHookText = 8 << 10

// Hook is a command run at one stage of a session. It reads what happens
// as JSON on stdin and may answer on stdout with {"decision":
// "allow"|"deny"|"pass", "reason": "...", "note"/"context": "..."}; empty
// output with exit status 0 means pass. Where a hook gates something
// (pre_tool, user_prompt, stop) one that fails, times out or answers
// nonsense decides the safe way: a broken guard must not let calls or
// prompts through, nor keep the model going.
type Hook struct {
	// Stage is when it runs ("" is pre_tool).
	Stage string
	// Tool selects the tools the hook watches (the rules' glob syntax);
	// pre_tool and post_tool only.
	Tool    approval.ToolPattern
	Command []string
	Timeout time.Duration
	// Origin says where the hook was declared, for messages.
	Origin string
}

func (h Hook) stage() string {
	if h.Stage == "" {
		return StagePreTool
	}
	return h.Stage
}

// hookInput is what a hook reads on stdin: the fields of its stage.
type hookInput struct {
	Event      string          `json:"event"`
	Session    string          `json:"session_id,omitempty"`
	CallID     string          `json:"call_id,omitempty"`
	Tool       string          `json:"tool,omitempty"`
	Args       json.RawMessage `json:"args,omitempty"`
	Capability string          `json:"capability,omitempty"`
	Summary    string          `json:"summary,omitempty"`
	Workspace  string          `json:"workspace"`
	Tainted    *bool           `json:"tainted,omitempty"`
	// post_tool: how the call ended and what the model reads of it.
	Status string `json:"status,omitempty"`
	Result string `json:"result,omitempty"`
	// user_prompt.
	Prompt string `json:"prompt,omitempty"`
	// session_start: "new" or "resume"; pre_compact: "manual" or "auto".
	Source  string `json:"source,omitempty"`
	Trigger string `json:"trigger,omitempty"`
	Model   string `json:"model,omitempty"`
	Focus   string `json:"focus,omitempty"`
	// pre_compact: how many messages the summary replaces.
	Messages int `json:"messages,omitempty"`
	// stop: the model's last answer and how often a stop hook already
	// made it go on in this turn.
	Answer    string `json:"answer,omitempty"`
	Continued *int   `json:"continued,omitempty"`
	// notification.
	Kind    string `json:"kind,omitempty"`
	Message string `json:"message,omitempty"`
}

type hookOutput struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	Note     string `json:"note"`
	Context  string `json:"context"`
}

// added is the text the answer adds to what the model reads, cleaned.
func (o hookOutput) added() string {
	var parts []string
	for _, s := range []string{o.Note, o.Context} {
		if s = strings.TrimSpace(termtext.Strip(s)); s != "" {
			parts = append(parts, s)
		}
	}
	return tools.Redact(tools.CutUTF8(strings.Join(parts, "\n"), maxHookText))
}

// hookRun is what one run of a hook gave: its answer, or why it failed.
type hookRun struct {
	out  hookOutput
	fail string // "" when it answered (or said nothing)
}

func (r hookRun) decision() string {
	if r.fail != "" {
		return "failed"
	}
	if r.out.Decision == "" {
		return "pass"
	}
	return r.out.Decision
}

func (r hookRun) reason() string {
	if r.fail != "" {
		return r.fail
	}
	return tools.Redact(termtext.Strip(r.out.Reason))
}

// hookName names a hook in messages: its command and where it came from.
func hookName(h Hook) string {
	name := strings.Join(h.Command, " ")
	if h.Origin != "" {
		name += " (" + h.Origin + ")"
	}
	return name
}

// execHook runs h with in on stdin and reads its answer.
func execHook(ctx context.Context, h Hook, in hookInput) hookRun {
	name := fmt.Sprintf("The %s hook %q", h.stage(), hookName(h))
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = defaultHookTimeout
	}
	in.Event = h.stage()
	stdin, _ := json.Marshal(in)
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.Command(h.Command[0], h.Command[1:]...)
	cmd.Dir = in.Workspace
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Env = proc.ScrubEnv(os.Environ())
	cmd.WaitDelay = 2 * time.Second
	// An answer is a short JSON object: more output than this is not one.
	stdout := &capped{max: 64 << 10}
	stderr := &capped{max: 64 << 10, keepTail: true}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := proc.RunContained(hctx, cmd)
	fail := func(format string, args ...any) hookRun {
		return hookRun{fail: tools.Redact(name + " " + fmt.Sprintf(format, args...))}
	}
	switch {
	case hctx.Err() != nil && ctx.Err() == nil:
		return fail("timed out after %s", timeout)
	case ctx.Err() != nil:
		return fail("was stopped: %v", ctx.Err())
	case err != nil:
		var ee *exec.ExitError
		tail := strings.TrimSpace(termtext.Strip(lastBytes(string(stderr.buf), 400)))
		if errors.As(err, &ee) {
			return fail("failed (exit status %d: %s)", ee.ExitCode(), tail)
		}
		return fail("could not run (%v)", err)
	}
	if stdout.over {
		return fail("printed more than an answer (over 64 KB)")
	}
	out := bytes.TrimSpace(stdout.buf)
	if len(out) == 0 {
		return hookRun{}
	}
	var ho hookOutput
	if err := json.Unmarshal(out, &ho); err != nil {
		return fail("printed something that is not a decision (%v)", err)
	}
	switch ho.Decision {
	case "allow", "deny", "pass", "":
		return hookRun{out: ho}
	}
	return fail("answered %q; want allow, deny or pass", ho.Decision)
}

// stageHooks returns the hooks of stage, those of a tool stage that
// watch tool.
func stageHooks(hooks []Hook, stage, tool string) []Hook {
	var out []Hook
	for _, h := range hooks {
		if h.stage() != stage {
			continue
		}
		if (stage == StagePreTool || stage == StagePostTool) && !h.Tool.Match(tool) {
			continue
		}
		out = append(out, h)
	}
	return out
}

// matchingHooks returns the pre_tool hooks that watch tool: such a call is
// gated.
func matchingHooks(hooks []Hook, tool string) []Hook {
	return stageHooks(hooks, StagePreTool, tool)
}

// runHooks runs the pre_tool hooks matching req in order. The first allow
// or deny decides; it reports ok=false when every hook passed (or none
// matched).
func (a *Agent) runHooks(ctx context.Context, hooks []Hook, req approval.Request) (approval.Verdict, bool) {
	tainted := req.Taint != nil
	for _, h := range matchingHooks(hooks, req.Tool) {
		r := execHook(ctx, h, hookInput{CallID: req.CallID, Tool: req.Tool, Args: req.Args, Capability: req.Capability, Summary: req.Summary, Workspace: a.opts.Workspace, Tainted: &tainted})
		a.auditHook(h, r, req.CallID, req.Args)
		by := "hook: " + strings.Join(h.Command, " ")
		// The reason reaches the model and the audit log, redacted: a
		// hook's output may hold a credential like any command's.
		switch r.decision() {
		case "failed":
			return approval.Verdict{Outcome: approval.OutcomeDeny, By: by, Why: r.fail + ", so the call was denied."}, true
		case "allow":
			return approval.Verdict{Outcome: approval.OutcomeAllow, By: by, Why: r.reason()}, true
		case "deny":
			why := r.reason()
			if why == "" {
				why = "A pre-tool hook denied this call."
			}
			return approval.Verdict{Outcome: approval.OutcomeDeny, By: by, Why: why}, true
		}
	}
	return approval.Verdict{}, false
}

// auditHook records one hook run in the audit log.
func (a *Agent) auditHook(h Hook, r hookRun, callID string, args json.RawMessage) {
	if a.opts.Audit == nil {
		return
	}
	a.mu.Lock()
	session := a.session.Info().ID
	a.mu.Unlock()
	e := approval.AuditEntry{
		Time: a.opts.Now().UTC(), CallID: callID, Tool: "hook:" + h.stage(), ArgsSHA: approval.ArgsDigest(args),
		Summary: termtext.Strip(hookName(h)), Decision: r.decision(), By: "hook: " + strings.Join(h.Command, " "),
		Reason: r.reason(), Session: session, Workspace: a.opts.Workspace,
	}
	if err := a.opts.Audit.Append(e); err != nil {
		a.opts.Logf("audit: %v", err)
	}
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
