package shell

import (
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// dangerousArgs says, in a sentence, how arguments turn a command that
// reads into one that writes files or runs commands, so a prefix rule for
// the reader does not cover it; "" when none do.
func dangerousArgs(cmd []string) string {
	name := path.Base(cmd[0])
	rest := cmd[1:]
	switch name {
	case "git":
		for i := 0; i < len(rest); i++ {
			a := rest[i]
			switch {
			case a == "-c" || strings.HasPrefix(a, "--config-env"):
				return "git " + a + " sets configuration on the command line, which can run commands (core.fsmonitor, core.pager, alias.*)"
			case a == "-C" || strings.HasPrefix(a, "--git-dir") || strings.HasPrefix(a, "--work-tree") || strings.HasPrefix(a, "--exec-path"):
				return "git " + a + " points git at another repository, whose configuration can run commands"
			case strings.HasPrefix(a, "-c") && len(a) > 2 && !strings.HasPrefix(a, "--"):
				return "git " + a + " sets configuration on the command line, which can run commands (core.fsmonitor, core.pager, alias.*)"
			case !strings.HasPrefix(a, "-"):
				for _, b := range rest[i+1:] {
					switch {
					case b == "--output" || strings.HasPrefix(b, "--output="):
						return "git " + b + " writes its output to a file"
					case b == "--upload-pack" || strings.HasPrefix(b, "--upload-pack=") || b == "--receive-pack" || strings.HasPrefix(b, "--receive-pack=") || b == "--exec" || strings.HasPrefix(b, "--exec="):
						return "git " + b + " names a program for git to run"
					case b == "--ext-diff" || b == "--textconv" || b == "--paginate":
						return "git " + b + " runs external diff programs"
					}
				}
				return ""
			}
		}
	case "rg":
		for _, a := range rest {
			switch {
			case a == "--pre" || strings.HasPrefix(a, "--pre=") || a == "--hostname-bin" || strings.HasPrefix(a, "--hostname-bin="):
				return "rg " + a + " names a program for rg to run"
			case a == "-z" || a == "--search-zip":
				return "rg " + a + " runs decompression programs"
			}
		}
	case "base64", "sort", "tree":
		for _, a := range rest {
			if a == "-o" || a == "--output" || strings.HasPrefix(a, "--output=") || strings.HasPrefix(a, "-o") && len(a) > 2 {
				return name + " " + a + " writes its output to a file"
			}
		}
	case "find":
		for _, a := range rest {
			switch a {
			case "-exec", "-execdir", "-ok", "-okdir":
				return "find " + a + " runs a command on every match"
			case "-delete":
				return "find -delete deletes every file it matches"
			case "-fprint", "-fprint0", "-fprintf", "-fls":
				return "find " + a + " writes to a file"
			}
		}
	case "sed", "gsed":
		return sedDanger(rest)
	case "awk", "gawk", "mawk", "nawk", "busybox awk":
		return awkDanger(rest)
	case "printf":
		if len(rest) > 0 && (rest[0] == "-v" || strings.HasPrefix(rest[0], "-v")) {
			return "printf -v assigns a variable by a name that can hold an arithmetic subscript, evaluated at run time"
		}
	case "test", "[":
		for _, a := range rest {
			if a == "-v" || a == "-R" {
				return name + " " + a + " tests a variable by a name that can hold an arithmetic subscript, evaluated at run time"
			}
		}
	case "read", "mapfile", "readarray", "unset", "getopts", "wait", "let", "declare", "typeset", "local", "export", "readonly":
		if name != "wait" || slices.Contains(rest, "-p") {
			return name + " assigns or unsets variables by names that can hold arithmetic subscripts, evaluated at run time"
		}
	case "alias", "unalias", "shopt", "set", "enable", "hash", "trap", "bind", "complete":
		return name + " changes how bash reads or runs the commands after it"
	case "env":
		for _, a := range rest {
			switch {
			case a == "-S" || strings.HasPrefix(a, "-S") || strings.HasPrefix(a, "--split-string"):
				return "env " + a + " splits a string into a command line at run time"
			case !strings.HasPrefix(a, "-") && strings.Contains(a, "="):
				return "env " + a + " sets a variable for the command"
			case !strings.HasPrefix(a, "-"):
				return ""
			}
		}
	}
	return ""
}

// sedDanger finds sed options and script commands that write files (-i,
// w, W, s///w) or run commands (e, s///e); a script in a file (-f) cannot be
// seen, and neither can a script this reader cannot follow.
func sedDanger(args []string) string {
	var scripts []string
	explicit := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--in-place" || strings.HasPrefix(a, "--in-place="):
			return "sed " + a + " edits files in place"
		case a == "-f" || strings.HasPrefix(a, "--file"):
			return "sed " + a + " runs a script from a file the rules cannot see"
		case a == "-e" || a == "--expression":
			explicit = true
			if i+1 < len(args) {
				scripts = append(scripts, args[i+1])
				i++
			}
		case strings.HasPrefix(a, "--expression="):
			explicit = true
			scripts = append(scripts, strings.TrimPrefix(a, "--expression="))
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j, c := range a[1:] {
				switch c {
				case 'i':
					return "sed " + a + " edits files in place"
				case 'f':
					return "sed " + a + " runs a script from a file the rules cannot see"
				case 'e':
					explicit = true
					if rest := a[2+j:]; rest != "" {
						scripts = append(scripts, rest)
					} else if i+1 < len(args) {
						scripts = append(scripts, args[i+1])
						i++
					}
				}
				if c == 'e' {
					break
				}
			}
		default:
			if !explicit {
				scripts = append(scripts, a)
				explicit = true // later words are files
			}
		}
	}
	for _, s := range scripts {
		if why := sedScriptDanger(s); why != "" {
			return why
		}
	}
	return ""
}

