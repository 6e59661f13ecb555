package approval

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"myclaw/tools"
)

// autoEditShell decides a shell command that the sandbox would confine:
// auto-edit runs it when what it does is low risk, or medium (a change in
// the workspace) and the journal can undo it; it asks when the command has
// network, is high risk (irreversible, or leaving the workspace), changes
// what undo cannot restore, or appears in untrusted text read this
// session. Plain taint does not stop it: every turn reads files and test
// output, and the sandbox bounds what a planted command could do.
func autoEditShell(req Request, c call, conf Confinement) string {
	switch {
	case conf.Network:
		return "auto-edit asks for shell commands with network access"
	case !c.parsed:
		return "auto-edit asks for command lines it cannot parse"
	case len(c.commands) == 0:
		return "auto-edit asks for command lines that run no plain command"
	}
	if where := drawnFrom(c, req.Taint, req.Earlier); where != "" {
		return where + ": the command may come from instructions planted there"
	}
	cl := req.Command
	switch shellRisk(cl) {
	case tools.RiskHigh:
		why := cl.RiskWhy
		if why == "" && len(cl.Warnings) > 0 {
			why = cl.Warnings[0]
		}
		return "auto-edit asks for high-risk command lines: " + why
	case tools.RiskMedium:
		switch {
		case cl.NotUndoable != "":
			return "auto-edit asks when undo could not restore what the command changes: " + cl.NotUndoable
		case !req.Reversible:
			return "auto-edit asks for commands that change files while undo is off: " + cl.RiskWhy
		}
	}
	return ""
}

// shellRisk is the risk of a parsed command line: what the parse rated
// it, high when it did not rate it (a parse from before ratings).
func shellRisk(cl *tools.CommandLine) tools.Risk {
	if cl == nil || cl.Risk == "" {
		return tools.RiskHigh
	}
	return cl.Risk
}

// trustedChange says, for a shell line, which file later sessions trust it
// changes ("AGENTS.md, which later sessions follow as instructions"), or "".
func trustedChange(cl *tools.CommandLine) string {
	if cl == nil {
		return ""
	}
	for _, ch := range cl.Changes {
		if what := tools.TrustedFile(ch); what != "" {
			return what
		}
	}
	return ""
}

var (
	urlRE   = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'"<>|;&)]+`)
	pathRE  = regexp.MustCompile(`(?:^|[\s='"])((?:~|/)[^\s'"|;&<>)]{3,})`)
	interRE = regexp.MustCompile(`\|\s*(?:sudo\s+)?(?:[\w./-]*/)?(sh|bash|zsh|dash|ksh|fish|python[0-9.]*|perl|ruby|node|deno|bun|php|lua)\b`)
	// usual are the paths that every command names; they tell nothing.
	usual = []string{"/dev/null", "/dev/stdout", "/dev/stderr", "/usr/", "/bin/", "/sbin/", "/lib", "/tmp/", "/opt/", "/nix/"}
)

// drawnFrom says where the command line, or a telling part of it (one of
// its commands, a URL, a path outside the usual ones, a pipe into an
// interpreter), appears in the untrusted texts of the turn, e.g.
// "`echo … > planted.txt` appears in notes.md, read 2 calls ago"; "" when
// it appears nowhere. Text is compared with spaces and quotes removed, so
// re-spacing or re-quoting a planted line does not hide it.
func drawnFrom(c call, t *Taint, earlier []Seen) string {
	line, commands := c.source, c.commands
	if (t == nil || len(t.Seen) == 0) && len(earlier) == 0 || line == "" {
		return ""
	}
	// A command's output echoing a line that only reads, builds or tests
	// (make printing its recipe, a test runner's "run go test ./... to
	// reproduce") is no evidence of a planted command: the line does
	// nothing a planted one could use. Files, pages and servers still are.
	evidence := func(s Seen) bool { return !c.lowRisk || !strings.HasPrefix(s.Source, "shell:") }
	var needles []needle
	add := func(s, shown string, least int) {
		if q := squash(s); len(q) >= least {
			needles = append(needles, needle{q, shown})
		}
	}
	add(line, brief(line), 6)
	for _, c := range commands {
		if len(strings.Fields(c)) >= 2 {
			add(c, brief(c), 8)
		}
	}
	for _, u := range urlRE.FindAllString(line, -1) {
		add(u, u, 8)
	}
	for _, m := range pathRE.FindAllStringSubmatch(line, -1) {
		if p := m[1]; !isUsual(p) {
			add(p, p, 4)
		}
	}
	if m := interRE.FindStringSubmatch(line); m != nil {
		add("|"+m[1], "| "+m[1], 3)
	}
	if t != nil {
		for i := len(t.Seen) - 1; i >= 0; i-- {
			seen := t.Seen[i]
			if !evidence(seen) {
				continue
			}
			if n, ok := findNeedle(seen.Text, needles); ok {
				return fmt.Sprintf("`%s` appears in %s, read %s", n.shown, sourceName(seen.Source), ago(t.Calls-seen.Call))
			}
		}
	}
	for i := len(earlier) - 1; i >= 0; i-- {
		if !evidence(earlier[i]) {
			continue
		}
		if n, ok := findNeedle(earlier[i].Text, needles); ok {
			return fmt.Sprintf("`%s` appears in %s, read in an earlier turn", n.shown, sourceName(earlier[i].Source))
		}
	}
	return ""
}

// needle is a telling part of a command line, squashed, and as shown.
type needle struct{ squashed, shown string }

// findNeedle returns the first needle found in text.
func findNeedle(text string, needles []needle) (needle, bool) {
	text = squash(text)
	for _, n := range needles {
		if strings.Contains(text, n.squashed) {
			return n, true
		}
	}
	return needle{}, false
}

// QuietSource reports whether untrusted content from source is the
// workspace's own (a file read, a search of it): worth a mention, not an
// alarm. Web pages, MCP results, command output and files git does not
// track ("untracked file:", which may have come from anywhere) are not.
func QuietSource(source string) bool {
	return strings.HasPrefix(source, "file:") || strings.HasPrefix(source, "grep:") || strings.HasPrefix(source, "glob:")
}

// squash drops whitespace, quotes and backslashes and folds case.
func squash(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch r {
		case ' ', '\t', '\n', '\r', '\v', '\f', '\'', '"', '`', '\\':
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// brief shortens a command line for the pane: "echo … > planted.txt".
func brief(s string) string {
	w := strings.Fields(s)
	if len(w) <= 3 && len(s) <= 60 {
		return strings.Join(w, " ")
	}
	tail := w[len(w)-1]
	if len(w) >= 4 && len(w[len(w)-2]) <= 2 {
		tail = w[len(w)-2] + " " + tail // keep a redirection with its target
	}
	if len(tail) > 40 {
		tail = "…" + tail[len(tail)-39:]
	}
	return w[0] + " … " + tail
}

func isUsual(p string) bool {
	for _, u := range usual {
		if strings.HasPrefix(p, u) || p == strings.TrimSuffix(u, "/") {
			return true
		}
	}
	return false
}

// sourceName shows a fence source as a person names it: "notes.md" for a
// file, the rest as they are.
func sourceName(src string) string {
	if rest, ok := strings.CutPrefix(src, "file:"); ok {
		return path.Clean(rest)
	}
	if rest, ok := strings.CutPrefix(src, "untracked file:"); ok {
		return path.Clean(rest) + " (a file git does not track)"
	}
	if src == "" {
		return "an unnamed source"
	}
	return src
}

func ago(n int) string {
	switch {
	case n <= 1:
		return "in the last call"
	default:
		return fmt.Sprintf("%d calls ago", n)
	}
}
