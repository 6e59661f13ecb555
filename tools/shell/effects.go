package shell

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"myclaw/tools"
)

// Rating a line: every command and redirection raises the line's risk to
// what it does. Low is the floor (reading, building, testing); medium is a
// change inside the workspace the journal can undo; high is what cannot be
// undone or leaves the workspace.

var riskOrder = map[tools.Risk]int{"": 0, tools.RiskLow: 1, tools.RiskMedium: 2, tools.RiskHigh: 3}

// raise lifts the line's risk to r; the first reason at the highest level
// is the one kept.
func (p *lineParser) raise(r tools.Risk, why string) {
	if riskOrder[r] > riskOrder[p.cl.Risk] {
		p.cl.Risk, p.cl.RiskWhy = r, why
	}
}

// notUndoable records the first thing the line does that the journal
// cannot restore, so the pane does not call the call undoable.
func (p *lineParser) notUndoable(why string) {
	if p.cl.NotUndoable == "" {
		p.cl.NotUndoable = why
	}
}

// change records a path the line creates, changes or deletes and rates it:
// outside the workspace, known only at run time or a file later sessions
// trust is high, anything else medium.
func (p *lineParser) change(verb, target string) {
	p.cl.Changes = append(p.cl.Changes, p.rel(target))
	switch {
	case isDynamic(target):
		p.raise(tools.RiskHigh, verb+" a path known only when it runs: "+target)
	case outside(target, p.workspace):
		p.raise(tools.RiskHigh, verb+" "+target+", outside the workspace")
	default:
		if what := tools.TrustedFile(p.rel(target)); what != "" {
			p.raise(tools.RiskHigh, verb+" "+what)
			return
		}
		p.raise(tools.RiskMedium, verb+" "+target+" in the workspace (undo can restore it)")
	}
}

// linkTargets rates what ln links to: a link in the workspace to a path
// outside it is a way out that confined commands cannot take but the
// user's own tools (an editor, a formatter, git) follow later, writing
// where it leads. A relative target is judged as written: "../x" asks
// even where the link's folder makes it stay inside.
func (p *lineParser) linkTargets(ops []string) {
	targets := ops
	if len(ops) > 1 {
		targets = ops[:len(ops)-1]
	}
	for _, t := range targets {
		switch {
		case isDynamic(t):
			p.raise(tools.RiskHigh, "links to a path known only when it runs: "+t)
		case outside(t, p.workspace):
			p.raise(tools.RiskHigh, "links to "+t+", outside the workspace: what follows the link later reaches it")
		}
	}
}

// rel makes an absolute path inside the workspace relative to it.
func (p *lineParser) rel(target string) string {
	if p.workspace != "" && filepath.IsAbs(target) {
		if r, err := filepath.Rel(p.workspace, target); err == nil {
			return filepath.ToSlash(r)
		}
	}
	return target
}

// systemSecrets are system files that hold or guard credentials
// (tools.CredentialStores lists the user's).
var systemSecrets = []string{"/etc/shadow", "/etc/sudoers", "/root"}

// secret reports whether a word names a credential store: one of
// tools.CredentialStores (the same table the sandbox hides, with the
// places the environment moves them to) or a system file.
func secret(w string) bool {
	if tools.NamesCredentialStore(w, os.Getenv) {
		return true
	}
	clean := path.Clean(w)
	for _, s := range systemSecrets {
		if clean == s || strings.HasPrefix(clean, s+"/") {
			return true
		}
	}
	return false
}

// dangerRisk rates what dangerousArgs found: arguments that make a
// command run a program the line does not show, point it elsewhere or
// write where the line does not say are high; the rest (sed -i, find
// -exec or awk system() whose commands are read and rated themselves,
// setting variables) medium.
func dangerRisk(why string) tools.Risk {
	if strings.HasSuffix(why, "runs a command on every match") {
		return tools.RiskLow // find -exec: the command it runs is rated itself
	}
	for _, s := range []string{"can run commands", "names a program", "runs external", "decompression programs",
		"e runs a command", "from a file the rules cannot see", "splits a string", "pipes to or from",
		"loads an extension", "writes to a file", "writes its output to a file", "another repository", "cannot follow"} {
		if strings.Contains(why, s) {
			return tools.RiskHigh
		}
	}
	return tools.RiskMedium
}

