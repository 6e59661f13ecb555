package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"myclaw/app"
	"regexp"
	"strings"
)

// Shell completions: `myclaw completion bash|zsh|fish` prints a script
// built from the real flag sets, so a new flag is completed without
// touching this file.

// completionModes are the words that start a mode other than the main
// one; flagModes are those with flags of their own.
var (
	completionModes = []string{"undo", "redo", "history", "sessions", "sandbox-check", "mcp", "acp", "version", "completion"}
	flagModes       = []string{"undo", "redo", "history", "sessions", "sandbox-check", "acp"}
)

// flagDoc is one flag as its usage line shows it.
type flagDoc struct {
	name  string
	usage string
	value bool // takes an argument
}

// flagValues completes the arguments of some flags.
var flagValues = map[string]string{
	"autonomy": "readonly ask auto-edit full",
	"output":   "text json",
	"sandbox":  "on off",
}

// modeFlags reads the flags of a mode from its -h output, which is what
// users see too.
func modeFlags(mode string) []flagDoc {
	args := []string{"-h"}
	if mode != "main" {
		args = []string{mode, "-h"}
	}
	var help bytes.Buffer
	_ = dispatch(context.Background(), args, nil, strings.NewReader(""), io.Discard, &help)
	var out []flagDoc
	for _, line := range strings.Split(help.String(), "\n") {
		if m := flagLine.FindStringSubmatch(line); m != nil {
			out = append(out, flagDoc{name: m[1], value: m[2] != "", usage: strings.TrimSpace(m[3])})
		} else if strings.HasPrefix(line, "    ") && len(out) > 0 && out[len(out)-1].usage == "" {
			out[len(out)-1].usage = strings.TrimSpace(line)
		}
	}
	return out
}

// flagLine is one flag of the help: "  --model name    model name ...",
// the usage possibly on the next line.
var flagLine = regexp.MustCompile(`^  --?([^\s-]\S*)(?: (\S+))?(?:\s{2,}(.*))?$`)

// dashed is how a flag is offered: --name, or -p for one letter.
func (f flagDoc) dashed() string {
	if len(f.name) == 1 {
		return "-" + f.name
	}
	return "--" + f.name
}

// brief is the usage cut to a short description without quoting trouble.
func (f flagDoc) brief() string {
	s := f.usage
	if i := strings.Index(s, " ("); i > 0 {
		s = s[:i]
	}
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune("[]:'\"`\\$", r) {
			return -1
		}
		return r
	}, s)
}

func runCompletion(args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return &app.UsageError{Msg: "completion takes one shell: bash, zsh or fish"}
	}
	var script string
	switch args[0] {
	case "bash":
		script = bashCompletion()
	case "zsh":
		script = zshCompletion()
	case "fish":
		script = fishCompletion()
	default:
		return &app.UsageError{Msg: fmt.Sprintf("completion: unknown shell %q; want bash, zsh or fish", args[0])}
	}
	_, err := io.WriteString(stdout, script)
	return err
}

// flagArgCompletion says how each shell completes a flag's argument.
func flagArg(f flagDoc) (bash, zsh, fish string) {
	switch {
	case flagValues[f.name] != "":
		v := flagValues[f.name]
		return `compgen -W "` + v + `" -- "$cur"`, "(" + v + ")", "-x -a '" + v + "'"
	case f.name == "config":
		return `compgen -f -- "$cur"`, "_files", "-r -F"
	case f.name == "workspace":
		return `compgen -d -- "$cur"`, "_files -/", "-x -a '(__fish_complete_directories)'"
	}
	return "", " ", "-x"
}

