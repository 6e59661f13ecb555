package builtin

import (
	"context"
	"myclaw/tools"
	"os/exec"
	"strings"
)

// confinedRun is one command under the sandbox. A nil *confinedRun is an
// unconfined command: its methods do nothing.
type confinedRun struct {
	finish func(string) (string, string)
	done   bool
}

// confine applies the call's confinement to cmd. It returns nil when the
// command runs unconfined. A call meant to run confined never runs
// without its sandbox.
func (s *shellRun) confine(ctx context.Context, cmd *exec.Cmd) (*confinedRun, error) {
	c, ok := tools.ConfinementFrom(ctx)
	if !ok || !c.Sandboxed && !c.ReadOnly {
		if s.opts.OnlyConfined {
			return nil, tools.Errorf(tools.KindPermissionDenied, "Do the change with the file tools, or tell the user it needs a command outside the sandbox.", "this shell runs commands only in the sandbox (an edit agent's layer), and this call was not confined")
		}
		return nil, nil
	}
	if s.opts.Sandbox == nil {
		return nil, tools.Errorf(tools.KindUnsupported, "Tell the user the sandbox is missing; do not retry.", "the call was approved to run sandboxed, but no sandbox is set up")
	}
	var finish func(string) (string, string)
	var err error
	ps, proxied := s.opts.Sandbox.(tools.ProxiedSandbox)
	ro, readOnly := s.opts.Sandbox.(tools.ReadOnlySandbox)
	switch {
	case c.ReadOnly && !readOnly:
		return nil, tools.Errorf(tools.KindUnsupported, "Plan the change instead of running commands; do not retry.", "plan mode runs commands read-only, and this sandbox cannot")
	case c.ReadOnly:
		finish, err = ro.ConfineReadOnly(cmd)
	case tools.HostGateFrom(ctx) != nil && proxied && !c.Network:
		finish, err = ps.ConfineProxied(cmd, tools.HostGateFrom(ctx))
	default:
		finish, err = s.opts.Sandbox.Confine(cmd, c.Network)
	}
	if err != nil {
		return nil, tools.Errorf(tools.KindUnsupported, "Tell the user the sandbox could not start; do not retry blindly.", "the sandbox could not confine the command: %v", err)
	}
	return &confinedRun{finish: finish}, nil
}

// report records the sandbox's word on the result: the confinement
// always, a denial first among the notes and briefly on the summary.
func (r *confinedRun) report(out *shellOutput, notes []string, summary string, stderr *shellCapture) ([]string, string) {
	if r == nil || r.done {
		return notes, summary
	}
	r.done = true
	conf, note := r.finish(string(stderr.head) + string(stderr.tail.Bytes()))
	out.Sandbox = conf
	if note == "" {
		return notes, summary
	}
	brief, _, _ := strings.Cut(strings.TrimPrefix(note, "permission_denied: "), " (")
	brief, _, _ = strings.Cut(brief, ";")
	return append([]string{note}, notes...), summary + " · " + brief
}

// close cleans up after a command that ended without a report.
func (r *confinedRun) close() { r.closeNote() }

// closeNote is close, returning what the sandbox undid ("" if nothing):
// a background job's end is told, not only cleaned up.
func (r *confinedRun) closeNote() string {
	if r == nil || r.done {
		return ""
	}
	r.done = true
	_, note := r.finish("")
	return note
}
