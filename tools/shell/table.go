package shell

import (
	"path"
	"regexp"
	"slices"
	"strings"
)

// Effect is what a command does to the paths it is given.
type Effect int

// Effects, from harmless to changing.
const (
	// Unknown: the table does not know the command.
	Unknown Effect = iota
	// Reads its operands and changes nothing.
	Reads
	// Builds, tests or lints: it writes only its own outputs, in the
	// workspace.
	Builds
	// Writes creates or changes its operands.
	Writes
	// Deletes its operands.
	Deletes
	// Moves its operands: the sources go, the destination is written.
	Moves
	// Copies to its last operand, which is written.
	Copies
	// Changes the mode or owner of the operands after the first.
	Chmods
)

// Command is what the table knows of one command.
type Command struct {
	// Runs says it runs another command given in its arguments, after
	// its options (Value lists those that take a value) and Skip
	// positional arguments (timeout's duration, chroot's directory).
	Runs  bool
	Value string
	Skip  int
	// Peel says it only runs that command, as the same user in the same
	// place, so allow rules judge the command it runs. sudo, doas and
	// chroot change who or where: they are judged as written.
	Peel bool
	// Line names the option whose value is a command line it runs
	// (sh -c, su -c).
	Line string
	// Interpreter runs a program given as text, as a file or on stdin.
	Interpreter bool
	// Network says it reaches the network.
	Network bool
	// Effect is what it does to its operands.
	Effect Effect
	// Exact says its first word tells little of what runs, so a session
	// grant is the exact command, never "NAME *".
	Exact bool
}

// table is the one table of shell knowledge: the parser, the risk rating
// and the session grants all read it.
var table = map[string]Command{}

