package builtin

import (
	"bytes"
	"fmt"
	"myclaw/tools"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ParseCommandLine parses a bash command line. workspace (absolute) is used
// to flag writes outside it; it may be empty.
func ParseCommandLine(src, workspace string) (tools.CommandLine, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return tools.CommandLine{}, fmt.Errorf("cannot parse the command: %w", err)
	}
	p := &lineParser{workspace: workspace, warned: map[string]bool{}, printer: syntax.NewPrinter()}
	syntax.Walk(f, p.visit)
	for _, n := range p.names {
		switch n {
		case "eval", "source", ".":
			p.warn(n + " runs code that cannot be previewed")
		}
	}
	return p.cl, nil
}

// lineParser walks one parsed line, filling in its CommandLine.
type lineParser struct {
	cl        tools.CommandLine
	workspace string
	warned    map[string]bool
	printer   *syntax.Printer
	names     []string // every command name, wrapped ones included
}

func (p *lineParser) warn(s string) {
	if !p.warned[s] {
		p.warned[s] = true
		p.cl.Warnings = append(p.cl.Warnings, s)
	}
}

// uncover records why allow rules cannot cover the line; the first reason
// is the one given.
func (p *lineParser) uncover(why string) {
	if p.cl.Uncovered == "" {
		p.cl.Uncovered = why
	}
}

// evaluates records a construct that makes bash evaluate data as code at
// run time: not covered, and a warning in the pane.
func (p *lineParser) evaluates(construct, why string) {
	p.uncover("it uses " + construct + ", which " + why)
	p.warn(construct + " " + why)
}

func (p *lineParser) print(n syntax.Node) string {
	if w, ok := n.(*syntax.Word); ok {
		if lit := w.Lit(); lit != "" {
			return lit
		}
	}
	var b bytes.Buffer
	_ = p.printer.Print(&b, n)
	return b.String()
}

// visit is the syntax.Walk callback. Every node type the guard knows is
// named here; anything else is not covered, so syntax added to the parser
// later fails safe.
func (p *lineParser) visit(n syntax.Node) bool {
	switch x := n.(type) {
	case nil:
		return false
	case *syntax.File, *syntax.Comment, *syntax.Subshell, *syntax.Block,
		*syntax.IfClause, *syntax.WhileClause, *syntax.Word, *syntax.Lit,
		*syntax.SglQuoted, *syntax.DblQuoted, *syntax.CmdSubst, *syntax.CaseClause, *syntax.CaseItem,
		*syntax.ParenTest, *syntax.ProcSubst, *syntax.TimeClause, *syntax.BraceExp:
	case *syntax.Stmt:
		if x.Background {
			p.warn("starts a background process that may outlive the call")
		}
	case *syntax.CallExpr:
		if len(x.Assigns) > 0 {
			p.uncover("it sets shell variables")
		}
		p.call(x)
	case *syntax.Redirect:
		p.redirect(x)
	case *syntax.BinaryCmd:
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			if isFetcher(x.X) && isInterpreter(x.Y) {
				p.warn(fetchedIntoInterpreter)
			}
		}
	case *syntax.ParamExp:
		p.paramExp(x)
	case *syntax.TestClause:
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			p.evaluates("[[ "+x.Op.String()+" ]]", "evaluates an array subscript in its operand as arithmetic at run time")
		}
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			for _, side := range []syntax.TestExpr{x.X, x.Y} {
				if w, ok := side.(*syntax.Word); !ok || !inertNumber(w) {
					p.evaluates("[[ "+x.Op.String()+" ]] on "+p.print(side), "evaluates its operands as arithmetic, and a value can hold a[$(command)]")
				}
			}
		}
	case *syntax.ExtGlob:
		p.evaluates("the extglob pattern "+x.Op.String()+"("+x.Pattern.Value+")", "is matched by bash at run time in ways the rules cannot follow")
	case *syntax.ArithmExp:
		p.arithm(x.X, "$(( ))")
	case *syntax.ArithmCmd:
		p.arithm(x.X, "(( ))")
	case *syntax.BinaryArithm, *syntax.UnaryArithm, *syntax.ParenArithm:
		// Checked from the expression's root (arithm).
	case *syntax.Assign, *syntax.DeclClause, *syntax.ArrayExpr, *syntax.ArrayElem,
		*syntax.ForClause, *syntax.WordIter, *syntax.CoprocClause:
		p.uncover("it sets shell variables")
	case *syntax.LetClause, *syntax.FlagsArithm, *syntax.CStyleLoop:
		p.uncover("it uses shell arithmetic, which can set variables")
	case *syntax.FuncDecl:
		p.uncover("it defines shell functions")
	default:
		p.uncover(fmt.Sprintf("it uses shell syntax (%T) that allow rules do not cover", n))
	}
	return true
}