// sedScriptDanger reads a sed script command by command, skipping
// addresses, and reports w, W, e and the w and e flags of s. Text that this
// reader cannot follow counts as dangerous.
func sedScriptDanger(s string) string {
	i := 0
	skipRegex := func(delim byte) bool {
		for i < len(s) && s[i] != delim {
			if s[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(s) {
			return false
		}
		i++
		return true
	}
	for i < len(s) {
		// Address: line numbers, $, /re/, \cREc, ranges and negation.
		for i < len(s) && strings.IndexByte(" \t\n;0123456789$,!~+", s[i]) >= 0 {
			i++
		}
		if i < len(s) && s[i] == '/' {
			i++
			if !skipRegex('/') {
				return "sed runs a script the parser cannot follow"
			}
			continue
		}
		if i < len(s) && s[i] == '\\' && i+1 < len(s) {
			d := s[i+1]
			i += 2
			if !skipRegex(d) {
				return "sed runs a script the parser cannot follow"
			}
			continue
		}
		if i >= len(s) {
			return ""
		}
		c := s[i]
		i++
		switch c {
		case 'w', 'W':
			return "sed " + string(c) + " writes to a file"
		case 'e':
			return "sed e runs a command"
		case 's', 'y':
			if i >= len(s) {
				return "sed runs a script the parser cannot follow"
			}
			d := s[i]
			i++
			for range 2 { // the pattern, then the replacement
				if !skipRegex(d) {
					return "sed runs a script the parser cannot follow"
				}
			}
			for i < len(s) && strings.IndexByte(";\n}", s[i]) < 0 {
				switch s[i] {
				case 'w':
					return "sed s///w writes to a file"
				case 'e':
					return "sed s///e runs a command"
				}
				i++
			}
		case 'a', 'i', 'c', 'r', 'R', 'b', 't', 'T', ':', 'q', 'Q', 'l', 'L':
			// Their argument runs to the end of the line; a ';' does not
			// end a/i/c text in GNU sed.
			for i < len(s) && s[i] != '\n' {
				if c != 'a' && c != 'i' && c != 'c' && s[i] == ';' {
					break
				}
				i++
			}
		case '{', '}', 'p', 'P', 'd', 'D', 'n', 'N', 'g', 'G', 'h', 'H', 'x', '=', 'z', 'F', '#':
			if c == '#' {
				for i < len(s) && s[i] != '\n' {
					i++
				}
			}
		default:
			return "sed runs a script the parser cannot follow"
		}
	}
	return ""
}

// awkDanger reports awk programs that run commands (system(), pipes to or
// from commands) or write files (print > file), and programs it cannot see.
func awkDanger(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-f" || strings.HasPrefix(a, "--file") || a == "-E" || strings.HasPrefix(a, "--exec") ||
			a == "-i" || strings.HasPrefix(a, "--include") || a == "-l" || strings.HasPrefix(a, "--load"):
			return "awk " + a + " runs a program from a file the rules cannot see"
		case a == "-v" || a == "-F":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			switch {
			case awkSystem.MatchString(a):
				return "awk system() runs commands"
			case strings.Contains(a, "|"):
				return "awk | pipes to or from a command"
			case awkWrite.MatchString(a):
				return "awk print > writes to a file"
			case strings.Contains(a, "@load"):
				return "awk @load loads an extension"
			}
			return ""
		}
	}
	return ""
}

var (
	awkSystem = regexp.MustCompile(`\bsystem\s*\(`)
	awkWrite  = regexp.MustCompile(`\bprintf?\b[^;{}]*>`)
)

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
			out = append(out, name+" -c runs a nested command line")
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

const fetchedIntoInterpreter = "pipes downloaded content into an interpreter (curl … | sh)"

// awkCommands returns the command lines an awk program runs through
// system("literal"), and why it runs commands the rules cannot read
// (system() of a computed string, pipes to or from commands, a program in
// a file); both empty for a program that runs none.
func awkCommands(args []string) ([]string, string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-f" || strings.HasPrefix(a, "--file") || a == "-E" || strings.HasPrefix(a, "--exec"):
			return nil, "awk " + a + " runs a program from a file the rules cannot see"
		case a == "-v" || a == "-F":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			var lines []string
			calls := awkSystem.FindAllStringIndex(a, -1)
			for _, m := range calls {
				lit := awkLiteralCall.FindStringSubmatch(a[m[0]:])
				if lit == nil {
					return lines, "awk system() runs a command built when it runs"
				}
				lines = append(lines, awkUnescape(lit[1]))
			}
			if strings.Contains(a, "|") && awkPipe.MatchString(a) {
				return lines, "awk pipes to or from a command the rules cannot read"
			}
			return lines, ""
		}
	}
	return nil, ""
}

var (
	awkLiteralCall = regexp.MustCompile(`^system\s*\(\s*"((?:[^"\\]|\\.)*)"\s*\)`)
	awkPipe        = regexp.MustCompile(`\|\s*(&\s*)?("|[A-Za-z_])|"\s*\|\s*getline`)
)

// awkUnescape reads the escapes of an awk string literal.
func awkUnescape(s string) string {
	r := strings.NewReplacer(`\"`, `"`, `\\`, `\`, `\n`, "\n", `\t`, "\t", `\/`, "/")
	return r.Replace(s)
}
