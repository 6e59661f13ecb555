package approval

import (
	"strings"
	"testing"
)

// TestShellVerdicts is the table of command lines and what the rules make
// of them: covered by an allow rule, asked, or denied, with the warning the
// pane shows. Lines come from bypasses reported against other agents'
// permission rules (gemini-cli's shell-safety tests, codex's
// command_safety tests, public lists of bash obfuscation); add every new
// one here.
func TestShellVerdicts(t *testing.T) {
	allow := func(pattern string) Rule { return Rule{Tool: "shell_run", Match: pattern, Decision: "allow"} }
	deny := func(pattern string) Rule { return Rule{Tool: "shell_run", Match: pattern, Decision: "deny"} }
	const (
		covered = OutcomeAllow
		asks    = OutcomeAsk
		denied  = OutcomeDeny
	)
	tests := []struct {
		line  string
		level Level
		rules []Rule
		want  Outcome
		warn  string // substring of a pane warning or of Verdict.Why; "" for none required
	}{
		// Ordinary lines keep working.
		{"git status", Ask, []Rule{allow("git status*")}, covered, ""},
		{"[[ -f go.mod ]] && go test ./...", Ask, []Rule{allow("go test *")}, covered, ""},
		{"echo $HOME", Ask, []Rule{allow("echo*")}, covered, ""},
		{`echo "$@"`, Ask, []Rule{allow("echo*")}, covered, ""},
		{"echo $((1+2))", Ask, []Rule{allow("echo*")}, covered, ""},
		{"echo ${#HOME} ${HOME%/*} ${HOME:-x} ${arr[@]} ${arr[0]} ${HOME:1:2}", Ask, []Rule{allow("echo*")}, covered, ""},
		{"/usr/bin/ls -la", Ask, []Rule{allow("ls*")}, covered, ""},
		{"ls | wc -l", Ask, []Rule{allow("ls*"), allow("wc*")}, covered, ""},
		{"[[ $# -eq 0 ]] && ls", Ask, []Rule{allow("ls*")}, covered, ""},
		{"sed -n 1,5p file.txt", Ask, []Rule{allow("sed*")}, covered, ""},
		{"sed 's/a/b/g; /x/d' f", Ask, []Rule{allow("sed*")}, covered, ""},
		{"awk '{print $1}' f", Ask, []Rule{allow("awk*")}, covered, ""},
		{"awk '$1 > 5 {print $2}' f", Ask, []Rule{allow("awk*")}, covered, ""},
		{"find . -name '*.go'", Ask, []Rule{allow("find*")}, covered, ""},
		{"rg -n TODO", Ask, []Rule{allow("rg*")}, covered, ""},
		{"git log -n 5 --oneline", Ask, []Rule{allow("git log*")}, covered, ""},
		{"printf '%s\\n' x", Ask, []Rule{allow("printf*")}, covered, ""},
		{"base64 f", Ask, []Rule{allow("base64*")}, covered, ""},

		// Wrappers are judged by the command they run.
		{"timeout 5 go test ./...", Ask, []Rule{allow("go test *")}, covered, ""},
		{"nice -n 5 go test ./...", Ask, []Rule{allow("go test *")}, covered, ""},
		{"command ls", Ask, []Rule{allow("ls*")}, covered, ""},
		{"exec ls", Ask, []Rule{allow("ls*")}, covered, ""},
		{"builtin echo hi", Ask, []Rule{allow("echo*")}, covered, ""},
		{"timeout 5 rm -rf x", Ask, []Rule{allow("timeout*")}, asks, ""},
		{"env rm -rf x", Ask, []Rule{allow("env*")}, asks, ""},
		{"nice rm x", Ask, []Rule{allow("nice*")}, asks, ""},
		{"xargs rm", Ask, []Rule{allow("xargs*")}, asks, ""},
		{"ls | xargs rm", Ask, []Rule{allow("ls*"), allow("rm *")}, covered, ""},
		{"ls | xargs rm -f", Ask, []Rule{allow("ls*"), allow("rm -f")}, asks, ""},
		{"command -v ls", Ask, []Rule{allow("command -v *")}, covered, ""},
		{"env A=1 ls", Ask, []Rule{allow("ls*")}, asks, "env A=1 sets a variable"},
		{"env -S 'rm -rf x' ", Ask, []Rule{allow("env*")}, asks, "env -S splits a string"},
		{"timeout 5 rm x", Full, []Rule{deny("rm *")}, denied, ""},
		{"command rm x", Full, []Rule{deny("rm *")}, denied, ""},
		{"exec rm x", Full, []Rule{deny("rm *")}, denied, ""},

		// Data evaluated as code at run time: not covered, with a warning.
		{`echo '$(touch x)'; echo "${_@P}"`, Ask, []Rule{allow("echo*")}, asks, "@P"},
		{`echo ${!var}`, Ask, []Rule{allow("echo*")}, asks, "name of another variable"},
		{`echo ${!prefix*}`, Ask, []Rule{allow("echo*")}, asks, "name of another variable"},
		{`git status && [[ 'a[$(touch x)]' -eq 0 ]]`, Ask, []Rule{allow("git status*")}, asks, "evaluates its operands as arithmetic"},
		{`[[ $x -lt 3 ]] && ls`, Ask, []Rule{allow("ls*")}, asks, "arithmetic"},
		{`[[ -v 'a[$(touch x)]' ]] && ls`, Ask, []Rule{allow("ls*")}, asks, "[[ -v ]]"},
		{`echo ${a[$_]}`, Ask, []Rule{allow("echo*")}, asks, "subscript as arithmetic"},
		{`echo ${a[i]}`, Ask, []Rule{allow("echo*")}, asks, "subscript as arithmetic"},
		{`echo ${HOME:0:_}`, Ask, []Rule{allow("echo*")}, asks, "offsets as arithmetic"},
		{`echo $((x))`, Ask, []Rule{allow("echo*")}, asks, "as arithmetic"},
		{`echo $(( $x + 1 ))`, Ask, []Rule{allow("echo*")}, asks, "as arithmetic"},
		{`echo $((y=1))`, Ask, []Rule{allow("echo*")}, asks, "as arithmetic"},
		{`(( 1 + 2 )) && ls`, Ask, []Rule{allow("ls*")}, covered, ""},
		{`(( i++ )) && ls`, Ask, []Rule{allow("ls*")}, asks, "as arithmetic"},
		{`[[ x == @(a|b) ]] && ls`, Ask, []Rule{allow("ls*")}, asks, "extglob"},
		{`ls @(a|b)`, Ask, []Rule{allow("ls*")}, asks, "extglob"},
		{`npm test && echo "${x@P}"`, Ask, []Rule{allow("npm test*"), allow("echo*")}, asks, "@P"},
		{`echo "${x@Q}"`, Ask, []Rule{allow("echo*")}, covered, ""},
		{`echo ${x@E}`, Ask, []Rule{allow("echo*")}, asks, "transforms the value"},
		{`read 'a[$(touch x)]' <<< 1; ls`, Ask, []Rule{allow("read*"), allow("ls*")}, asks, "arithmetic subscripts"},
		{`printf -v 'a[$(touch x)]' 1`, Ask, []Rule{allow("printf*")}, asks, "printf -v"},
		{`test -v 'a[$(touch x)]'`, Ask, []Rule{allow("test*")}, asks, "test -v"},
		{`[ -v 'a[$(touch x)]' ]`, Ask, []Rule{allow("[*")}, asks, "[ -v"},
		{`unset 'a[$(touch x)]'`, Ask, []Rule{allow("unset*")}, asks, "arithmetic subscripts"},
		{`shopt -s expand_aliases; ls`, Ask, []Rule{allow("shopt*"), allow("ls*")}, asks, "changes how bash reads"},
		{`alias ls='touch x'`, Ask, []Rule{allow("alias*")}, asks, "changes how bash reads"},
		{`trap 'touch x' EXIT; ls`, Ask, []Rule{allow("trap*"), allow("ls*")}, asks, "changes how bash reads"},
		{`set -x; ls`, Ask, []Rule{allow("set*"), allow("ls*")}, asks, "changes how bash reads"},

		// Arguments that make a reader a writer or an executor.
		{"git -c core.fsmonitor='touch x' status", Ask, []Rule{allow("git *")}, asks, "git -c sets configuration"},
		{"git -ccore.pager=cat status", Ask, []Rule{allow("git *")}, asks, "sets configuration"},
		{"git --config-env=core.pager=X log", Ask, []Rule{allow("git *")}, asks, "sets configuration"},
		{"git -C ../other status", Ask, []Rule{allow("git *")}, asks, "another repository"},
		{"git -C dir push", Full, []Rule{deny("git push*")}, denied, ""},
		{"git --git-dir=x push origin", Full, []Rule{deny("git push*")}, denied, ""},
		{"git log --output=/tmp/x", Ask, []Rule{allow("git log*")}, asks, "--output=/tmp/x writes"},
		{"git diff --output /tmp/x", Ask, []Rule{allow("git diff*")}, asks, "--output writes"},
		{"git show --output=x HEAD", Ask, []Rule{allow("git show*")}, asks, "writes its output"},
		{"git diff --ext-diff", Ask, []Rule{allow("git diff*")}, asks, "external diff"},
		{"git fetch --upload-pack='touch x' origin", Ask, []Rule{allow("git fetch*")}, asks, "names a program"},
		{"find . -exec touch x \\;", Ask, []Rule{allow("find*")}, asks, "find -exec runs a command"},
		{"find . -execdir python3 {} \\;", Ask, []Rule{allow("find*")}, asks, "-execdir"},
		{"find . -ok rm {} \\;", Ask, []Rule{allow("find*")}, asks, "-ok"},
		{"find . -delete", Ask, []Rule{allow("find*")}, asks, "find -delete"},
		{"find . -fprint /etc/x", Ask, []Rule{allow("find*")}, asks, "find -fprint writes"},
		{"find . -fls x", Ask, []Rule{allow("find*")}, asks, "find -fls writes"},
		{"find . -fprintf x '%p'", Ask, []Rule{allow("find*")}, asks, "-fprintf"},
		{"sed -i s/a/b/ f", Ask, []Rule{allow("sed*")}, asks, "sed -i edits"},
		{"sed -ni p f", Ask, []Rule{allow("sed*")}, asks, "edits files in place"},
		{"sed -i.bak s/a/b/ f", Ask, []Rule{allow("sed*")}, asks, "in place"},
		{"sed --in-place s/a/b/ f", Ask, []Rule{allow("sed*")}, asks, "in place"},
		{"sed 'w /tmp/x' f", Ask, []Rule{allow("sed*")}, asks, "sed w writes"},
		{"sed -n '/x/w out' f", Ask, []Rule{allow("sed*")}, asks, "sed w writes"},
		{"sed 's/a/b/w out' f", Ask, []Rule{allow("sed*")}, asks, "s///w"},
		{"sed 's/a/touch x/e' f", Ask, []Rule{allow("sed*")}, asks, "s///e"},
		{"sed '1e touch x' f", Ask, []Rule{allow("sed*")}, asks, "sed e runs"},
		{"sed -e p -e 'w x' f", Ask, []Rule{allow("sed*")}, asks, "writes"},
		{"sed -f script.sed f", Ask, []Rule{allow("sed*")}, asks, "from a file"},
		{`awk 'BEGIN{system("touch x")}'`, Ask, []Rule{allow("awk*")}, asks, "system()"},
		{`awk '{print | "sh"}' f`, Ask, []Rule{allow("awk*")}, asks, "pipes"},
		{`awk '{print > "/tmp/x"}' f`, Ask, []Rule{allow("awk*")}, asks, "writes"},
		{`awk -f prog.awk f`, Ask, []Rule{allow("awk*")}, asks, "from a file"},
		{"rg --pre ./evil TODO", Ask, []Rule{allow("rg*")}, asks, "--pre"},
		{"rg --pre=evil TODO", Ask, []Rule{allow("rg*")}, asks, "--pre"},
		{"rg -z TODO", Ask, []Rule{allow("rg*")}, asks, "decompression"},
		{"base64 -o out f", Ask, []Rule{allow("base64*")}, asks, "writes"},
		{"base64 --output=out f", Ask, []Rule{allow("base64*")}, asks, "writes"},
		{"sort -o out f", Ask, []Rule{allow("sort*")}, asks, "writes"},

		// Deny rules fail closed on command words built at run time.
		{`$'\x74ouch' x`, Full, []Rule{deny("touch*")}, asks, "cannot be checked"},
		{`t${u}ouch x`, Full, []Rule{deny("touch*")}, asks, "built when it runs"},
		{`tou""ch x`, Full, []Rule{deny("touch*")}, denied, ""},
		{`'touch' x`, Full, []Rule{deny("touch*")}, denied, ""},
		{`\touch x`, Full, []Rule{deny("touch*")}, denied, ""},
		{`/???/???/t?uch x`, Full, []Rule{deny("touch*")}, asks, "cannot be checked"},
		{`{touch,x}`, Full, []Rule{deny("touch*")}, asks, "cannot be checked"},
		{`x=touch; $x y`, Full, []Rule{deny("touch*")}, asks, "cannot be checked"},
		{`echo dG91Y2ggeA== | base64 -d | sh`, Full, []Rule{deny("touch*")}, asks, "sh runs"},
		{`python3 -c 'import os; os.system("touch x")'`, Full, []Rule{deny("touch*")}, asks, "python3 runs a program given on the command line"},
		{`perl -e 'system("touch x")'`, Full, []Rule{deny("touch*")}, asks, "perl runs"},
		{`bash -c 'touch x'`, Full, []Rule{deny("touch*")}, denied, ""},
		{`bash -c "$(echo dG91Y2ggeA== | base64 -d)"`, Full, []Rule{deny("touch*")}, asks, "built when it runs"},
		{`eval "tou""ch x"`, Full, []Rule{deny("touch*")}, denied, ""},
		{`eval "$(printf 't%s' ouch) x"`, Full, []Rule{deny("touch*")}, asks, "eval runs code"},
		{`. ./setup.sh`, Full, []Rule{deny("touch*")}, asks, "runs code given as data"},
		{`find . -exec $'\x74ouch' {} +`, Full, []Rule{deny("touch*")}, asks, "cannot be checked"},
		{`$'\x74ouch' x`, Ask, []Rule{deny("touch*"), allow("*")}, asks, "cannot be checked"},
		{`t${u}ouch x`, Full, nil, covered, "built when it runs"},
		{`$x`, Ask, []Rule{allow("ls*")}, asks, ""},
		{"ls", Full, []Rule{deny("touch*")}, covered, ""},
		{"python3 -m pytest", Full, []Rule{deny("rm *")}, asks, "cannot be checked"},

		// Options hit in any order and clustered.
		{"touch -m -a X", Full, []Rule{deny("touch -a *")}, denied, ""},
		{"touch -ma X", Full, []Rule{deny("touch -a *")}, denied, ""},
		{"touch -m X", Full, []Rule{deny("touch -a *")}, covered, ""},
		{"rm -f -r x", Full, []Rule{deny("rm -rf *")}, denied, ""},
		{"git push origin main --force", Full, []Rule{deny("git push --force *")}, denied, ""},
		{"sudo touch -c -a X", Full, []Rule{deny("touch -a *")}, denied, ""},
		// A program that runs commands runs what it runs.
		{`awk 'BEGIN{system("touch X")}'`, Full, []Rule{deny("touch *")}, denied, ""},
		{`awk 'BEGIN{system("/usr/bin/touch X")}'`, Full, []Rule{deny("touch *")}, denied, ""},
		{`awk '{system($0)}' cmds.txt`, Full, []Rule{deny("touch *")}, asks, "built when it runs"},
		{`bash -c 'cd x; touch -m -a y'`, Full, []Rule{deny("touch -a *")}, denied, ""},
		{"find . -name x -{delete,print}", Ask, []Rule{allow("find *")}, asks, "-delete"},
		{"timeout --signal KILL 5 rm -rf build", Ask, []Rule{allow("rm -rf build")}, covered, "rm -r deletes"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			req := shellReq(tt.line)
			if req.Command == nil {
				t.Fatalf("%q does not parse", tt.line)
			}
			p := mustPolicy(t, tt.level, tt.rules...)
			if tt.level == Full {
				p.SetSandbox(activeSandbox) // full runs commands only sandboxed
			}
			v := p.Evaluate(req)
			if v.Outcome != tt.want {
				t.Errorf("Evaluate(%q) under %s = %+v; want %s", tt.line, tt.level, v, tt.want)
			}
			if tt.warn != "" {
				shown := strings.Join(req.Command.Warnings, "\n") + "\n" + v.Why
				if !strings.Contains(shown, tt.warn) {
					t.Errorf("%q: pane warnings %q and reason %q; want one containing %q", tt.line, req.Command.Warnings, v.Why, tt.warn)
				}
			}
		})
	}
}