// paramExp fails closed on parameter expansions that evaluate a value:
// indirection, arithmetic subscripts and offsets, prompt expansion.
func (p *lineParser) paramExp(x *syntax.ParamExp) {
	text := p.print(x)
	switch {
	case x.Excl || x.Names != 0:
		p.evaluates(text, "uses a value as the name of another variable at run time")
	case x.Index != nil && !inertSubscript(x.Index):
		p.evaluates(text, "evaluates its subscript as arithmetic at run time, and a value can hold a[$(command)]")
	case x.Slice != nil && (!inertArithm(x.Slice.Offset) || !inertArithm(x.Slice.Length)):
		p.evaluates(text, "evaluates its offsets as arithmetic at run time, and a value can hold a[$(command)]")
	case x.Exp != nil:
		switch x.Exp.Op {
		case syntax.AssignUnset, syntax.AssignUnsetOrNull:
			p.uncover("it sets shell variables")
		case syntax.OtherParamOps:
			switch x.Exp.Word.Lit() {
			case "Q", "U", "u", "L":
			default:
				p.evaluates(text, "transforms the value at run time (@P runs the command substitutions a value holds)")
			}
		}
	}
}

// arithm fails closed on arithmetic that is not plain numbers: a variable
// in arithmetic is itself evaluated as an expression, and assignments
// change what later commands see.
func (p *lineParser) arithm(x syntax.ArithmExpr, form string) {
	if !inertArithm(x) {
		p.evaluates(form+" on "+p.print(x), "evaluates variables and assignments as arithmetic at run time, and a value can hold a[$(command)]")
	}
}

// inertArithm reports whether an arithmetic expression only combines
// number literals and the shell's numeric specials ($#, $?, $$, $!)
// without assigning. A nil expression is inert.
func inertArithm(x syntax.ArithmExpr) bool {
	switch x := x.(type) {
	case nil:
		return true
	case *syntax.Word:
		return inertNumber(x)
	case *syntax.ParenArithm:
		return inertArithm(x.X)
	case *syntax.UnaryArithm:
		return x.Op != syntax.Inc && x.Op != syntax.Dec && inertArithm(x.X)
	case *syntax.BinaryArithm:
		if x.Op >= syntax.Assgn && x.Op <= syntax.PowAssgn {
			return false
		}
		return inertArithm(x.X) && inertArithm(x.Y)
	}
	return false
}

// inertSubscript is inertArithm, plus the whole-array subscripts @ and *.
func inertSubscript(x syntax.ArithmExpr) bool {
	if w, ok := x.(*syntax.Word); ok && (w.Lit() == "@" || w.Lit() == "*") {
		return true
	}
	return inertArithm(x)
}

// inertNumber reports whether a word is a number literal or a numeric
// special parameter, whose value arithmetic cannot turn into code.
func inertNumber(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	switch x := w.Parts[0].(type) {
	case *syntax.Lit:
		v := strings.TrimPrefix(strings.TrimPrefix(x.Value, "-"), "0x")
		return v != "" && strings.Trim(strings.ToLower(v), "0123456789abcdef#") == "" && (x.Value[0] >= '0' && x.Value[0] <= '9' || x.Value[0] == '-')
	case *syntax.ParamExp:
		if x.Param == nil || x.Exp != nil || x.Index != nil || x.Slice != nil || x.Repl != nil || x.Excl || x.Names != 0 {
			return false
		}
		switch x.Param.Value {
		case "#", "?", "$", "!":
			return true
		}
	}
	return false
}

// redirect records where a redirection writes.
func (p *lineParser) redirect(x *syntax.Redirect) {
	switch x.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.RdrInOut:
		if x.Word != nil {
			target := p.print(x.Word)
			p.cl.Redirects = append(p.cl.Redirects, target)
			switch {
			case isNetDevice(target):
				p.warn("opens a network connection: " + target)
			case isDynamic(target):
				p.warn("writes to a path known only when it runs: " + target)
			case outside(target, p.workspace):
				p.warn("writes outside the workspace: " + target)
			}
		}
	case syntax.RdrIn:
		if x.Word != nil && isNetDevice(p.print(x.Word)) {
			p.warn("opens a network connection: " + p.print(x.Word))
		}
	}
	if target, ok := redirectWrites(x); ok {
		p.uncover("it writes to " + target + " through a redirection")
	}
}

// redirectWrites reports whether a redirection writes to a file, and which.
// Duplicating a descriptor (2>&1) and writing to the standard device sinks
// are fine.
func redirectWrites(r *syntax.Redirect) (string, bool) {
	target := ""
	if r.Word != nil {
		target = r.Word.Lit()
	}
	switch r.Op {
	case syntax.RdrIn, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return "", false
	case syntax.DplOut:
		// >&N, >&N- and >&- only move descriptors; >&word writes to a file.
		if fd := strings.TrimSuffix(target, "-"); target == "-" || fd != "" && strings.Trim(fd, "0123456789") == "" {
			return "", false
		}
	}
	switch target {
	case "/dev/null", "/dev/stdout", "/dev/stderr":
		return "", false
	case "":
		return "a computed file name", true
	}
	return target, true
}

