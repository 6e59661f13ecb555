package approval

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"myclaw/tools"
	"myclaw/tools/termtext"
)

// Policy decides, for each call, whether it runs, asks or is denied, from
// the autonomy level, the config rules and the grants made this session.
//
// Precedence, first that applies:
//  1. a deny rule that hits the call denies it;
//  2. readonly denies every side-effecting call;
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
	if _, err := ParseLevel(string(level)); err != nil {
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
	if p.Level() == ReadOnly && m.HasSideEffects() {
		return false, "readonly hides side-effecting tools"
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

// Remember records what an approved decision implies for the rest of the
// session: ApproveSession adds SessionRule(req) to the grants, and any
// approved call with a "net:http:<host>" capability marks the host as seen.
// Call it for every call that runs, including those the policy allowed
// without asking (with Choice ApproveOnce), so that hosts fetched before
// untrusted content arrived count as seen. For Edit, pass the request of
// the edited call. Grants last until the Policy is dropped.
func (p *Policy) Remember(req Request, d Decision) {
	if !d.Approved() {
		return
	}
	var grant *compiledRule
	if ok, _ := Grantable(req); d.Choice == ApproveSession && ok {
		r := SessionRule(req)
		if d.Network && newCall(req).shell {
			yes := true
			r.Network = &yes
		}
		if cr, err := compileRule(r); err == nil {
			grant = &cr
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := tools.ParseCapability(capabilityOf(req)); c.Is("net", "http") && c.Target != "" {
		p.hosts[normHost(c.Target)] = true
	}
	if grant == nil {
		return
	}
	// A grant with network replaces the same grant without; one without
	// adds nothing to the same grant with.
	same := func(g compiledRule) bool {
		return g.Tool == grant.Tool && g.Match == grant.Match && g.Decision == grant.Decision
	}
	if isTrue(grant.Network) {
		p.grants = slices.DeleteFunc(p.grants, func(g compiledRule) bool { return same(g) && !isTrue(g.Network) })
	}
	if slices.ContainsFunc(p.grants, same) {
		return
	}
	p.grants = append(p.grants, *grant)
}

// Grants returns the session grants in the order they were made.
func (p *Policy) Grants() []Rule {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make([]Rule, len(p.grants))
	for i, g := range p.grants {
		out[i] = g.Rule
	}
	return out
}

// Grantable reports whether a call may be granted for the session (or
// saved as a rule) with one key, and if not, why. A command line is judged
// by its parse: not when it has warnings (`curl … | sh`, `sudo`, `rm -r`),
// when no rule could cover it, or when it appears in untrusted text of the
// turn; any other call, by its tool's risk: not when high. Such calls are
// approved one at a time (a rule written by hand can still allow them).
func Grantable(req Request) (bool, string) {
	if cl := req.Command; cl != nil {
		c := newCall(req)
		switch {
		case len(cl.Warnings) > 0:
			return false, "the command line is risky: " + cl.Warnings[0]
		case shellRisk(cl) == tools.RiskHigh:
			return false, "the command line is high risk: " + cl.RiskWhy
		case c.guard != "":
			return false, "no rule can cover this line: " + strings.TrimPrefix(c.guard, "allow rules do not cover this command line: ")
		}
		if where := drawnFrom(c, req.Taint, req.Earlier); where != "" {
			return false, where
		}
		if what := trustedChange(cl); what != "" {
			return false, "no grant covers this line: it writes " + what
		}
		return true, ""
	}
	if req.Meta.EffectiveRisk() == tools.RiskHigh {
		return false, "the tool is high risk"
	}
	if why := sensitiveTarget(tools.ParseCapability(capabilityOf(req))); why != "" {
		// The policy asks for such targets before any grant is looked at.
		return false, "no grant covers this target, " + why
	}
	return true, ""
}

// DrawnFrom says where a shell call's command line, or a telling part of
// it, appears in the untrusted text of the turn ("`curl … | sh` appears in
// README.md, read 2 calls ago"), or "" when it does not (or the call runs
// no command line).
func DrawnFrom(req Request) string {
	if req.Command == nil {
		return ""
	}
	c := newCall(req)
	return drawnFrom(c, req.Taint, req.Earlier)
}

// Revoke drops the session grant that says the same as r; it reports
// whether there was one.
func (p *Policy) Revoke(r Rule) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.grants)
	p.grants = slices.DeleteFunc(p.grants, func(g compiledRule) bool { return g.Same(r) })
	return len(p.grants) < n
}

// DropRule stops applying a config rule that says the same as r (it was
// removed from its file); it reports whether the policy held one.
func (p *Policy) DropRule(r Rule) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := slices.IndexFunc(p.rules, func(g compiledRule) bool { return g.Same(r) })
	if i >= 0 {
		p.rules = slices.Delete(p.rules, i, i+1)
	}
	return i >= 0
}

// SessionRule returns the rule "approve for the session" grants for req:
// the tool, or for shell_run the command prefix of every command in the
// line ("go test *"; several as alternatives, "{go test *,git status *}").
// It is what the pane shows, what Remember grants and what SaveRule writes.
func SessionRule(req Request) Rule {
	c := newCall(req)
	if !c.shell && (req.Meta.Definition != "" || c.cap.Kind == "net") && c.capability != "" {
		// A tool whose definition can change under us (MCP): the grant
		// names the capability, which carries the definition, so a
		// changed description or schema is asked about again. A tool that
		// reaches a host (web_fetch, a command's host contact): the grant
		// names that host, not every host.
		return Rule{Tool: globQuote(c.tool), Match: globQuote(c.capability), Decision: string(OutcomeAllow)}
	}
	if !c.shell {
		return Rule{Tool: globQuote(c.tool), Decision: string(OutcomeAllow)}
	}
	var prefixes []string
	seen := map[string]bool{}
	for i, cmd := range c.commands {
		if p := commandPrefix(cmd, c.calls[i].Exact); !seen[p] {
			seen[p] = true
			prefixes = append(prefixes, p)
		}
	}
	match := ""
	switch {
	case len(prefixes) == 0 && c.source != "":
		// Nothing parsed: the exact line, which no allow pattern covers
		// anyway (such lines always ask), never the whole tool.
		match = globQuote(c.source)
	case len(prefixes) == 0:
		match = "{}" // only the empty line
	case len(prefixes) == 1:
		match = prefixes[0]
	default:
		match = "{" + strings.Join(prefixes, ",") + "}"
	}
	return Rule{Tool: globQuote(c.tool), Match: match, Decision: string(OutcomeAllow)}
}

// call is what the rules look at in a Request, worked out once.
type call struct {
	// lowRisk: a parsed command line the shell table rates low (reading,
	// building, testing, linting).
	lowRisk    bool
	tool       string
	capability string
	cap        tools.Capability // capability, parsed
	shell      bool
	// For shell_run: whether the line parsed, its commands as rules judge
	// them, the line itself, why allow patterns cannot cover it ("" if
	// they can), and why deny patterns cannot be checked ("" if they can).
	parsed   bool
	calls    []tools.ShellCall
	commands []string // calls[i].Judged
	source   string
	guard    string
	opaque   string
}

func newCall(req Request) call {
	c := call{tool: req.Tool, capability: capabilityOf(req)}
	c.cap = tools.ParseCapability(c.capability)
	if c.tool == "" {
		c.tool = req.Meta.Name
	}
	c.shell = req.Meta.Shell || req.Command != nil
	if !c.shell {
		return c
	}
	var args struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(req.Args, &args) == nil {
		c.source = args.Command
	}
	// The line is parsed once, by the tool's dry run; the rules read that
	// parse. A parse that lacks the rules' view of a command counts as
	// unparsed.
	if cl := req.Command; cl != nil && len(cl.Calls) == len(cl.Commands) {
		c.parsed, c.calls = true, cl.Calls
		c.lowRisk = cl.Risk == tools.RiskLow
		for _, sc := range cl.Calls {
			c.commands = append(c.commands, sc.Judged)
			if c.opaque == "" && sc.Opaque != "" {
				c.opaque = sc.Opaque
			}
		}
	}
	switch {
	case !c.parsed:
		c.guard = "allow rules do not cover this command line: it could not be parsed"
	case len(c.commands) == 0:
		c.guard = "allow rules do not cover this command line: it runs no plain command"
	case c.source == "":
		c.guard = "allow rules do not cover this command line: the call's arguments do not hold it"
	case termtext.HasHidden(c.source):
		// What the pane shows escaped is not what a pattern was written
		// against: no rule or grant vouches for such a line.
		c.guard = "allow rules do not cover this command line: it holds raw control or invisible characters"
	case req.Command.Uncovered != "":
		c.guard = "allow rules do not cover this command line: " + req.Command.Uncovered
	}
	return c
}

// capabilityOf is the call's concrete capability, or the tool's static one
// when the dry run named none.
func capabilityOf(req Request) string {
	if req.Capability != "" {
		return req.Capability
	}
	return req.Meta.Capability
}

// hits reports whether a deny or ask rule applies. For shell_run it
// applies when its pattern hits any command; a line that did not parse
// counts as hit, since what it would run is unknown.
func (c call) hits(r compiledRule) bool {
	if !r.tool.match(c.tool) {
		return false
	}
	if r.Match == "" {
		return true
	}
	if !c.shell {
		return c.capability != "" && r.match.match(c.capability)
	}
	if !c.parsed {
		return true
	}
	for _, sc := range c.calls {
		for _, form := range append([]string{sc.Judged}, sc.Forms...) {
			if r.hitsCommand(form) {
				return true
			}
		}
	}
	return false
}

// what describes the calls a rule is about, for Verdict.Why.
func (c call) what(r compiledRule) string {
	switch {
	case r.Match == "":
		return c.tool
	case c.shell:
		return fmt.Sprintf("shell commands matching %q", r.Match)
	}
	return fmt.Sprintf("%s on %s", c.tool, c.capability)
}

// allowedByPattern reports whether an allow rule with a capability
// pattern (not a whole-tool rule) matches the call.
func (c call) allowedByPattern(rules []compiledRule) bool {
	for _, r := range rules {
		if Outcome(r.Decision) == OutcomeAllow && r.Match != "" && !c.shell && r.tool.match(c.tool) && r.match.match(c.capability) {
			return true
		}
	}
	return false
}

// allowedBy returns what allows the call among allow rules and grants, or
// "" with, when an allow pattern could have applied, why it did not.
//
// A shell line is allowed when each of its commands is covered by some
// allow rule or grant (not necessarily the same one), and the parse found
// nothing the commands do not show (CommandLine.Uncovered). An allow rule without Match allows every
// line that parses; no allow rule allows a line that does not.
func (c call) allowedBy(rules, grants []compiledRule, sandboxed bool) (by, whyNot string, network bool) {
	type source struct {
		r    compiledRule
		name string
	}
	var sources []source
	// A rule with network = false vouches only for confined commands.
	usable := func(r compiledRule) bool { return !c.shell || r.Network == nil || *r.Network || sandboxed }
	for _, r := range rules {
		if Outcome(r.Decision) == OutcomeAllow && r.tool.match(c.tool) && usable(r) {
			sources = append(sources, source{r, "rule: " + r.Brief()})
		}
	}
	for _, g := range grants {
		if g.tool.match(c.tool) && usable(g) {
			sources = append(sources, source{g, "session grant"})
		}
	}
	if c.shell && !c.parsed {
		// What the line would run is unknown: nothing vouches for it.
		if len(sources) == 0 {
			return "", "", false
		}
		return "", c.guard, false
	}
	for _, s := range sources {
		if s.r.Match == "" || (!c.shell && c.capability != "" && s.r.match.match(c.capability)) {
			return s.name, "", isTrue(s.r.Network)
		}
	}
	if !c.shell || len(sources) == 0 {
		return "", "", false
	}
	if c.guard != "" {
		return "", c.guard, false
	}
	var names []string
	used := map[string]bool{}
	network = true
	for _, cmd := range c.commands {
		covered := false
		for _, s := range sources {
			if s.r.matchCommand(cmd) {
				covered = true
				// The line gets network only if every command's rule gives it.
				network = network && isTrue(s.r.Network)
				if !used[s.name] {
					used[s.name] = true
					names = append(names, s.name)
				}
				break
			}
		}
		if !covered {
			return "", "", false
		}
	}
	return strings.Join(names, "; "), "", network
}

func isTrue(b *bool) bool { return b != nil && *b }
