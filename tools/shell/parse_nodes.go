package shell

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

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

// callsItself reports whether a function's body runs the function: the
// shape of a fork bomb, :(){ :|:& };:.
func callsItself(f *syntax.FuncDecl) bool {
	if f.Name == nil || f.Body == nil {
		return false
	}
	found := false
	syntax.Walk(f.Body, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 && c.Args[0].Lit() == f.Name.Value {
			found = true
		}
		return !found
	})
	return found
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
