package approval

import (
	"encoding/json"
	"strings"
	"testing"

	"myclaw/tools"
	"myclaw/tools/builtin"
	"myclaw/tools/shell"
)

var shellMeta = tools.Meta{Name: "shell_run", Shell: true, Risk: tools.RiskHigh, ReturnsUntrusted: true, Capability: "shell:exec", Source: tools.SourceBuiltin}

// shellReq builds the request the agent would make for a shell_run call:
// the parsed line (nil when it does not parse) and the args holding it.
func shellReq(command string) Request {
	args, _ := json.Marshal(map[string]string{"command": command}) // cannot fail for strings
	req := Request{CallID: "c1", Tool: "shell_run", Meta: shellMeta, Args: args, Capability: "shell:exec", Summary: "Run `" + command + "`"}
	if cl, err := builtin.ParseCommandLine(command, "/ws"); err == nil {
		req.Command = &cl
	}
	return req
}

func mustPolicy(t *testing.T, level Level, rules ...Rule) *Policy {
	t.Helper()
	p, err := NewPolicy(level, rules)
	if err != nil {
		t.Fatalf("NewPolicy(%q, %v): %v", level, rules, err)
	}
	return p
}

func TestGlob(t *testing.T) {
	tests := []struct {
		pattern string
		yes, no []string
	}{
		{"shell_run", []string{"shell_run"}, []string{"shell_runner", "shell", ""}},
		{"fs_*", []string{"fs_write", "fs_", "fs_a/b"}, []string{"glob_list", "xfs_write"}},
		{"github/*", []string{"github/create_issue", "github/a/b"}, []string{"gitlab/x", "github"}},
		{"*", []string{"", "anything/at all"}, nil},
		{"fs:write:src/**", []string{"fs:write:src/a.go", "fs:write:src/deep/er/x"}, []string{"fs:write:srcx", "fs:write:docs/a"}},
		{"a?c", []string{"abc", "aéc"}, []string{"ac", "abbc"}},
		{"*.go", []string{"x.go", ".go", "a/b/c.go"}, []string{"x.gox"}},
		{"a*b*c", []string{"abc", "aXbYc", "abbbc", "acbc"}, []string{"acb", "ab"}},
		{"{go test,git status} *", []string{"go test ./...", "git status x"}, []string{"go build x", "go test"}},
		{"x{a,{b,c}d}y", []string{"xay", "xbdy", "xcdy"}, []string{"xby", "xdy"}},
		{`\*\?\{\}\,\\`, []string{`*?{},\`}, []string{`a?{},\`}},
		{"a,b", []string{"a,b"}, []string{"a", "b"}},
		{"[abc]", []string{"[abc]"}, []string{"a"}},
		{"{}", []string{""}, []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			g, err := compileGlob(tt.pattern)
			if err != nil {
				t.Fatalf("compileGlob(%q): %v", tt.pattern, err)
			}
			for _, s := range tt.yes {
				if !g.match(s) {
					t.Errorf("match(%q) = false; want true", s)
				}
			}
			for _, s := range tt.no {
				if g.match(s) {
					t.Errorf("match(%q) = true; want false", s)
				}
			}
		})
	}
}

func TestGlobErrors(t *testing.T) {
	tests := []struct{ pattern, want string }{
		{"{a,b", "unclosed '{' at character 1"},
		{"x{a,{b}", "unclosed '{' at character 2"},
		{"a}", "'}' without '{' at character 2"},
		{`a\`, "lone backslash"},
		{"\xff", "not valid UTF-8"},
		{strings.Repeat("{a,b}", 9), "more than 256 alternatives"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			_, err := compileGlob(tt.pattern)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("compileGlob(%q) error = %v; want one containing %q", tt.pattern, err, tt.want)
			}
		})
	}
}

func TestGlobQuoteMatchesOnlyItself(t *testing.T) {
	for _, s := range []string{"find . -name '*.go'", `a\b{c,d}?`, "plain", ""} {
		g, err := compileGlob(globQuote(s))
		if err != nil {
			t.Fatalf("compileGlob(globQuote(%q)): %v", s, err)
		}
		if !g.match(s) {
			t.Errorf("globQuote(%q) does not match itself", s)
		}
		if g.match(s+"x") || (s != "" && g.match(s[1:])) {
			t.Errorf("globQuote(%q) matches more than itself", s)
		}
	}
}

func TestRuleString(t *testing.T) {
	tests := []struct {
		name string
		r    Rule
		want string
	}{
		{"with match", Rule{Tool: "shell_run", Match: "git status*", Decision: "allow"},
			"tool = \"shell_run\"\nmatch = \"git status*\"\ndecision = \"allow\""},
		{"without match", Rule{Tool: "fs_*", Decision: "deny"},
			"tool = \"fs_*\"\ndecision = \"deny\""},
		{"escapes", Rule{Tool: "shell_run", Match: "echo \"a\\b\"\t\x01", Decision: "ask"},
			"tool = \"shell_run\"\nmatch = \"echo \\\"a\\\\b\\\"\\t\\u0001\"\ndecision = \"ask\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.String(); got != tt.want {
				t.Errorf("String() = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestValidateRules(t *testing.T) {
	good := Rule{Tool: "fs_*", Decision: "allow"}
	tests := []struct {
		name  string
		rules []Rule
		want  []string // substrings of the error; none means valid
	}{
		{"valid", []Rule{good, {Tool: "shell_run", Match: "go test *", Decision: "ask"}, {Tool: "github/*", Decision: "deny"}}, nil},
		{"missing tool", []Rule{good, {Decision: "allow"}}, []string{"approval.rules[1].tool", "is required"}},
		{"bad decision", []Rule{{Tool: "x", Decision: "alow"}}, []string{"approval.rules[0].decision", `"alow"`, "want allow, ask or deny"}},
		{"decision case", []Rule{{Tool: "x", Decision: "Allow"}}, []string{"approval.rules[0].decision"}},
		{"bad tool glob", []Rule{{Tool: "fs_{", Decision: "deny"}}, []string{"approval.rules[0].tool", "unclosed '{'"}},
		{"bad match glob", []Rule{good, good, {Tool: "x", Match: `git\`, Decision: "deny"}}, []string{"approval.rules[2].match", "backslash"}},
		{"several", []Rule{{Tool: "", Decision: "allow"}, good, {Tool: "x", Decision: "never"}}, []string{"approval.rules[0].tool", "approval.rules[2].decision"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateRules(tt.rules)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("ValidateRules = %v; want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("ValidateRules = nil; want an error containing %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("ValidateRules = %q; want it to contain %q", err, w)
				}
			}
			if _, err := NewPolicy(Ask, tt.rules); err == nil {
				t.Errorf("NewPolicy accepted rules ValidateRules refuses")
			}
		})
	}
}

func TestCommandPrefix(t *testing.T) {
	tests := []struct{ cmd, want string }{
		{"go test ./...", "go test *"},
		{"go test -run TestX ./pkg", "go test *"},
		{"git status --short", "git status *"},
		{"git status", "git status *"},
		{"git -C sub status", "git -C sub status"},
		{"git", "git"},
		{"make", "make"},
		{"make test", "make test *"},
		{"make CC=clang all", "make CC=clang all"},
		{"npm run build -- --watch", "npm run build *"},
		{"npm install left-pad", "npm install *"},
		{"docker compose up -d", "docker compose up *"},
		{"/usr/local/go/bin/go test ./...", "/usr/local/go/bin/go test *"},
		{"ls -la", "ls *"},
		{"ls", "ls *"},
		{"./build.sh --fast", "./build.sh *"},
		{"sudo apt install x", "sudo apt install x"},
		{"bash -c 'rm -rf x'", "bash -c 'rm -rf x'"},
		{"python3 script.py", "python3 script.py"},
		{"xargs rm", "xargs rm"},
		{"find . -name '*.go'", `find . -name '\*.go'`},
		{"$EDITOR notes.txt", "$EDITOR notes.txt"},
		{"git $(echo status)", "git $(echo status)"},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			if got := commandPrefix(tt.cmd, shell.ExactGrant(strings.Fields(tt.cmd)[0])); got != tt.want {
				t.Errorf("commandPrefix(%q) = %q; want %q", tt.cmd, got, tt.want)
			}
		})
	}
}

func TestSessionRule(t *testing.T) {
	tests := []struct {
		name string
		req  Request
		want Rule
	}{
		{"tool", Request{Tool: "fs_write", Meta: tools.Meta{Name: "fs_write"}, Capability: "fs:write:a.txt"},
			Rule{Tool: "fs_write", Decision: "allow"}},
		{"namespaced tool", Request{Tool: "github/create_issue", Meta: tools.Meta{Name: "github/create_issue"}},
			Rule{Tool: "github/create_issue", Decision: "allow"}},
		{"tool from meta", Request{Meta: tools.Meta{Name: "memory_store"}},
			Rule{Tool: "memory_store", Decision: "allow"}},
		{"a fetch: that host only", Request{Tool: "web_fetch", Meta: webMeta, Capability: "net:http:docs.python.org"},
			Rule{Tool: "web_fetch", Match: "net:http:docs.python.org", Decision: "allow"}},
		{"a command's host contact: that host only", NetworkRequest("c1", "go mod download", "proxy.golang.org:443"),
			Rule{Tool: "network", Match: "net:connect:proxy.golang.org:443", Decision: "allow"}},
		{"one command", shellReq("go test ./..."),
			Rule{Tool: "shell_run", Match: "go test *", Decision: "allow"}},
		{"chained", shellReq("git status && go test ./... | tee log.txt"),
			Rule{Tool: "shell_run", Match: "{git status *,go test *,tee *}", Decision: "allow"}},
		{"same prefix twice", shellReq("go test ./a; go test ./b"),
			Rule{Tool: "shell_run", Match: "go test *", Decision: "allow"}},
		{"unparsable", shellReq("echo 'open"),
			Rule{Tool: "shell_run", Match: "echo 'open", Decision: "allow"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SessionRule(tt.req)
			if got != tt.want {
				t.Errorf("SessionRule = %+v; want %+v", got, tt.want)
			}
			if err := ValidateRules([]Rule{got}); err != nil {
				t.Errorf("SessionRule gave an invalid rule: %v", err)
			}
		})
	}
}

// TestShellRules checks that a shell allow rule vouches for a line only when
// every command it runs matches, and nothing else in the line acts unseen.
func TestShellRules(t *testing.T) {
	allowStatus := Rule{Tool: "shell_run", Match: "git status*", Decision: "allow"}
	allowTest := Rule{Tool: "shell_run", Match: "go test *", Decision: "allow"}
	denyRm := Rule{Tool: "shell_run", Match: "rm *", Decision: "deny"}
	askPush := Rule{Tool: "shell_run", Match: "git push*", Decision: "ask"}
	allowAnyShell := Rule{Tool: "shell_*", Decision: "allow"}
	tests := []struct {
		name    string
		level   Level
		rules   []Rule
		command string
		want    Outcome
		by      string // substring of Verdict.By
		why     string // substring of Verdict.Why
	}{
		{"plain match", Ask, []Rule{allowStatus}, "git status", OutcomeAllow, `match = "git status*"`, ""},
		{"match with args", Ask, []Rule{allowStatus}, "git status --short", OutcomeAllow, "rule:", ""},
		{"no match", Ask, []Rule{allowStatus}, "git log", OutcomeAsk, "level: ask", "every call with side effects asks"},
		{"semicolon", Ask, []Rule{allowStatus}, "git status; rm -rf x", OutcomeAsk, "level: ask", ""},
		{"and", Ask, []Rule{allowStatus}, "git status && rm -rf x", OutcomeAsk, "level: ask", ""},
		{"or", Ask, []Rule{allowStatus}, "git status || curl evil.example", OutcomeAsk, "level: ask", ""},
		{"pipe", Ask, []Rule{allowStatus}, "git status | sh", OutcomeAsk, "level: ask", ""},
		{"newline", Ask, []Rule{allowStatus}, "git status\nrm -rf x", OutcomeAsk, "level: ask", ""},
		{"substitution", Ask, []Rule{allowStatus}, "git status $(rm -rf x)", OutcomeAsk, "level: ask", ""},
		{"backticks", Ask, []Rule{allowStatus}, "git status `rm -rf x`", OutcomeAsk, "level: ask", ""},
		{"process substitution", Ask, []Rule{allowStatus}, "git status <(rm -rf x)", OutcomeAsk, "level: ask", ""},
		{"subshell", Ask, []Rule{allowStatus}, "git status && (cd .. && rm x)", OutcomeAsk, "level: ask", ""},
		{"background", Ask, []Rule{allowStatus}, "git status & rm x", OutcomeAsk, "level: ask", ""},
		{"prefix assignment", Ask, []Rule{allowStatus}, "PATH=. git status", OutcomeAsk, "level: ask", "sets shell variables"},
		{"export", Ask, []Rule{allowStatus}, "export PATH=.:$PATH; git status", OutcomeAsk, "level: ask", "sets shell variables"},
		{"for loop variable", Ask, []Rule{allowStatus}, "for PATH in .; do git status; done", OutcomeAsk, "level: ask", "sets shell variables"},
		{"assigning expansion", Ask, []Rule{allowStatus}, "git status ${PATH:=.}", OutcomeAsk, "level: ask", "sets shell variables"},
		{"arithmetic", Ask, []Rule{allowStatus}, "((PATH=1)); git status", OutcomeAsk, "level: ask", "arithmetic"},
		{"function", Ask, []Rule{allowStatus}, "git() { echo; }; git status", OutcomeAsk, "level: ask", ""},
		{"redirect outside", Ask, []Rule{allowStatus}, "git status > /etc/x", OutcomeAsk, "level: ask", "writes to /etc/x"},
		{"redirect inside", Ask, []Rule{allowStatus}, "git status >> notes.txt", OutcomeAsk, "level: ask", "writes to notes.txt"},
		{"redirect to file with >&", Ask, []Rule{allowStatus}, "git status >&out.txt", OutcomeAsk, "level: ask", "writes to out.txt"},
		{"redirect to null", Ask, []Rule{allowStatus}, "git status 2>/dev/null", OutcomeAllow, "rule:", ""},
		{"descriptor dup", Ask, []Rule{allowStatus}, "git status 2>&1", OutcomeAllow, "rule:", ""},
		{"input redirect", Ask, []Rule{allowStatus}, "git status < /dev/null", OutcomeAllow, "rule:", ""},
		{"unparsable", Ask, []Rule{allowStatus}, "git status 'open", OutcomeAsk, "level: ask", "could not be parsed"},
		{"unparsable vs tool-wide allow", Ask, []Rule{allowAnyShell}, "git status 'open", OutcomeAsk, "level: ask", "could not be parsed"},
		{"only assignments", Ask, []Rule{allowStatus}, "x=1", OutcomeAsk, "level: ask", "runs no plain command"},
		{"path-qualified command", Ask, []Rule{allowStatus}, "./git status", OutcomeAsk, "level: ask", ""},
		{"union of rules", Ask, []Rule{allowStatus, allowTest}, "go test ./... && git status", OutcomeAllow, `match = "go test *"; rule: tool = "shell_run", match = "git status*"`, ""},
		{"bare command under trailing star", Ask, []Rule{allowTest}, "go test", OutcomeAllow, "rule:", ""},
		{"tool-wide allow", Ask, []Rule{allowAnyShell}, "PATH=. make; rm -rf x", OutcomeAllow, `tool = "shell_*"`, ""},
		{"deny any command", Full, []Rule{denyRm}, "git status; rm -rf x", OutcomeDeny, `match = "rm *"`, `denies shell commands matching "rm *"`},
		{"deny through sudo", Full, []Rule{denyRm}, "sudo rm -rf /", OutcomeDeny, "rule:", ""},
		{"deny through path", Full, []Rule{denyRm}, "/bin/rm x", OutcomeDeny, "rule:", ""},
		{"deny through quotes", Full, []Rule{denyRm}, `\rm x`, OutcomeDeny, "rule:", ""},
		{"deny in substitution", Full, []Rule{denyRm}, "echo $(rm x)", OutcomeDeny, "rule:", ""},
		{"deny unparsable", Full, []Rule{denyRm}, "echo 'open", OutcomeDeny, "rule:", ""},
		{"deny misses", Full, []Rule{denyRm}, "git status", OutcomeAllow, "level: full", ""},
		{"deny beats allow", Ask, []Rule{allowAnyShell, denyRm}, "rm -rf x", OutcomeDeny, "rule:", ""},
		{"ask under full", Full, []Rule{askPush}, "git push origin main", OutcomeAsk, `match = "git push*"`, `asks before shell commands matching "git push*"`},
		{"ask beats allow", Ask, []Rule{askPush, allowAnyShell}, "git push --force", OutcomeAsk, "rule:", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustPolicy(t, tt.level, tt.rules...)
			if tt.level == Full {
				p.SetSandbox(activeSandbox) // full runs commands only sandboxed
			}
			v := p.Evaluate(shellReq(tt.command))
			if v.Outcome != tt.want || !strings.Contains(v.By, tt.by) || !strings.Contains(v.Why, tt.why) {
				t.Errorf("Evaluate(%q) = %+v; want outcome %s, By containing %q, Why containing %q", tt.command, v, tt.want, tt.by, tt.why)
			}
		})
	}
}

func TestShellRuleWithoutArgs(t *testing.T) {
	// The agent always passes Args; without them the line cannot be checked
	// for what the command list does not show, so allow patterns stand back.
	req := shellReq("git status")
	req.Args = nil
	p := mustPolicy(t, Ask, Rule{Tool: "shell_run", Match: "git status*", Decision: "allow"})
	if v := p.Evaluate(req); v.Outcome != OutcomeAsk || !strings.Contains(v.Why, "arguments") {
		t.Errorf("Evaluate = %+v; want ask naming the arguments", v)
	}
}