func init() {
	set := func(c Command, names ...string) {
		for _, n := range names {
			table[n] = c
		}
	}
	// Wrappers that only run their argument.
	set(Command{Runs: true, Peel: true, Exact: true, Value: "-u --unset -C --chdir -S --split-string"}, "env")
	set(Command{Runs: true, Peel: true, Exact: true, Value: "-n --adjustment"}, "nice")
	set(Command{Runs: true, Peel: true, Exact: true, Value: "-c --class -n --classdata -p --pid -P --pgid -u --uid"}, "ionice")
	set(Command{Runs: true, Peel: true, Exact: true, Skip: 1, Value: "-s --signal -k --kill-after"}, "timeout")
	set(Command{Runs: true, Peel: true, Exact: true, Value: "-a --arg-file -d --delimiter -E -I -L --max-lines -n --max-args -P --max-procs -s --max-chars --process-slot-var"}, "xargs")
	set(Command{Runs: true, Peel: true, Exact: true, Value: "-i --input -o --output -e --error"}, "stdbuf")
	set(Command{Runs: true, Peel: true, Exact: true, Value: "-f --format -o --output"}, "time")
	set(Command{Runs: true, Peel: true, Exact: true, Value: "-a"}, "exec")
	set(Command{Runs: true, Peel: true, Exact: true}, "command", "builtin", "nohup", "setsid")
	set(Command{Runs: true, Peel: true, Exact: true, Skip: 1}, "chrt", "taskset")
	set(Command{Runs: true, Peel: true, Exact: true, Skip: 1, Value: "-w --wait --timeout -E --conflict-exit-code"}, "flock")
	// Wrappers that change who or where.
	set(Command{Runs: true, Exact: true, Value: "-u --user -g --group -h --host -p --prompt -C --close-from -D --chdir -r --role -t --type -U --other-user -T --command-timeout"}, "sudo")
	set(Command{Runs: true, Exact: true, Value: "-u -C"}, "doas")
	set(Command{Runs: true, Exact: true, Skip: 1, Value: "--userspec --groups"}, "chroot")
	set(Command{Runs: true, Exact: true, Value: "-u --user -g --group -G --supp-group"}, "runuser")
	set(Command{Runs: true, Exact: true, Value: "-o --output -e -p --attach -s --string-limit -u --user -E --env -I -a -b -X -P"}, "strace", "ltrace")
	set(Command{Runs: true, Exact: true, Value: "-n --interval -q --equexit"}, "watch")
	set(Command{Exact: true, Line: "-c", Value: "-s --shell -g --group -G --supp-group -w --whitelist-environment"}, "su")
	set(Command{Exact: true, Interpreter: true, Line: "-c"}, "sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "mksh", "busybox")
	set(Command{Exact: true}, "eval", "source", ".", "parallel", "npx", "bunx", "pnpx", "uvx", "pkexec")
	set(Command{Exact: true, Interpreter: true}, "python", "python2", "python3", "node", "nodejs", "deno", "perl", "ruby",
		"php", "lua", "luajit", "tclsh", "Rscript", "osascript", "pwsh")
	// bun is also a package manager: a grant covers its subcommand.
	set(Command{Interpreter: true}, "bun")
	set(Command{Exact: true, Effect: Reads}, "awk", "gawk", "mawk", "nawk", "sed", "gsed", "find")
	// Network.
	set(Command{Network: true, Exact: true}, "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "socat", "telnet", "ftp")
	set(Command{Network: true, Effect: Reads}, "curl", "wget", "fetch", "ping", "dig", "nslookup", "host")
	// Readers.
	set(Command{Effect: Reads}, "ls", "cat", "head", "tail", "less", "more", "wc", "grep", "egrep", "fgrep", "rg", "ag",
		"fd", "tree", "stat", "file", "du", "df", "pwd", "echo", "printf", "which", "type", "whereis", "true", "false",
		"test", "[", "date", "printenv", "whoami", "id", "uname", "hostname", "diff", "cmp", "sort", "uniq", "cut",
		"tr", "paste", "join", "column", "jq", "yq", "xxd", "od", "hexdump", "strings", "base64", "md5sum", "sha1sum",
		"sha256sum", "sha512sum", "cksum", "basename", "dirname", "realpath", "readlink", "seq", "sleep", "wait", "cd",
		"pushd", "popd", "nproc", "free", "uptime", "ps", "tac", "nl", "fold", "fmt", "expand", "comm", "sum", "look",
		"exit", "return", "shift", ":", "read", "set", "shopt", "local", "export", "declare", "typeset", "unset")
	// Builders, testers, linters.
	set(Command{Effect: Builds}, "make", "cargo", "pytest", "eslint", "tsc", "prettier", "ruff", "mypy", "jest",
		"vitest", "gradle", "mvn", "dotnet", "bazel", "ninja", "cmake", "gofmt", "golangci-lint", "staticcheck",
		"rustc", "rustfmt", "gcc", "cc", "clang", "g++", "javac", "tox", "nox", "flake8", "pylint", "black", "isort",
		"shellcheck", "just", "rake", "mocha", "swift", "zig")
	// Changers.
	set(Command{Effect: Writes}, "touch", "mkdir", "tee", "truncate")
	set(Command{Effect: Deletes}, "rm", "rmdir", "unlink", "shred")
	set(Command{Effect: Moves}, "mv")
	set(Command{Effect: Copies}, "cp", "install", "ln")
	set(Command{Effect: Chmods}, "chmod", "chown", "chgrp")
}

// pythonRE matches the versioned names of Python: python3.12, python2.7.
var pythonRE = regexp.MustCompile(`^python[0-9]+(\.[0-9]+)*$`)

// Lookup returns what the table knows of the command named name (a path's
// directory is ignored).
func Lookup(name string) (Command, bool) {
	name = path.Base(name)
	if c, ok := table[name]; ok {
		return c, true
	}
	if pythonRE.MatchString(name) {
		return table["python3"], true
	}
	return Command{}, false
}

// ExactGrant reports whether a session grant for a command named name
// must be the exact command: its first word says little of what runs.
func ExactGrant(name string) bool {
	c, _ := Lookup(name)
	return c.Exact
}

// systemBinDir reports whether dir is a standard system directory of
// commands, so that /usr/bin/ls is judged as ls.
func systemBinDir(dir string) bool {
	switch dir {
	case "/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin":
		return true
	}
	return false
}

// peelsForAllow reports whether a wrapper only runs its argument command
// (in the same place, as the same user), so allow rules judge that one.
func peelsForAllow(cmd []string) bool {
	c, _ := Lookup(cmd[0])
	if !c.Peel {
		return false
	}
	if path.Base(cmd[0]) == "command" && len(cmd) > 1 && (cmd[1] == "-v" || cmd[1] == "-V") {
		return false
	}
	return unwrap(cmd) != nil
}

// opaqueCommand says why a command with a literal name still runs code the
// line does not show: eval given code, an interpreter given a program
// inline or on stdin. A shell's -c line is read by the parser instead
// (commandLineArg), so only a shell without one is opaque here.
func opaqueCommand(cmd []string) string {
	name := path.Base(cmd[0])
	c, _ := Lookup(name)
	switch {
	case name == "eval" || name == "source" || name == "." || name == "trap":
		return name + " runs code given as data"
	case c.Line != "" && c.Interpreter:
		if _, ok := commandLineArg(cmd); ok {
			return ""
		}
		return name + " runs a command line or script the rules cannot see into"
	case c.Interpreter:
		if len(cmd) == 1 {
			return name + " runs a program read from its input"
		}
		for _, a := range cmd[1:] {
			switch a {
			case "-c", "-e", "-E", "-r", "--eval", "-p", "--print", "-":
				return name + " runs a program given on the command line"
			}
			if strings.HasPrefix(a, "-c") || strings.HasPrefix(a, "-e") {
				return name + " runs a program given on the command line"
			}
		}
		return name + " runs a program the rules cannot see into"
	}
	return ""
}

// commandLineArg returns the index in cmd of the command line a shell or
// su runs with -c (bash -c 'line', bash -lc 'line', su -c 'line' user);
// false when it has none.
func commandLineArg(cmd []string) (int, bool) {
	c, _ := Lookup(cmd[0])
	if c.Line == "" {
		return 0, false
	}
	for i := 1; i < len(cmd); i++ {
		a := cmd[i]
		switch {
		case a == c.Line || a == "--command":
			if i+1 < len(cmd) {
				return i + 1, true
			}
			return 0, false
		case strings.HasPrefix(a, "--command="):
			return 0, false // the value is inside the word; read as opaque
		case strings.HasPrefix(a, "--"):
			if slices.Contains(strings.Fields(c.Value), a) {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1 && strings.Contains(a[1:], strings.TrimPrefix(c.Line, "-")) && !slices.Contains(strings.Fields(c.Value), a):
			if i+1 < len(cmd) {
				return i + 1, true
			}
			return 0, false
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
			if slices.Contains(strings.Fields(c.Value), a) {
				i++
			}
		default:
			if path.Base(cmd[0]) != "su" {
				return 0, false // a script file: bash script.sh
			}
		}
	}
	return 0, false
}

// unwrap returns the command a wrapper runs (sudo, env, xargs, find
// -exec, ...), after the wrapper's options and assignments, or nil if args
// is not a wrapper. Options that take a value are known per wrapper; an
// unknown one is assumed to take none, which at worst analyses a value as
// the command.
func unwrap(args []string) []string {
	name := path.Base(args[0])
	if name == "find" {
		return findExec(args[1:])
	}
	c, _ := Lookup(name)
	if !c.Runs {
		return nil
	}
	opts := strings.Fields(c.Value)
	rest := args[1:]
	for len(rest) > 0 {
		a := rest[0]
		switch {
		case a == "--":
			return afterWrapperArgs(c, rest[1:])
		case strings.HasPrefix(a, "-") && len(a) > 1:
			rest = rest[1:]
			if slices.Contains(opts, a) && len(rest) > 0 {
				rest = rest[1:]
			}
		case name == "env" && strings.Contains(a, "="):
			rest = rest[1:]
		default:
			return afterWrapperArgs(c, rest)
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

// afterWrapperArgs skips the positional arguments a wrapper takes before
// the command: timeout's duration, chroot's directory, taskset's mask.
func afterWrapperArgs(c Command, rest []string) []string {
	if len(rest) < c.Skip {
		return nil
	}
	rest = rest[c.Skip:]
	if len(rest) == 0 {
		return nil
	}
	return rest
}

// isInterpreterName reports whether a command runs the program it is fed
// on its standard input: every interpreter, and the shell's own eval.
func isInterpreterName(name string) bool {
	switch name {
	case "source", ".", "eval":
		return true
	}
	c, _ := Lookup(name)
	return c.Interpreter
}
