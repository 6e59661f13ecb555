package approval

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// autoEditShell decides a shell command that the sandbox would confine:
// auto-edit runs it unless it has network, the parse finds it risky, or
// the command line (or a telling part of it) appears in untrusted content
// of this turn. Plain taint does not stop it: every turn reads files and
// test output, and the sandbox bounds what a planted command could do.
func autoEditShell(req Request, c call, conf Confinement) string {
	switch {
	case conf.Network:
		return "auto-edit asks for shell commands with network access"
	case !c.parsed:
		return "auto-edit asks for command lines it cannot parse"
	case len(c.commands) == 0:
		return "auto-edit asks for command lines that run no plain command"
	case req.Command != nil && len(req.Command.Warnings) > 0:
		return "auto-edit asks for risky command lines: this one " + req.Command.Warnings[0]
	}
	if where := drawnFrom(c.source, c.commands, req.Taint); where != "" {
		return where + ": the command may come from instructions planted there"
	}
	return ""
}

var (
	urlRE   = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'"<>|;&)]+`)
	pathRE  = regexp.MustCompile(`(?:^|[\s='"])((?:~|/)[^\s'"|;&<>)]{3,})`)
	interRE = regexp.MustCompile(`\|\s*(?:sudo\s+)?(?:[\w./-]*/)?(sh|bash|zsh|dash|ksh|fish|python3?|perl|ruby|node|php)\b`)
	// usual are the paths that every command names; they tell nothing.
	usual = []string{"/dev/null", "/dev/stdout", "/dev/stderr", "/usr/", "/bin/", "/sbin/", "/lib", "/tmp/", "/opt/", "/nix/"}
)

// drawnFrom says where the command line, or a telling part of it (one of
// its commands, a URL, a path outside the usual ones, a pipe into an
// interpreter), appears in the untrusted texts of the turn, e.g.
// "`echo … > planted.txt` appears in notes.md, read 2 calls ago"; "" when
// it appears nowhere. Text is compared with spaces and quotes removed, so
// re-spacing or re-quoting a planted line does not hide it.
func drawnFrom(line string, commands []string, t *Taint) string {
	if t == nil || len(t.Seen) == 0 || line == "" {
		return ""
	}
	type needle struct{ squashed, shown string }
	var needles []needle
	add := func(s, shown string, min int) {
		if q := squash(s); len(q) >= min {
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
	for i := len(t.Seen) - 1; i >= 0; i-- {
		seen := t.Seen[i]
		text := squash(seen.Text)
		for _, n := range needles {
			if strings.Contains(text, n.squashed) {
				return fmt.Sprintf("`%s` appears in %s, read %s", n.shown, sourceName(seen.Source), ago(t.Calls-seen.Call))
			}
		}
	}
	return ""
}

// QuietSource reports whether untrusted content from source is the
// workspace's own (a file read, a search of it): worth a mention, not an
// alarm. Web pages, MCP results, command output and files git does not
// track ("untracked file:", which may have come from anywhere) are not.
func QuietSource(source string) bool {
	return strings.HasPrefix(source, "file:") || strings.HasPrefix(source, "grep:")
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
