package shell

import (
	"path"
	"slices"
	"strings"
)

func systemBinDir(dir string) bool {
	switch dir {
	case "/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/usr/local/sbin":
		return true
	}
	return false
}

// peelsForAllow reports whether a wrapper only runs its argument command
// (in the same place, as the same user), so allow rules judge that one.
// sudo, doas, chroot and the like change who or where: they are judged as
// written.
func peelsForAllow(cmd []string) bool {
	switch path.Base(cmd[0]) {
	case "env", "nice", "ionice", "timeout", "xargs", "command", "builtin", "exec", "nohup", "setsid", "stdbuf", "time", "chrt", "taskset":
		if path.Base(cmd[0]) == "command" && len(cmd) > 1 && (cmd[1] == "-v" || cmd[1] == "-V") {
			return false
		}
		return unwrap(cmd) != nil
	}
	return false
}

// opaqueCommand says why a command with a literal name still runs code the
// line does not show: a shell or eval given code, an interpreter given a
// program inline or on stdin.
func opaqueCommand(cmd []string) string {
	name := path.Base(cmd[0])
	switch name {
	case "eval", "source", ".", "trap":
		return name + " runs code given as data"
	case "sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "mksh", "busybox":
		return name + " runs a command line or script the rules cannot see into"
	case "python", "python2", "python3", "perl", "ruby", "node", "nodejs", "deno", "bun", "php", "lua", "tclsh", "Rscript", "osascript", "pwsh":
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

// dangerousArgs says, in a sentence, how arguments turn a command that
// reads into one that writes files or runs commands, so a prefix rule for

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

func isInterpreterName(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python3", "perl", "ruby", "node", "php", "source", ".", "eval":
		return true
	}
	return false
}

// feedsFetched reports whether an argument word runs a download through a
