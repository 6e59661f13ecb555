package approval

import (
	"fmt"
	"path"
	"strings"
	"sync"

	"myclaw/tools"
)

// Policy decides, for each call, whether it runs, asks or is denied, from
// the autonomy level, the config rules and the grants made this session.
//
// Precedence, first that applies:
//  1. a deny rule that hits the call denies it;
//  2. readonly denies every side-effecting call; plan mode denies every
//     one but a shell command, which runs read-only confined (plan.go);
//  3. read-only tools are allowed (ask rules do not apply to them);
//  4. an ask rule that hits the call asks;
//  5. allow rules, session grants and hint grants (for a tool whose
//     read-only claim comes from a server the user trusts for such hints)
//     allow (they are the user's explicit choice, so they hold after
//     untrusted content too);
//  6. the level decides: ask asks, auto-edit allows what it can vouch for,
//     full allows.
//
// A Policy is safe for concurrent use. Evaluate never blocks on anything
// but a short internal lock and does no I/O.
type Policy struct {
	rules []compiledRule // fixed after NewPolicy

	mu      sync.RWMutex
	level   Level
	grants  []compiledRule
	hosts   map[string]bool // hosts fetched this session, lower case
	sandbox Sandbox
	hints   map[string]HintGrant // by MCP server name
	// planFrom is the level plan mode was entered from.
	planFrom Level
}

// Sandbox is what the policy knows of the shell sandbox.
type Sandbox struct {
	// Active is true when the sandbox passed its check here.
	Active bool
	// Why says why it is not active ("off in the config", "no Landlock").
	Why string
	// Off is the person's explicit choice to run commands unsandboxed
	// (--sandbox off, [shell.sandbox] enabled = false). Without it no level
	// runs a command unconfined without asking: full needs the sandbox.
	Off bool
	// Network gives sandboxed commands network by default.
	Network bool
	// HostProxy says a confined command without network can still reach
	// hosts one at a time through myclaw's proxy, each decided as a
	// NetworkTool call (Linux).
	HostProxy bool
}

// SetSandbox tells the policy whether shell commands can run sandboxed.
// Until it is called they cannot.
func (p *Policy) SetSandbox(s Sandbox) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sandbox = s
}

// confinement is how a shell call runs at the current level, before any
// rule or decision grants network. Called with p.mu held.
func (p *Policy) confinement() Confinement {
	sb := p.sandbox
	switch {
	case !sb.Active:
		why := sb.Why
		if why == "" {
			why = "no sandbox is set up"
		}
		return Confinement{Why: why}
	}
	return Confinement{Sandboxed: true, Network: sb.Network, HostProxy: sb.HostProxy && !sb.Network}
}

// NewPolicy builds a policy. An empty level means Ask; rules are checked
// with ValidateRules.
func NewPolicy(level Level, rules []Rule) (*Policy, error) {
	if level == "" {
		level = Ask
	}
	if _, err := ParseLevel(string(level)); err != nil && level != Plan {
		return nil, err
	}
	if err := ValidateRules(rules); err != nil {
		return nil, err
	}
	p := &Policy{level: level, hosts: map[string]bool{}}
	for _, r := range rules {
		cr, _ := compileRule(r) // checked by ValidateRules
		p.rules = append(p.rules, cr)
	}
	return p, nil
}

// Level returns the current autonomy level.
func (p *Policy) Level() Level {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.level
}

// SetLevel switches the autonomy level; the next Evaluate uses it. A level
// that ParseLevel would refuse is treated as Ask.
func (p *Policy) SetLevel(l Level) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if l == Plan && p.level != Plan {
		p.planFrom = p.level
	}
	p.level = l
}

