package tools

import (
	"bytes"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// CommandLine is a shell command line parsed without running it: what it
// would run, where it would write, and what looks dangerous.
type CommandLine struct {
	// Commands lists every simple command as written, including those in
	// pipelines, lists, subshells and command substitutions, e.g.
	// ["git status --short", "rm -rf build"].
	Commands []string
	// Redirects lists the files that output redirections write to.
	Redirects []string
	// Warnings names risky constructs, one sentence each.
	Warnings []string
}

// ParseCommandLine parses a bash command line. workspace (absolute) is used
// to flag writes outside it; it may be empty.
func ParseCommandLine(src, workspace string) (CommandLine, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return CommandLine{}, fmt.Errorf("cannot parse the command: %w", err)
	}
	var cl CommandLine
	warned := map[string]bool{}
	warn := func(s string) {
		if !warned[s] {
			warned[s] = true
			cl.Warnings = append(cl.Warnings, s)
		}
	}
	printer := syntax.NewPrinter()
	wordText := func(w *syntax.Word) string {
		if lit := w.Lit(); lit != "" {
			return lit
		}
		var b bytes.Buffer
		_ = printer.Print(&b, w)
		return b.String()
	}
	var names []string
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				return true
			}
			args := make([]string, len(x.Args))
			for i, w := range x.Args {
				args[i] = wordText(w)
			}
			cl.Commands = append(cl.Commands, strings.Join(args, " "))
			names = append(names, path.Base(args[0]))
			for _, s := range commandWarnings(args, workspace) {
				warn(s)
			}
		case *syntax.Redirect:
			switch x.Op {
			case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.RdrInOut:
				if x.Word != nil {
					target := wordText(x.Word)
					cl.Redirects = append(cl.Redirects, target)
					if outside(target, workspace) {
						warn("writes outside the workspace: " + target)
					}
				}
			}
		case *syntax.BinaryCmd:
			if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
				if isFetcher(x.X) && isInterpreter(x.Y) {
					warn("pipes downloaded content into an interpreter (curl … | sh)")
				}
			}
		case *syntax.Stmt:
			if x.Background {
				warn("starts a background process that may outlive the call")
			}
		}
		return true
	})
	for _, n := range names {
		switch n {
		case "eval", "source", ".":
			warn(n + " runs code that cannot be previewed")
		}
	}
	return cl, nil
}

func commandWarnings(args []string, workspace string) []string {
	name := path.Base(args[0])
	rest := args[1:]
	var out []string
	has := func(flags ...string) bool {
		for _, a := range rest {
			for _, f := range flags {
				if a == f || (len(f) == 2 && strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a[1:], f[1:])) {
					return true
				}
			}
		}
		return false
	}
	switch name {
	case "sudo", "doas", "su", "pkexec":
		out = append(out, "runs as another user ("+name+")")
	case "rm":
		if has("-r", "-R", "--recursive") {
			out = append(out, "rm -r deletes directories recursively")
		}
	case "bash", "sh", "zsh", "dash", "ksh":
		if has("-c") {
			out = append(out, name+" -c runs a nested command line that is not analysed")
		}
	case "dd":
		for _, a := range rest {
			if strings.HasPrefix(a, "of=") {
				out = append(out, "dd writes raw data to "+strings.TrimPrefix(a, "of="))
			}
		}
	case "mkfs", "fdisk", "parted", "wipefs", "shred":
		out = append(out, name+" destroys data")
	case "chmod", "chown":
		if has("-R", "--recursive") {
			out = append(out, name+" -R changes a whole tree")
		}
	case "git":
		sub := strings.Join(rest, " ")
		switch {
		case strings.HasPrefix(sub, "push") && has("-f", "--force", "--force-with-lease"):
			out = append(out, "git push --force rewrites remote history")
		case strings.HasPrefix(sub, "reset") && has("--hard"):
			out = append(out, "git reset --hard discards uncommitted work")
		case strings.HasPrefix(sub, "clean") && has("-f", "--force"):
			out = append(out, "git clean -f deletes untracked files")
		case strings.HasPrefix(sub, "checkout") && has("--", "."):
			out = append(out, "git checkout may discard uncommitted changes")
		}
	case "setsid", "nohup", "disown":
		out = append(out, name+" detaches a process from the call")
	case "curl", "wget":
		out = append(out, name+" reaches the network")
	}
	switch name {
	case "rm", "mv", "cp", "tee", "touch", "mkdir", "rmdir", "ln", "chmod", "chown", "install", "truncate":
		for _, a := range rest {
			if !strings.HasPrefix(a, "-") && outside(a, workspace) {
				out = append(out, name+" touches a path outside the workspace: "+a)
			}
		}
	}
	return out
}

// outside reports whether a path written in a command leaves the workspace:
// absolute paths elsewhere, ~ and parent-directory escapes. Device sinks such
// as /dev/null are fine.
func outside(p, workspace string) bool {
	switch {
	case p == "/dev/null" || p == "/dev/stdout" || p == "/dev/stderr" || strings.HasPrefix(p, "/dev/fd/"):
		return false
	case strings.HasPrefix(p, "~"):
		return true
	case filepath.IsAbs(p):
		if workspace == "" {
			return true
		}
		rel, err := filepath.Rel(workspace, p)
		return err != nil || rel == ".." || strings.HasPrefix(rel, "../")
	}
	clean := filepath.Clean(p)
	return clean == ".." || strings.HasPrefix(clean, "../")
}

func isFetcher(s *syntax.Stmt) bool {
	found := false
	syntax.Walk(s, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			switch path.Base(c.Args[0].Lit()) {
			case "curl", "wget", "fetch":
				found = true
			}
		}
		return !found
	})
	return found
}

func isInterpreter(s *syntax.Stmt) bool {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 {
		return false
	}
	name := path.Base(c.Args[0].Lit())
	if name == "sudo" && len(c.Args) > 1 {
		name = path.Base(c.Args[1].Lit())
	}
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "python", "python3", "perl", "ruby", "node":
		return true
	}
	return false
}
