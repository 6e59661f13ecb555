package approval

import (
	"slices"
	"strings"

	"myclaw/tools"
)

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
	if req.Meta.AlwaysAsk {
		return false, req.Tool + " is asked about every time: no grant or rule covers it"
	}
	if editMerge(req) {
		return false, "an edit agent's merge is asked about each time: a grant would let the next agent's change in unseen"
	}
	if c := req.Confinement; c != nil && c.ReadOnly {
		// Approved to run read-only, it would run writable under a grant
		// once plan mode is over.
		return false, "plan mode runs it read-only; a grant would hold after plan mode too"
	}
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

// editMerge reports whether req runs an edit agent, whose change is
// merged into the workspace: no session grant covers one.
func editMerge(req Request) bool {
	return tools.ParseCapability(capabilityOf(req)).Is("agent", "edit") || tools.ParseCapability(req.Meta.Capability).Is("agent", "edit")
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
