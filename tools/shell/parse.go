package shell

import (
	"bytes"
	"fmt"
	"myclaw/tools"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Parse parses a bash command line. workspace (absolute) is used
// to flag writes outside it; it may be empty.
func Parse(src, workspace string) (tools.CommandLine, error) {
	return parse(src, workspace, 0)
}

// maxDepth bounds how deep command lines run by commands (bash -c, awk's
// system()) are read; deeper ones are not read, and fail closed.
const maxDepth = 4

func parse(src, workspace string, depth int) (tools.CommandLine, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return tools.CommandLine{}, fmt.Errorf("cannot parse the command: %w", err)
	}
	p := &lineParser{workspace: workspace, warned: map[string]bool{}, printer: syntax.NewPrinter(), depth: depth}
	syntax.Walk(f, p.visit)
	for _, n := range p.names {
		switch n {
		case "eval", "source", ".":
			p.warn(n + " runs code that cannot be previewed")
			p.raise(tools.RiskHigh, n+" runs code that cannot be previewed")
		}
	}
	p.raise(tools.RiskLow, "")
	return p.cl, nil
}

// lineParser walks one parsed line, filling in its CommandLine.
type lineParser struct {
	cl        tools.CommandLine
	workspace string
	warned    map[string]bool
	printer   *syntax.Printer
	names     []string // every command name, wrapped ones included
	depth     int      // how deep in command lines run by commands
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
	p.raise(tools.RiskHigh, construct+" "+why)
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
			p.raise(tools.RiskMedium, "starts a background process that may outlive the call")
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
				p.raise(tools.RiskHigh, fetchedIntoInterpreter)
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
		if callsItself(x) {
			p.warn("defines a function that calls itself (a fork bomb spawns processes until the machine stalls)")
			p.raise(tools.RiskHigh, "defines a function that calls itself, as a fork bomb does")
		}
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

// redirect records where a redirection writes.
func (p *lineParser) redirect(x *syntax.Redirect) {
	switch x.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.RdrInOut:
		if x.Word != nil {
			target := p.print(x.Word)
			p.cl.Redirects = append(p.cl.Redirects, target)
			if t, ok := redirectWrites(x); ok && !isNetDevice(target) {
				if t == "a computed file name" {
					t = target
				}
				p.change("writes", t)
			}
			switch {
			case isNetDevice(target):
				p.warn("opens a network connection: " + target)
				p.raise(tools.RiskHigh, "opens a network connection: "+target)
			case isDynamic(target):
				p.warn("writes to a path known only when it runs: " + target)
			case outside(target, p.workspace):
				p.warn("writes outside the workspace: " + target)
			}
		}
	case syntax.RdrIn:
		if x.Word != nil && isNetDevice(p.print(x.Word)) {
			p.warn("opens a network connection: " + p.print(x.Word))
			p.raise(tools.RiskHigh, "opens a network connection: "+p.print(x.Word))
		}
		if x.Word != nil && secret(p.print(x.Word)) {
			p.raise(tools.RiskHigh, "reads a credential store: "+p.print(x.Word))
		}
	}
	if target, ok := redirectWrites(x); ok {
		p.uncover("it writes to " + target + " through a redirection")
	}
}