// operands returns the words after the options: "--" ends the options.
func operands(rest []string) []string {
	var out []string
	options := true
	for _, a := range rest {
		switch {
		case options && a == "--":
			options = false
		case options && strings.HasPrefix(a, "-") && len(a) > 1:
		default:
			out = append(out, a)
		}
	}
	return out
}

// effects rates one command (wrappers are rated by the command they run,
// each in its own call).
func (p *lineParser) effects(cmd []string) {
	name := path.Base(cmd[0])
	rest := cmd[1:]
	for _, a := range rest {
		v := a
		if i := strings.IndexByte(a, '='); i > 0 && strings.HasPrefix(a, "-") {
			v = a[i+1:]
		}
		if secret(v) {
			p.raise(tools.RiskHigh, name+" reaches a credential store: "+v)
		}
	}
	if where := wholeTree(name, rest); where != "" {
		p.raise(tools.RiskHigh, name+" reads "+where)
	}
	c, known := Lookup(name)
	switch name {
	case "sudo", "doas", "su", "pkexec", "runuser":
		p.raise(tools.RiskHigh, name+" runs a command as another user")
		return
	case "kill":
		for _, a := range operands(rest) {
			if !strings.HasPrefix(a, "%") {
				p.raise(tools.RiskHigh, "kill signals processes other than this call's: kill "+strings.Join(rest, " "))
				return
			}
		}
		if len(rest) > 0 && (rest[len(rest)-1] == "-1" || rest[len(rest)-1] == "0") {
			p.raise(tools.RiskHigh, "kill signals every process it can reach")
		}
		p.raise(tools.RiskMedium, "kill stops a job of this line")
		return
	case "pkill", "killall", "skill", "xkill":
		p.raise(tools.RiskHigh, name+" signals processes by name, other than this call's")
		return
	case "shutdown", "reboot", "halt", "poweroff", "systemctl", "service", "launchctl", "crontab", "at", "mount", "umount", "swapon", "iptables", "nft", "useradd", "usermod", "passwd":
		p.raise(tools.RiskHigh, name+" changes the system outside the workspace")
		return
	case "setsid", "nohup", "disown":
		p.raise(tools.RiskMedium, name+" detaches a process from the call")
		return
	case "dd", "mkfs", "fdisk", "sfdisk", "parted", "wipefs", "mkswap":
		p.raise(tools.RiskHigh, name+" writes raw data and cannot be undone")
		return
	case "git":
		p.gitEffects(rest)
		return
	case "find":
		p.findEffects(rest)
		return
	case "sed", "gsed":
		p.sedEffects(rest)
		return
	case "go", "npm", "pnpm", "yarn", "pip", "pip3", "uv", "poetry":
		p.buildEffects(name, rest)
		return
	case "curl", "wget":
		for _, a := range rest {
			if a == "-T" || a == "--upload-file" || a == "-F" || a == "--form" || strings.HasPrefix(a, "-d") || strings.HasPrefix(a, "--data") || a == "--post-file" || strings.HasPrefix(a, "--post-file=") {
				p.raise(tools.RiskHigh, name+" "+a+" sends data out of the workspace")
				return
			}
		}
	}
	if strings.HasPrefix(name, "mkfs.") {
		p.raise(tools.RiskHigh, name+" writes raw data and cannot be undone")
		return
	}
	if c.Network && c.Effect != Reads {
		p.raise(tools.RiskHigh, name+" connects to another machine")
		return
	}
	if c.Network {
		p.raise(tools.RiskMedium, name+" reaches the network")
	}
	ops := operands(rest)
	switch c.Effect {
	case Reads, Builds:
		p.raise(tools.RiskLow, "")
	case Writes:
		verb := "writes"
		if name == "mkdir" {
			verb = "creates"
		}
		for _, o := range ops {
			p.change(verb, o)
		}
	case Deletes:
		for _, o := range ops {
			p.change("deletes", o)
		}
	case Moves:
		for _, o := range ops {
			p.change("moves", o)
		}
	case Copies:
		switch {
		case name == "ln" && len(ops) == 1:
			// ln TARGET makes a link named as TARGET's last element, here.
			p.change("writes", path.Base(ops[0]))
		case len(ops) > 0:
			p.change("writes", ops[len(ops)-1])
		}
		if name == "ln" {
			p.linkTargets(ops)
		}
	case Chmods:
		if len(ops) > 1 {
			for _, o := range ops[1:] {
				p.change("changes the mode of", o)
			}
		}
	default:
		switch {
		case !known && !c.Runs:
			p.raise(tools.RiskMedium, name+" is not a command myclaw knows the effects of")
		case c.Interpreter:
			p.raise(tools.RiskMedium, name+" runs a program whose effects are not known")
		}
	}
}

