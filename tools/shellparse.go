package tools

import (
	"bytes"
	"fmt"
	"path"
	"path/filepath"
	"slices"
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
			// Assignments before a command change what it does
			// (PATH=..., LD_PRELOAD=...): show them with it.
			var assigns []string
			for _, a := range x.Assigns {
				var b bytes.Buffer
				_ = printer.Print(&b, a)
				assigns = append(assigns, b.String())
			}
			cl.Commands = append(cl.Commands, strings.Join(append(assigns, args...), " "))
			// A wrapper (sudo, env, xargs, ...) runs the command after its
			// own options: analyse that one too.
			for cmd := args; len(cmd) > 0; cmd = unwrap(cmd) {
				names = append(names, path.Base(cmd[0]))
				for _, s := range commandWarnings(cmd, workspace) {
					warn(s)
				}
			}
			if isInterpreterName(path.Base(args[0])) {
				for _, w := range x.Args[1:] {
					if feedsFetched(w) {
						warn(fetchedIntoInterpreter)
					}
				}
			}
		case *syntax.Redirect:
			switch x.Op {
			case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.RdrInOut:
				if x.Word != nil {
					target := wordText(x.Word)
					cl.Redirects = append(cl.Redirects, target)
					switch {
					case isNetDevice(target):
						warn("opens a network connection: " + target)
					case isDynamic(target):
						warn("writes to a path known only when it runs: " + target)
					case outside(target, workspace):
						warn("writes outside the workspace: " + target)
					}
				}
			case syntax.RdrIn:
				if x.Word != nil && isNetDevice(wordText(x.Word)) {
					warn("opens a network connection: " + wordText(x.Word))
				}
			}
		case *syntax.BinaryCmd:
			if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
				if isFetcher(x.X) && isInterpreter(x.Y) {
					warn(fetchedIntoInterpreter)
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

const fetchedIntoInterpreter = "pipes downloaded content into an interpreter (curl … | sh)"

// unwrap returns the command a wrapper runs (sudo, env, xargs, ...), after
// the wrapper's options and assignments, or nil if args is not a wrapper.
// Options that take a value are known per wrapper; an unknown one is
// assumed to take none, which at worst analyses a value as the command.
func unwrap(args []string) []string {
	withValue := map[string]string{
		"sudo": "-u -g -h -p -C -D -r -t -U", "doas": "-u -C", "env": "-u -C -S",
		"nice": "-n", "ionice": "-c -n -p", "timeout": "-s -k", "xargs": "-a -d -E -I -L -n -P -s",
		"stdbuf": "-i -o -e", "time": "-f -o", "chrt": "", "taskset": "", "nohup": "", "setsid": "",
		"exec": "-a", "command": "", "builtin": "", "chroot": "", "runuser": "-u -g",
	}
	name := path.Base(args[0])
	if name == "find" {
		return findExec(args[1:])
	}
	opts, ok := withValue[name]
	if !ok {
		return nil
	}
	rest := args[1:]
	for len(rest) > 0 {
		a := rest[0]
		switch {
		case a == "--":
			rest = rest[1:]
			return afterWrapperArgs(name, rest)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			rest = rest[1:]
			if slices.Contains(strings.Fields(opts), a) && len(rest) > 0 {
				rest = rest[1:]
			}
		case name == "env" && strings.Contains(a, "="):
			rest = rest[1:]
		default:
			return afterWrapperArgs(name, rest)
		}
	}
	return nil
}

// findExec returns the command of find's first -exec, -execdir, -ok or
// -okdir action, without its terminating ";" or "+".
func findExec(args []string) []string {
	for i, a := range args {
		switch a {
		case "-exec", "-execdir", "-ok", "-okdir":
			cmd := args[i+1:]
			for j, c := range cmd {
				if c == ";" || c == "+" {
					cmd = cmd[:j]
					break
				}
			}
			if len(cmd) == 0 {
				return nil
			}
			return cmd
		}
	}
	return nil
}

// afterWrapperArgs skips the positional arguments some wrappers take
// before the command: timeout's duration, chroot's directory, taskset's
// mask, chrt's priority.
func afterWrapperArgs(name string, rest []string) []string {
	switch name {
	case "timeout", "chroot", "taskset", "chrt":
		if len(rest) > 0 {
			rest = rest[1:]
		}
	}
	if len(rest) == 0 {
		return nil
	}
	return rest
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
	case "mkfs", "fdisk", "sfdisk", "parted", "wipefs", "shred", "mkswap":
		out = append(out, name+" destroys data")
	case "chmod", "chown":
		if has("-R", "--recursive") {
			out = append(out, name+" -R changes a whole tree")
		}
	case "git":
		sub := strings.Join(gitSubcommand(rest), " ")
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
	case "find":
		if slices.Contains(rest, "-delete") {
			out = append(out, "find -delete deletes every file it matches")
		}
	case "setsid", "nohup", "disown":
		out = append(out, name+" detaches a process from the call")
	case "curl", "wget":
		out = append(out, name+" reaches the network")
	}
	if strings.HasPrefix(name, "mkfs.") {
		out = append(out, name+" destroys data")
	}
	switch name {
	case "rm", "mv", "cp", "tee", "touch", "mkdir", "rmdir", "ln", "chmod", "chown", "install", "truncate":
		options := true
		for _, a := range rest {
			if options && a == "--" {
				options = false
				continue
			}
			if options && strings.HasPrefix(a, "-") {
				continue
			}
			switch {
			case isDynamic(a):
				out = append(out, name+" touches a path known only when it runs: "+a)
			case outside(a, workspace):
				out = append(out, name+" touches a path outside the workspace: "+a)
			}
		}
	}
	return out
}

// gitSubcommand returns git's arguments from the subcommand on, past the
// global options (-C dir, -c key=value, --git-dir=..., ...).
func gitSubcommand(args []string) []string {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return args[i:]
		}
	}
	return nil
}

// isDynamic reports whether a word's value is known only when the command
// runs: it holds a parameter expansion or a command substitution.
func isDynamic(word string) bool {
	return strings.ContainsAny(word, "$`")
}

// isNetDevice reports whether a redirect target is bash's network device.
func isNetDevice(p string) bool {
	return strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/")
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
			args := make([]string, len(c.Args))
			for i, w := range c.Args {
				args[i] = w.Lit()
			}
			for cmd := args; len(cmd) > 0 && !found; cmd = unwrap(cmd) {
				switch path.Base(cmd[0]) {
				case "curl", "wget", "fetch":
					found = true
				}
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
	args := make([]string, len(c.Args))
	for i, w := range c.Args {
		args[i] = w.Lit()
	}
	for cmd := args; len(cmd) > 0; cmd = unwrap(cmd) {
		if isInterpreterName(path.Base(cmd[0])) {
			return true
		}
	}
	return false
}

func isInterpreterName(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python3", "perl", "ruby", "node", "php", "source", ".", "eval":
		return true
	}
	return false
}

// feedsFetched reports whether an argument word runs a download through a
// process or command substitution: bash <(curl …), sh -c "$(wget …)".
func feedsFetched(w *syntax.Word) bool {
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ProcSubst:
			for _, st := range x.Stmts {
				found = found || isFetcher(st)
			}
		case *syntax.CmdSubst:
			for _, st := range x.Stmts {
				found = found || isFetcher(st)
			}
		}
		return !found
	})
	return found
}