func bashCompletion() string {
	var b strings.Builder
	b.WriteString("# bash completion for myclaw. Load it with: source <(myclaw completion bash)\n")
	b.WriteString("_myclaw() {\n\tlocal cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n")
	b.WriteString("\tlocal mode=main\n\tcase \"${COMP_WORDS[1]}\" in\n\t" + strings.Join(completionModes, "|") + ") mode=\"${COMP_WORDS[1]}\" ;;\n\tesac\n")
	b.WriteString("\tif [ \"$mode\" = completion ]; then\n\t\t[ \"$COMP_CWORD\" -eq 2 ] && COMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\"))\n\t\treturn\n\tfi\n")
	b.WriteString("\tcase \"$mode:$prev\" in\n")
	for _, mode := range append([]string{"main"}, flagModes...) {
		for _, f := range modeFlags(mode) {
			if !f.value {
				continue
			}
			arg, _, _ := flagArg(f)
			fmt.Fprintf(&b, "\t%s:-%s | %s:--%s) ", mode, f.name, mode, f.name)
			if arg != "" {
				fmt.Fprintf(&b, "COMPREPLY=($(%s)) ;", arg)
			}
			b.WriteString(" return ;;\n")
		}
	}
	b.WriteString("\tesac\n\tlocal words\n\tcase \"$mode\" in\n")
	for _, mode := range append(append([]string{"main"}, flagModes...), "version") {
		var words []string
		if mode == "main" {
			words = append(words, completionModes...)
		}
		if mode != "version" {
			for _, f := range modeFlags(mode) {
				words = append(words, f.dashed())
			}
		}
		fmt.Fprintf(&b, "\t%s) words=%q ;;\n", mode, strings.Join(words, " "))
	}
	b.WriteString("\tesac\n\tCOMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n}\ncomplete -o filenames -F _myclaw myclaw\n")
	return b.String()
}

func zshCompletion() string {
	spec := func(mode string) string {
		var parts []string
		for _, f := range modeFlags(mode) {
			s := "'" + f.dashed() + "[" + f.brief() + "]"
			if f.value {
				_, arg, _ := flagArg(f)
				s += ":" + f.name + ":" + arg
			}
			parts = append(parts, s+"'")
		}
		return strings.Join(parts, " \\\n\t\t\t")
	}
	var b strings.Builder
	b.WriteString("#compdef myclaw\n# zsh completion for myclaw. Put it in a folder of $fpath as _myclaw,\n# or load it with: source <(myclaw completion zsh)\n")
	b.WriteString("_myclaw() {\n\tcase $words[2] in\n")
	for _, mode := range flagModes {
		fmt.Fprintf(&b, "\t%s)\n\t\tshift words; (( CURRENT-- ))\n\t\t_arguments %s ;;\n", mode, spec(mode))
	}
	b.WriteString("\tversion) ;;\n\tcompletion) (( CURRENT == 3 )) && _values shell bash zsh fish ;;\n")
	fmt.Fprintf(&b, "\t*)\n\t\t_arguments %s \\\n\t\t\t'1::command:(%s)' ;;\n", spec("main"), strings.Join(completionModes, " "))
	b.WriteString("\tesac\n}\nif [ \"$funcstack[1]\" = _myclaw ]; then\n\t_myclaw \"$@\"\nelse\n\tcompdef _myclaw myclaw\nfi\n")
	return b.String()
}

func fishCompletion() string {
	var b strings.Builder
	b.WriteString("# fish completion for myclaw. Load it with: myclaw completion fish | source\n")
	b.WriteString("complete -c myclaw -f\n")
	fmt.Fprintf(&b, "complete -c myclaw -n __fish_use_subcommand -a '%s'\n", strings.Join(completionModes, " "))
	b.WriteString("complete -c myclaw -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n")
	for _, mode := range append([]string{"main"}, flagModes...) {
		cond := "__fish_seen_subcommand_from " + mode
		if mode == "main" {
			cond = "not __fish_seen_subcommand_from " + strings.Join(completionModes, " ")
		}
		for _, f := range modeFlags(mode) {
			opt := "-l " + f.name
			if len(f.name) == 1 {
				opt = "-s " + f.name
			}
			arg := ""
			if f.value {
				_, _, arg = flagArg(f)
				arg = " " + arg
			}
			fmt.Fprintf(&b, "complete -c myclaw -n '%s' %s%s -d '%s'\n", cond, opt, arg, f.brief())
		}
	}
	return b.String()
}
