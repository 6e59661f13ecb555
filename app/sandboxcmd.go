package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"myclaw/approval"
	"myclaw/config"
	"myclaw/sandbox"
	"myclaw/tools"
)

// buildSandbox makes the shell sandbox from [shell.sandbox]; a.sandbox
// stays nil when it is off in the config. It is not active until
// checkSandbox's self-test passed.
func (a *app) buildSandbox() {
	sc := a.cfg.Shell.Sandbox
	if off, how := a.sandboxOff(); off {
		a.setSandboxState(approval.Sandbox{Off: true, Why: "it is off (" + how + ")"})
		return
	}
	// Only caches that exist are bound: myclaw makes none in the home.
	writable := sc.Writable
	if writable == nil {
		writable = sandbox.DefaultWritable()
	}
	cfgDir := filepath.Dir(config.DefaultPath())
	protected := []string{a.stateDir, cfgDir}
	if a.cfg.Path != "" && filepath.Dir(a.cfg.Path) != cfgDir {
		protected = append(protected, a.cfg.Path)
	}
	// Credential stores and myclaw's own state and config (OAuth logins,
	// transcripts) are unreadable to commands.
	hidden := append(append(sandbox.DefaultHidden(), protected...), sc.Hidden...)
	a.sandbox = sandbox.New(sandbox.Options{Workspace: a.workspace.Dir(), Writable: writable, Protected: protected,
		Hidden: hidden, Visible: sc.Visible, LayerDir: filepath.Join(a.stateDir, "sandbox-layers", layerName(a.workspace.Dir())),
		VerdictDir: filepath.Join(a.stateDir, "sandbox-verdicts")})
	a.setSandboxState(approval.Sandbox{Why: "its self-test is still running"})
}

// sandboxOff reports whether the person chose to run shell commands
// unsandboxed, and how they said so: --sandbox wins over the config.
func (a *app) sandboxOff() (bool, string) {
	switch {
	case a.opts.Sandbox == "off":
		return true, "--sandbox off"
	case a.opts.Sandbox == "" && !a.cfg.Shell.Sandbox.On():
		return true, "[shell.sandbox] enabled = false"
	}
	return false, ""
}

// fullWarning is what a headless run says at start when autonomy full does
// not run commands the usual way (sandboxed, without asking), or "".
func (a *app) fullWarning() string {
	if a.policy == nil || a.policy.Level() != approval.Full {
		return ""
	}
	if off, how := a.sandboxOff(); off {
		return "autonomy full, unsandboxed: every call runs without asking, and shell commands run with your full rights (" + how + ")"
	}
	switch st := a.sandboxStatus(); {
	case !st.Active:
		return "autonomy full: the sandbox is not active (" + st.Why + "), so shell commands are denied; --sandbox off runs them unsandboxed"
	}
	return ""
}

// layerName names a workspace's cache layers: its folder name and a hash
// of its path.
func layerName(ws string) string {
	sum := sha256.Sum256([]byte(ws))
	return filepath.Base(ws) + "-" + hex.EncodeToString(sum[:6])
}

// checkSandbox runs the self-test once (or takes its cached pass) and
// tells the policy (when built) the outcome. Until then shell commands ask.
func (a *app) checkSandbox(ctx context.Context) {
	if a.sandbox == nil {
		return
	}
	a.applySandboxCheck(a.sandbox.Check(ctx))
}

// recheckSandbox runs the real self-test again, never from the cache:
// /sandbox and `myclaw sandbox-check` report what holds now.
func (a *app) recheckSandbox(ctx context.Context) {
	if a.sandbox == nil {
		return
	}
	a.applySandboxCheck(a.sandbox.Recheck(ctx))
}

func (a *app) applySandboxCheck(st sandbox.Status) {
	if !st.Active {
		a.logf("sandbox: not active: %s", st.Why)
	}
	_, proxied := any(a.sandbox).(tools.ProxiedSandbox)
	a.setSandboxState(approval.Sandbox{Active: st.Active, Why: st.Why, Network: a.cfg.Shell.Sandbox.Network, HostProxy: proxied})
}

func (a *app) setSandboxState(s approval.Sandbox) {
	a.sandboxMu.Lock()
	defer a.sandboxMu.Unlock()
	a.sandboxState = s
	if a.policy != nil {
		a.policy.SetSandbox(s)
	}
}

func (a *app) sandboxStatus() approval.Sandbox {
	a.sandboxMu.Lock()
	defer a.sandboxMu.Unlock()
	return a.sandboxState
}

