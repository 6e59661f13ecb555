package approval

import (
	"errors"
	"fmt"
	"myclaw/config"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Rule is a rule of the config; see config.Rule for its fields.
type Rule = config.Rule

// ForWorkspace keeps the rules that hold in workspace, in order.
func ForWorkspace(rules []Rule, workspace string) []Rule {
	var out []Rule
	for _, r := range rules {
		if r.AppliesIn(workspace) {
			out = append(out, r)
		}
	}
	return out
}

// Outcome is what the policy decides for a call.
type Outcome string

// Outcomes, which are also the values of Rule.Decision.
const (
	OutcomeAllow Outcome = "allow"
	OutcomeAsk   Outcome = "ask"
	OutcomeDeny  Outcome = "deny"
)

// Verdict is the policy's decision for one call and what it rests on.
type Verdict struct {
	Outcome Outcome
	// By names what decided: `rule: tool = "shell_run", match = "git status*"`,
	// "session grant", "level: full", "level: auto-edit", "read-only tool".
	By string
	// Why says, for ask and deny, why in one sentence, e.g. "auto-edit asks
	// for shell commands after untrusted content from web:example.com".
	Why string
	// Confinement is, for a shell command, how it runs when allowed.
	Confinement *Confinement
}

// CheckRule refuses a rule the policy could not compile: what
// config.SaveRule must not write.
func CheckRule(r Rule) error {
	_, err := compileRule(r)
	return err
}

// ValidateRules checks rules as read from the config and names each bad
// one by index, field and what is allowed.
func ValidateRules(rules []Rule) error {
	var errs []error
	for i, r := range rules {
		if _, err := compileRule(r); err != nil {
			errs = append(errs, fmt.Errorf("approval.rules[%d].%w", i, err))
		}
	}
	return errors.Join(errs...)
}

// compiledRule is a Rule with its globs parsed.
type compiledRule struct {
	Rule
	tool  glob
	match glob
	// For a command pattern with literal options ("touch -a *", "git
	// push --force *"): the options, each short one on its own, and the
	// pattern without them, so deny and ask rules hit the options in any
	// order and clustered ("touch -m -a x", "rm -fr x").
	opts    []string
	sansOpt glob
}

// compileRule checks and parses one rule. Its errors start with the field
// name so that ValidateRules can prefix the rule's index.
func compileRule(r Rule) (compiledRule, error) {
	cr := compiledRule{Rule: r}
	if r.Tool == "" {
		return cr, errors.New(`tool: is required (a glob on the tool name, e.g. "shell_run" or "fs_*")`)
	}
	var err error
	if cr.tool, err = compileGlob(r.Tool); err != nil {
		return cr, fmt.Errorf("tool: %q %w", r.Tool, err)
	}
	if r.Match != "" {
		if cr.match, err = compileGlob(r.Match); err != nil {
			return cr, fmt.Errorf("match: %q %w", r.Match, err)
		}
		if opts, rest := patternOptions(r.Match); len(opts) > 0 {
			if g, err := compileGlob(rest); err == nil {
				cr.opts, cr.sansOpt = opts, g
			}
		}
	}
	switch Outcome(r.Decision) {
	case OutcomeAllow, OutcomeAsk, OutcomeDeny:
	default:
		return cr, fmt.Errorf("decision: %q: want allow, ask or deny", r.Decision)
	}
	if r.Workspace != "" && !filepath.IsAbs(r.Workspace) {
		return cr, fmt.Errorf("workspace: %q: want an absolute path (the folder the rule holds in)", r.Workspace)
	}
	if r.Network != nil && Outcome(r.Decision) != OutcomeAllow {
		return cr, errors.New("network: only applies to allow rules (it says how the allowed commands run)")
	}
	return cr, nil
}

// matchCommand reports whether an allow pattern covers one command as
// written. A pattern ending in " *" also covers the bare command, so
// "go test *" allows "go test".
func (cr compiledRule) matchCommand(cmd string) bool {
	return cr.match.match(cmd) || cr.match.match(cmd+" ")
}

var unquote = strings.NewReplacer(`\`, "", `'`, "", `"`, "")

// hitsCommand reports whether a deny or ask pattern hits one reading of a
// command (tools.ShellCall.Forms). It errs towards hitting: the pattern is
// tried from every word on, with that word's directory and quotes removed,
// so "rm *" also hits "sudo rm -rf x", "xargs rm" and "/bin/rm x". A
// command whose name is built at run time cannot be matched at all: the
// policy asks for it instead (tools.ShellCall.Opaque).
func (cr compiledRule) hitsCommand(cmd string) bool {
	if cr.matchCommand(cmd) {
		return true
	}
	words := strings.Fields(cmd)
	for i := range words {
		first := unquote.Replace(path.Base(words[i]))
		from := append([]string{first}, words[i+1:]...)
		if cr.matchCommand(strings.Join(from, " ")) || cr.hitsOptions(from) {
			return true
		}
	}
	return false
}

// literalWord reports whether a pattern word has no glob syntax.
func literalWord(w string) bool { return !strings.ContainsAny(w, `*?[]{}\`) }

// patternOptions splits a command pattern into its literal options after
// the leading literal words and the pattern without them: "git push
// --force *" gives ["--force"] and "git push *"; "rm -rf *" gives ["-r"
// "-f"] and "rm *". No options: nil.
func patternOptions(match string) ([]string, string) {
	words := strings.Fields(match)
	i := 0
	for i < len(words) && !strings.HasPrefix(words[i], "-") && literalWord(words[i]) {
		i++
	}
	if i == 0 {
		return nil, ""
	}
	j := i
	for j < len(words) && strings.HasPrefix(words[j], "-") && words[j] != "--" && len(words[j]) > 1 && literalWord(words[j]) {
		j++
	}
	if j == i {
		return nil, ""
	}
	opts := splitClusters(words[i:j])
	return opts, strings.Join(append(slices.Clone(words[:i]), words[j:]...), " ")
}

// splitClusters writes each short option of a cluster on its own: -rf is
// -r -f. Long options, and short ones with a value attached (-n5), stay.
func splitClusters(words []string) []string {
	var out []string
	for _, w := range words {
		if len(w) > 2 && w[0] == '-' && w[1] != '-' && strings.Trim(w[1:], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" {
			for _, c := range w[1:] {
				out = append(out, "-"+string(c))
			}
			continue
		}
		out = append(out, w)
	}
	return out
}

// hitsOptions reports whether a command (name first, quotes of the name
// removed) holds every option of the pattern, in any order or cluster,
// and without them matches the rest of the pattern.
func (cr compiledRule) hitsOptions(words []string) bool {
	if len(cr.opts) == 0 {
		return false
	}
	var opts, others []string
	ended := false
	for _, w := range splitClusters(words[1:]) {
		w = unquote.Replace(w)
		switch {
		case !ended && w == "--":
			ended = true
			others = append(others, w)
		case !ended && strings.HasPrefix(w, "-"):
			opts = append(opts, w)
		default:
			others = append(others, w)
		}
	}
	for _, o := range cr.opts {
		i := slices.Index(opts, o)
		if i < 0 {
			return false
		}
		opts = slices.Delete(opts, i, i+1)
	}
	// What stays keeps the command's order: options first is how the
	// rest of the pattern was written against.
	rest := strings.Join(append(append([]string{words[0]}, opts...), others...), " ")
	return cr.sansOpt.match(rest) || cr.sansOpt.match(rest+" ")
}

// Multi-level tools: a grant covers the subcommand ("go test *"), not the
// tool ("go *").
var subcommandTools = map[string]bool{
	"git": true, "go": true, "npm": true, "pnpm": true, "yarn": true, "bun": true,
	"cargo": true, "docker": true, "podman": true, "kubectl": true, "make": true,
	"gh": true, "helm": true, "terraform": true, "pip": true, "pip3": true, "uv": true,
	"poetry": true, "dotnet": true, "mvn": true, "gradle": true, "systemctl": true,
	"brew": true, "apt": true, "apt-get": true, "dnf": true, "composer": true,
	"bundle": true, "rake": true, "just": true, "nix": true, "swift": true,
}

// Subcommands that run something named by the next word (a package script,
// a compose verb): a grant covers that one.
var thirdLevel = map[string]bool{
	"npm run": true, "npm exec": true, "pnpm run": true, "pnpm exec": true,
	"yarn run": true, "bun run": true, "docker compose": true, "podman compose": true,
	"go tool": true,
}

// commandPrefix returns the pattern a session grant gives for one command:
// "go test ./..." -> "go test *", "ls -la" -> "ls *". Where a prefix would
// say too little (wrappers and interpreters, which the shell table marks
// exact, a flag before the subcommand, quoting or expansions in the
// leading words) it is the exact command.
func commandPrefix(cmd string, exactOnly bool) string {
	words := strings.Fields(cmd)
	exact := globQuote(cmd)
	if len(words) == 0 || strings.HasSuffix(cmd, " …") {
		// Fed extra arguments (xargs): only the command as judged.
		return exact
	}
	plain := func(w string) bool { return !strings.ContainsAny(w, "$`'\"\\*?[]{}()<>|&;!~=") }
	name := words[0]
	switch {
	case !plain(name) || exactOnly:
		return exact
	case !subcommandTools[path.Base(name)]:
		return globQuote(name) + " *"
	}
	n := 2
	if len(words) > 1 && thirdLevel[path.Base(name)+" "+words[1]] {
		n = 3
	}
	if len(words) < n {
		return exact
	}
	for _, w := range words[1:n] {
		if !plain(w) || strings.HasPrefix(w, "-") {
			return exact
		}
	}
	return globQuote(strings.Join(words[:n], " ")) + " *"
}