// Visible decides whether a tool is in the catalog: readonly hides
// side-effecting tools, and a deny rule without Match hides the tool it
// names. When hidden it says why.
func (p *Policy) Visible(m tools.Meta) (bool, string) {
	for _, r := range p.rules {
		if Outcome(r.Decision) == OutcomeDeny && r.Match == "" && r.tool.match(m.Name) {
			return false, "denied by rule: " + r.Brief()
		}
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	switch {
	case m.PlanMode && p.level != Plan:
		return false, "offered only in plan mode"
	case p.level == ReadOnly && m.HasSideEffects():
		return false, "readonly hides side-effecting tools"
	case p.level == Plan && m.HasSideEffects():
		return p.planVisible(m.Shell)
	}
	return true, ""
}

// Evaluate decides a call. req carries Meta, Capability, Command (for
// shell_run), Taint and Args; Args is read for shell_run's "command".
func (p *Policy) Evaluate(req Request) Verdict {
	c := newCall(req)
	p.mu.RLock()
	defer p.mu.RUnlock()
	v := p.evaluate(req, c)
	if c.shell {
		conf := p.confinement()
		if v.Confinement != nil {
			conf = *v.Confinement
		}
		v.Confinement = &conf
	}
	return v
}

func (p *Policy) evaluate(req Request, c call) Verdict {
	for _, r := range p.rules {
		if Outcome(r.Decision) == OutcomeDeny && c.hits(r) {
			return Verdict{Outcome: OutcomeDeny, By: "rule: " + r.Brief(), Why: "a rule in the config denies " + c.what(r)}
		}
	}
	if p.level == ReadOnly && req.Meta.HasSideEffects() {
		return Verdict{Outcome: OutcomeDeny, By: "level: readonly", Why: "readonly allows no side effects, and " + c.tool + " has them"}
	}
	if p.level == Plan && req.Meta.HasSideEffects() {
		return p.evaluatePlan(req, c)
	}
	// A deny or ask pattern cannot be checked against a command the line
	// does not show: it might be hit, so a person decides, whatever the
	// level and the allow rules.
	for _, r := range p.rules {
		if Outcome(r.Decision) != OutcomeAllow && r.Match != "" && c.opaque != "" && r.tool.match(c.tool) {
			return Verdict{Outcome: OutcomeAsk, By: "rule: " + r.Brief(),
				Why: fmt.Sprintf("the rule %q cannot be checked against this line: %s", r.Match, c.opaque)}
		}
	}
	if req.Meta.AlwaysAsk {
		return Verdict{Outcome: OutcomeAsk, By: "tool", Why: c.tool + " requires a person's approval for every call"}
	}
	if req.Meta.ReadOnly {
		return Verdict{Outcome: OutcomeAllow, By: "read-only tool"}
	}
	for _, r := range p.rules {
		if Outcome(r.Decision) == OutcomeAsk && c.hits(r) {
			return Verdict{Outcome: OutcomeAsk, By: "rule: " + r.Brief(), Why: "a rule in the config asks before " + c.what(r)}
		}
	}
	if why := sensitiveTarget(c.cap); why != "" && p.level != Full && !c.allowedByPattern(p.rules) {
		// A grant for the tool was given for another file; only a rule
		// written for this path vouches for it.
		return Verdict{Outcome: OutcomeAsk, By: "level: " + string(p.level),
			Why: "writes " + why + ": myclaw asks for it at every level below full (a rule matching this path can allow it)"}
	}
	if what := trustedChange(req.Command); c.shell && what != "" && p.level != Full {
		// No command pattern names the file it writes: no rule or grant
		// vouches for such a line.
		return Verdict{Outcome: OutcomeAsk, By: "level: " + string(p.level),
			Why: "writes " + what + ": myclaw asks for it at every level below full"}
	}
	conf := p.confinement()
	grants := p.grants
	if c.shell && shellRisk(req.Command) == tools.RiskHigh {
		// A grant was made for a prefix ("git branch *") on a harmless
		// line; it does not vouch for the destructive one (git branch -D).
		grants = nil
	}
	if editMerge(req) {
		// Whatever grant was made for the tool, an edit agent's merge is
		// not one it vouches for (Grantable).
		grants = nil
	}
	by, whyNot, network := c.allowedBy(p.rules, grants, conf.Sandboxed)
	if by != "" {
		if network && conf.Sandboxed {
			conf.Network = true
		}
		return Verdict{Outcome: OutcomeAllow, By: by, Confinement: &conf}
	}
	if m := req.Meta; m.HintServer != "" {
		ok, why := p.hintCovers(m)
		if ok {
			return Verdict{Outcome: OutcomeAllow, By: "hint grant: the read-only hints of " + m.HintServer}
		}
		if whyNot == "" {
			whyNot = m.Name + " claims to be read-only, but " + why
		}
	}
	switch p.level {
	case Full:
		if where := drawnFrom(c, req.Taint, req.Earlier); c.shell && where != "" {
			return Verdict{Outcome: OutcomeAsk, By: "level: full",
				Why: where + ": full still asks for a command that may come from instructions planted there"}
		}
		if c.shell && !conf.Sandboxed && !p.sandbox.Off {
			return Verdict{Outcome: OutcomeAsk, By: "level: full", Why: "full runs commands only sandboxed, and the sandbox is not active: " +
				conf.Why + " (--sandbox off runs them unsandboxed)"}
		}
		return Verdict{Outcome: OutcomeAllow, By: "level: full"}
	case AutoEdit:
		why := p.autoEditAsks(req, c, conf)
		if why == "" {
			return Verdict{Outcome: OutcomeAllow, By: "level: auto-edit"}
		}
		if whyNot != "" && req.Taint == nil {
			why = whyNot // more to the point than "no faithful preview"
		}
		return Verdict{Outcome: OutcomeAsk, By: "level: auto-edit", Why: why}
	}
	why := "the autonomy level is ask: every call with side effects asks first"
	if whyNot != "" {
		why = whyNot
	}
	return Verdict{Outcome: OutcomeAsk, By: "level: ask", Why: why}
}

// autoEditAsks returns why auto-edit cannot approve the call on its own, or
// "" when it can: the call has a faithful dry run, risk below high, and
// stays in the workspace. After untrusted content it also asks for shell
// commands, hosts not yet seen and memory writes, which are how planted
// instructions would act or leak data. Called with p.mu held.
func (p *Policy) autoEditAsks(req Request, c call, conf Confinement) string {
	if c.shell && conf.Sandboxed {
		return autoEditShell(req, c, conf)
	}
	if req.Taint != nil {
		from := req.Taint.Source
		if from == "" {
			from = "an unnamed source"
		}
		host := c.cap.Target
		switch {
		case c.shell:
			return "auto-edit asks for shell commands after untrusted content from " + from
		case c.cap.Is("net", "http") && !p.hosts[normHost(host)]:
			return fmt.Sprintf("auto-edit asks before reaching %s, a host not yet seen this session, after untrusted content from %s", host, from)
		case c.cap.Is("memory", "write"):
			return "auto-edit asks before storing a memory after untrusted content from " + from
		}
	}
	switch {
	case req.Meta.Persists:
		return "auto-edit asks before " + c.tool + ": what it stores is replayed into every later session"
	case !req.Meta.SupportsDryRun:
		return "auto-edit asks for " + c.tool + " because it has no faithful preview"
	case req.Meta.EffectiveRisk() == tools.RiskHigh:
		return "auto-edit asks for high-risk calls, and " + c.tool + " is one"
	case c.capability == "":
		return "auto-edit asks for " + c.tool + " because the call declares no capability, so where it acts is unknown"
	}
	if c.cap.Kind == "fs" && !insideWorkspace(c.cap.Target) {
		return "auto-edit asks for calls outside the workspace (" + c.capability + ")"
	}
	return ""
}

// sensitiveTarget says, for a file write, what its target is when later
// sessions trust it (tools.TrustedFile: instruction files, skills, custom
// commands, .myclaw.toml, anything under .git), or "".
func sensitiveTarget(c tools.Capability) string {
	if c.Kind != "fs" || c.Action == "read" || c.Target == "" {
		return ""
	}
	return tools.TrustedFile(c.Target)
}

// insideWorkspace reports whether a path from an fs: capability stays in
// the workspace: file tools report paths relative to its root, so anything
// absolute, home-relative or climbing out is treated as outside.
func insideWorkspace(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.ContainsRune(p, 0) {
		return false
	}
	clean := path.Clean(strings.ReplaceAll(p, `\`, "/"))
	return clean != ".." && !strings.HasPrefix(clean, "../")
}

func normHost(h string) string { return strings.TrimSuffix(strings.ToLower(h), ".") }
