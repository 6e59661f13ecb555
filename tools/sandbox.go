package tools

import (
	"context"
	"os/exec"
	"strings"
)

// Confinement says how one shell command runs. The approval policy picks
// it; the agent passes it to Execute with WithConfinement.
type Confinement struct {
	// Sandboxed runs the command in the OS sandbox.
	Sandboxed bool
	// Network lets a sandboxed command use the network.
	Network bool
}

type confinementKey struct{}

// WithConfinement returns ctx carrying how the call's command runs.
func WithConfinement(ctx context.Context, c Confinement) context.Context {
	return context.WithValue(ctx, confinementKey{}, c)
}

// ConfinementFrom returns the confinement ctx carries, if any.
func ConfinementFrom(ctx context.Context) (Confinement, bool) {
	c, ok := ctx.Value(confinementKey{}).(Confinement)
	return c, ok
}

// Sandbox confines shell commands; package sandbox implements it.
type Sandbox interface {
	// Confine rewrites cmd (bash -c in the workspace) to run confined. The
	// returned finish is called once the command ended, with its standard
	// error; it cleans up and returns the confinement line for the result
	// and a permission_denied note ("" when nothing looks blocked).
	Confine(cmd *exec.Cmd, network bool) (finish func(stderr string) (confinement, note string), err error)
}

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
	c, ok := ConfinementFrom(ctx)
	if !ok || !c.Sandboxed {
		return nil, nil
	}
	if s.opts.Sandbox == nil {
		return nil, Errorf(KindUnsupported, "Tell the user the sandbox is missing; do not retry.", "the call was approved to run sandboxed, but no sandbox is set up")
	}
	finish, err := s.opts.Sandbox.Confine(cmd, c.Network)
	if err != nil {
		return nil, Errorf(KindUnsupported, "Tell the user the sandbox could not start; do not retry blindly.", "the sandbox could not confine the command: %v", err)
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
func (r *confinedRun) close() {
	if r != nil && !r.done {
		r.done = true
		r.finish("")
	}
}