// buildEffects rates package managers and go: tests, builds and scripts
// are low; what installs or changes dependencies is medium.
func (p *lineParser) buildEffects(name string, rest []string) {
	sub := ""
	if ops := operands(rest); len(ops) > 0 {
		sub = ops[0]
	}
	for _, a := range rest {
		if a == "-g" || a == "--global" || a == "--user" || a == "--system" {
			p.raise(tools.RiskHigh, name+" "+a+" installs outside the workspace")
			return
		}
	}
	switch sub {
	case "test", "build", "vet", "run", "list", "version", "env", "doc", "fmt", "ls", "outdated", "audit", "why", "lint", "check", "show", "freeze", "t", "tool":
		p.raise(tools.RiskLow, "")
	default:
		p.raise(tools.RiskMedium, name+" "+sub+" changes dependencies or generated files")
	}
}

// findEffects rates find: a walk of the whole disk or a home folder is
// high, -delete deletes its roots' contents.
func (p *lineParser) findEffects(rest []string) {
	var roots []string
	for _, a := range rest {
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
			break
		}
		roots = append(roots, a)
	}
	for _, r := range roots {
		if clean := path.Clean(r); clean == "/" || r == "~" || r == "$HOME" || clean == "/home" || clean == "/Users" {
			p.raise(tools.RiskHigh, "find "+r+" walks the whole disk or a home folder")
			return
		}
	}
	if slices.Contains(rest, "-delete") {
		if len(roots) == 0 {
			roots = []string{"."}
		}
		for _, r := range roots {
			p.change("deletes files under", r)
		}
		return
	}
	p.raise(tools.RiskLow, "")
}

// sedEffects rates sed: -i edits its file operands in place.
func (p *lineParser) sedEffects(rest []string) {
	inPlace, script := false, false
	var files []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "-e" || a == "--expression" || a == "-f" || a == "--file":
			script = true
			i++
		case strings.HasPrefix(a, "--in-place"):
			inPlace = true
		case strings.HasPrefix(a, "--expression=") || strings.HasPrefix(a, "--file="):
			script = true
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && len(a) > 1:
			if strings.ContainsRune(a[1:], 'i') {
				inPlace = true
			}
			if j := strings.IndexAny(a[1:], "ef"); j >= 0 {
				script = true
				if j == len(a)-2 {
					i++
				}
			}
		case strings.HasPrefix(a, "-"):
		case !script:
			script = true
		default:
			files = append(files, a)
		}
	}
	if !inPlace {
		p.raise(tools.RiskLow, "")
		return
	}
	for _, f := range files {
		p.change("edits", f)
	}
	if len(files) == 0 {
		p.raise(tools.RiskMedium, "sed -i edits files in place")
	}
}

// recursiveReaders read every file under their operands.
var recursiveReaders = map[string]bool{"rg": true, "ag": true, "ack": true, "du": true, "tar": true, "rsync": true, "zip": true, "tree": true}

// wholeTree says what a recursive read of the whole disk or a home folder
// takes in ("your whole home folder (~)"), or "": everything a secret
// could hide in, far from the workspace.
func wholeTree(name string, rest []string) string {
	recursive := recursiveReaders[name]
	for _, a := range rest {
		if a == "--recursive" || a == "--dereference-recursive" || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a[1:], "rR") && (name == "grep" || name == "egrep" || name == "fgrep" || name == "ls" || name == "cp" || name == "chmod" || name == "chown") {
			recursive = true
		}
	}
	if !recursive {
		return ""
	}
	for _, a := range operands(rest) {
		switch clean := path.Clean(a); {
		case clean == "/":
			return "the whole disk (/)"
		case a == "~" || a == "~/" || a == "$HOME" || a == "${HOME}" || a == "$HOME/" || clean == "/home" || clean == "/root" || clean == "/Users":
			return "your whole home folder (" + a + ")"
		}
	}
	return ""
}
