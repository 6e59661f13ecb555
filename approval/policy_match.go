package approval

import (
	"encoding/json"
	"fmt"
	"strings"

	"myclaw/tools"
	"myclaw/tools/termtext"
)

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