// call records one simple command: as written, its warnings, its effects
// and what the rules judge.
func (p *lineParser) call(x *syntax.CallExpr) {
	if len(x.Args) == 0 {
		return
	}
	var args []string  // as written
	var words []string // quotes removed where literal
	var literal []bool // the word's value is known
	var written []string
	for i, w := range x.Args {
		shown := p.print(w)
		written = append(written, shown)
		if v, ok := literalWord(w); ok || i == 0 {
			args, words, literal = append(args, shown), append(words, v), append(literal, ok)
			if !ok {
				words[i] = shown
			}
			continue
		}
		// A brace list expands into several words (-{delete,print} is
		// -delete -print): the rules read those.
		if exp, ok := p.braces(w); ok {
			for _, e := range exp {
				args, words, literal = append(args, e), append(words, e), append(literal, true)
			}
			continue
		}
		args, words, literal = append(args, shown), append(words, shown), append(literal, false)
	}
	// Assignments before a command change what it does (PATH=...,
	// LD_PRELOAD=...): show them with it.
	var assigns []string
	for _, a := range x.Assigns {
		assigns = append(assigns, p.print(a))
	}
	p.cl.Commands = append(p.cl.Commands, strings.Join(append(assigns, written...), " "))

	sc := tools.ShellCall{Forms: []string{strings.Join(written, " ")}}
	if expanded := strings.Join(args, " "); expanded != sc.Forms[0] {
		sc.Forms = append(sc.Forms, expanded)
	}
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
		if literal[at] {
			p.effects(cmd)
		} else {
			p.raise(tools.RiskHigh, "runs a command whose name is built when it runs: "+args[at])
		}
		if why := dangerousArgs(cmd); why != "" {
			p.uncover(why)
			p.raise(dangerRisk(why), why)
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
		// A command that runs a command line (bash -c, su -c, awk's
		// system()) counts as running what that line runs.
		if i, ok := commandLineArg(cmd); ok {
			if literal[at+i] {
				p.nested(cmd[i], name+" -c", &sc)
			} else {
				p.opaque(&sc, name+" -c runs a command line built when it runs: "+args[at+i])
			}
		}
		switch name {
		case "awk", "gawk", "mawk", "nawk":
			lines, why := awkCommands(cmd[1:])
			for _, l := range lines {
				p.nested(l, name+" system()", &sc)
			}
			if why != "" {
				p.opaque(&sc, why)
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
	if c, _ := Lookup(j[0]); c.Exact {
		sc.Exact = true
	}
	if fed && len(judged) < len(words) {
		sc.Judged += " …"
	}
	p.cl.Calls = append(p.cl.Calls, sc)
	if isInterpreterName(path.Base(words[0])) {
		for _, w := range x.Args[1:] {
			if feedsFetched(w) {
				p.warn(fetchedIntoInterpreter)
				p.raise(tools.RiskHigh, fetchedIntoInterpreter)
			}
		}
	}
}

// braces expands a word's brace lists when every word they give is
// literal, within a bound.
func (p *lineParser) braces(w *syntax.Word) ([]string, bool) {
	cp := &syntax.Word{Parts: slices.Clone(w.Parts)}
	if !syntax.SplitBraces(cp) {
		return nil, false
	}
	var out []string
	for e, err := range expand.BracesSeq(nil, cp) {
		if err != nil || len(out) >= 256 {
			p.uncover("it uses a brace list too long to read")
			p.raise(tools.RiskHigh, "it uses a brace list too long to read")
			return nil, false
		}
		v, ok := literalWord(e)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	return out, len(out) > 0
}

// opaque records that a call runs something the line does not show: no
// deny rule can be checked against it, no allow rule covers it, and the
// line is high risk.
func (p *lineParser) opaque(sc *tools.ShellCall, why string) {
	if sc.Opaque == "" {
		sc.Opaque = why
	}
	p.uncover(why)
	p.raise(tools.RiskHigh, why)
}

// nested reads a command line that a command runs (bash -c 'line'): its
// commands become readings of this call that deny and ask rules are tried
// on, and its warnings and effects count as the line's. A line that does
// not parse, or nests too deep, fails closed.
func (p *lineParser) nested(line, via string, sc *tools.ShellCall) {
	if p.depth >= maxDepth {
		p.opaque(sc, via+" nests command lines deeper than myclaw reads")
		return
	}
	in, err := parse(line, p.workspace, p.depth+1)
	if err != nil {
		p.opaque(sc, via+" runs a command line that cannot be parsed")
		return
	}
	p.uncover("it runs a nested command line (" + via + ")")
	for _, c := range in.Calls {
		sc.Forms = append(sc.Forms, c.Judged)
		sc.Forms = append(sc.Forms, c.Forms...)
		if sc.Opaque == "" && c.Opaque != "" {
			sc.Opaque = c.Opaque
		}
	}
	for _, w := range in.Warnings {
		p.warn(w)
	}
	if in.Uncovered != "" {
		p.uncover(in.Uncovered)
	}
	p.cl.Redirects = append(p.cl.Redirects, in.Redirects...)
	p.cl.Changes = append(p.cl.Changes, in.Changes...)
	p.raise(in.Risk, in.RiskWhy)
}

// systemBinDir reports whether dir is a standard system directory of
