package tools

import (
	"context"
	"os/exec"
)

// Confinement says how one shell command runs. The approval policy picks
// it; the agent passes it to Execute with WithConfinement.
type Confinement struct {
	// Sandboxed runs the command in the OS sandbox.
	Sandboxed bool
	// Network lets a sandboxed command use the network.
	Network bool
	// ReadOnly runs a sandboxed command with the workspace read-only and
	// without network (plan mode): a write fails, it is not asked about.
	ReadOnly bool
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

// HostGate decides whether a confined command may reach hostport
// ("host:port") through myclaw's proxy: nil allows, an error says why not.
// It may wait for a person, and honours ctx.
type HostGate = func(ctx context.Context, hostport string) error

type hostGateKey struct{}

// WithHostGate returns ctx carrying the gate for the call's hosts: a
// confined command without network may then reach the hosts it allows.
func WithHostGate(ctx context.Context, g HostGate) context.Context {
	return context.WithValue(ctx, hostGateKey{}, g)
}

// HostGateFrom returns the gate ctx carries, or nil.
func HostGateFrom(ctx context.Context) HostGate {
	g, _ := ctx.Value(hostGateKey{}).(HostGate)
	return g
}

// ProxiedSandbox is a Sandbox that can give a command without network a
// way out one host at a time, each put to a HostGate (Linux).
type ProxiedSandbox interface {
	ConfineProxied(cmd *exec.Cmd, gate HostGate) (finish func(stderr string) (confinement, note string), err error)
}

// ReadOnlySandbox is a Sandbox that can run a command with nothing
// writable but its own temp dir (and layers over the caches) and without
// network. A sandbox without it cannot run plan mode's commands.
type ReadOnlySandbox interface {
	ConfineReadOnly(cmd *exec.Cmd) (finish func(stderr string) (confinement, note string), err error)
}