// freshSandboxReport is /sandbox: the self-test run again, then the
// report, saying when the session started on a cached verdict.
func (a *app) freshSandboxReport(ctx context.Context) string {
	var before string
	if a.sandbox != nil {
		if st := a.sandbox.Status(); st.Cached {
			before = fmt.Sprintf("This session started on a cached verdict (self-test of %s); the self-test was run again now.\n", st.CheckedAt.Local().Format("2006-01-02 15:04:05"))
		}
	}
	a.recheckSandbox(ctx)
	return before + a.sandboxReport()
}

// sandboxReport is what /sandbox and `myclaw sandbox-check` print.
func (a *app) sandboxReport() string {
	var b strings.Builder
	st := a.sandboxStatus()
	switch {
	case st.Off:
		fmt.Fprintf(&b, "Sandbox: %s.\nShell commands run with your full rights: under ask and auto-edit they ask first; under full they run without asking.\n", strings.TrimSuffix(st.Why, "."))
		return b.String()
	case !st.Active:
		fmt.Fprintf(&b, "Sandbox: not active: %s.\nShell commands run with your full rights and ask before they run, under full too (--sandbox off lets full run them unsandboxed).\n", strings.TrimSuffix(st.Why, "."))
		return b.String()
	}
	full := a.sandbox.Status()
	fmt.Fprintf(&b, "Sandbox: active (%s; self-test passed).\n", full.Mechanism)
	if full.Cached {
		fmt.Fprintf(&b, "Verdict: from the cache, made by a self-test at %s (same kernel, boot, binary and settings).\n", full.CheckedAt.Local().Format("2006-01-02 15:04:05"))
	} else if !full.CheckedAt.IsZero() {
		fmt.Fprintf(&b, "Verdict: self-test run at %s.\n", full.CheckedAt.Local().Format("2006-01-02 15:04:05"))
	}
	fmt.Fprintf(&b, "Shell commands may write only in the workspace (%s)", a.workspace.Dir())
	if len(full.Writable) > 0 {
		b.WriteString(", a temp dir of their own ($TMPDIR) and:\n")
		for _, d := range full.Writable {
			fmt.Fprintf(&b, "  %s\n", d)
		}
	} else {
		b.WriteString(" and a temp dir of their own ($TMPDIR).\n")
	}
	fmt.Fprintf(&b, "Never writable: what decides what git runs in the workspace's repositories (config, hooks, info/, commondir and gitdir pointers; nested repositories, submodules and worktrees too), .myclaw.toml, %s.\n", strings.Join(full.Protected, ", "))
	if len(full.Writable) > 0 {
		if full.Caches == sandbox.CacheLayered {
			b.WriteString("Caches: layered: commands write to a layer of this workspace's own (in myclaw's state), never to the caches themselves.\n")
		} else {
			b.WriteString("Caches: read-only: no copy-on-write layer can be mounted here, so commands cannot write to them.\n")
		}
	}
	if len(full.Hidden) > 0 {
		b.WriteString("Hidden from commands (they read as empty; the self-test checked a hidden file is unreadable):\n")
		for _, d := range full.Hidden {
			fmt.Fprintf(&b, "  %s\n", d)
		}
	}
	switch {
	case st.Network:
		b.WriteString("Network: allowed for every sandboxed command ([shell.sandbox] network = true).\n")
	case st.HostProxy:
		fmt.Fprintf(&b, "Network: only through myclaw's proxy (HTTP_PROXY=http://127.0.0.1:%d in the command's own namespace), one host at a time: the first contact with a host asks unless a rule or grant for the tool network allows it (w once, W for the session: all network for the call).\n", sandbox.ProxyPort)
	default:
		b.WriteString("Network: none, unless a call is approved with network (w once, W for the session, or a rule with network = true).\n")
	}
	b.WriteString("Autonomy full: commands run sandboxed, without asking (only --sandbox off runs them unsandboxed).\n")
	b.WriteString("Auto-edit runs a sandboxed command without asking when what it does is low risk, or medium and undoable (rm -r, sed -i, mv inside the workspace); it asks for high risk and for a command drawn from untrusted content read this session.\n")
	if len(full.Gaps) > 0 {
		b.WriteString("Not covered:\n")
		for _, g := range full.Gaps {
			fmt.Fprintf(&b, "  - %s\n", g)
		}
	}
	return b.String()
}

// RunSandboxCheck runs the self-test from a shell: exit 0 when the sandbox
// is active here, 1 when it is not.
func RunSandboxCheck(ctx context.Context, o Options, secrets map[string]string, stdout io.Writer) error {
	a, err := newApp(o, secrets)
	if err != nil {
		return err
	}
	a.buildSandbox()
	a.recheckSandbox(ctx)
	fmt.Fprint(stdout, a.sandboxReport())
	if !a.sandboxStatus().Active {
		return ErrReported
	}
	return nil
}