// call records one simple command: as written, its warnings, and what the
// rules judge.
func (p *lineParser) call(x *syntax.CallExpr) {
	if len(x.Args) == 0 {
		return
	}
	args := make([]string, len(x.Args))  // as written
	words := make([]string, len(x.Args)) // quotes removed where literal
	literal := make([]bool, len(x.Args)) // the word's value is known
	for i, w := range x.Args {
		args[i] = p.print(w)
		words[i], literal[i] = literalWord(w)
		if !literal[i] {
			words[i] = args[i]
		}
	}
	// Assignments before a command change what it does (PATH=...,
	// LD_PRELOAD=...): show them with it.
	var assigns []string
	for _, a := range x.Assigns {
		assigns = append(assigns, p.print(a))
	}
	p.cl.Commands = append(p.cl.Commands, strings.Join(append(assigns, args...), " "))

	sc := tools.ShellCall{Forms: []string{strings.Join(args, " ")}}
	words = words[:len(words):len(words)]
	judged := words
	fed := false // xargs adds arguments
	// A wrapper (sudo, env, xargs, ...) runs the command after its own
	// options: analyse that one too.
	for cmd := words; len(cmd) > 0; cmd = unwrap(cmd) {
		// unwrap only reslices words, so the capacity tells where cmd
		// starts in it.
		at := cap(words) - cap(cmd)
		name := path.Base(cmd[0])
		p.names = append(p.names, name)
		for _, s := range commandWarnings(cmd, p.workspace) {
			p.warn(s)
		}
		if why := dangerousArgs(cmd); why != "" {
			p.uncover(why)
			if !strings.HasPrefix(why, "env ") || strings.Contains(why, "-S") {
				p.warn(why) // an assignment shows in the command itself
			}
		}
		if sc.Opaque == "" {
			if !literal[at] {
				sc.Opaque = "its name " + args[at] + " is built when it runs"
			} else if why := opaqueCommand(cmd); why != "" {
				sc.Opaque = why
			}
		}
		if at > 0 {
			sc.Forms = append(sc.Forms, strings.Join(cmd, " "))
		}
		if name == "git" {
			sc.Forms = append(sc.Forms, strings.Join(append([]string{"git"}, gitSubcommand(cmd[1:])...), " "))
		}
		if name == "xargs" {
			fed = true
		}
		if peelsForAllow(cmd) {
			judged = unwrap(cmd)
			if judged == nil {
				judged = cmd
			}
		}
	}
	if sc.Opaque != "" && !literal[0] {
		p.warn("runs a command whose name is built when it runs: " + args[0])
	}
	j := slices.Clone(judged)
	if len(j) > 0 && systemBinDir(path.Dir(j[0])) {
		j[0] = path.Base(j[0])
	}
	sc.Judged = strings.Join(j, " ")
	if fed && len(judged) < len(words) {
		sc.Judged += " …"
	}
	p.cl.Calls = append(p.cl.Calls, sc)
	if isInterpreterName(path.Base(words[0])) {
		for _, w := range x.Args[1:] {
			if feedsFetched(w) {
				p.warn(fetchedIntoInterpreter)
			}
		}
	}
}

// literalWord returns a word's value when the line alone determines it:
// literal text and quotes, without expansions, globs, brace lists or
// ANSI-C escapes.
func literalWord(w *syntax.Word) (string, bool) {
	var b strings.Builder
	var lit func(parts []syntax.WordPart, quoted bool) bool
	lit = func(parts []syntax.WordPart, quoted bool) bool {
		for _, part := range parts {
			switch x := part.(type) {
			case *syntax.Lit:
				v := x.Value
				if !quoted && (strings.ContainsAny(v, "*?[~") || strings.Contains(v, "{") && strings.ContainsAny(v, ",.")) {
					return false
				}
				for i := 0; i < len(v); i++ {
					if v[i] == '\\' && i+1 < len(v) {
						i++
						if quoted && !strings.ContainsRune("$`\"\\\n", rune(v[i])) {
							b.WriteByte('\\')
						}
					}
					b.WriteByte(v[i])
				}
			case *syntax.SglQuoted:
				if x.Dollar {
					return false
				}
				b.WriteString(x.Value)
			case *syntax.DblQuoted:
				if x.Dollar || !lit(x.Parts, true) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	if !lit(w.Parts, false) {
		return "", false
	}
	return b.String(), true
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
			if !skipRegex(d) || !skipRegex(d) {
				return "sed runs a script the parser cannot follow"
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
