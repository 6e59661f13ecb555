package approval

import (
	"strings"
	"testing"

	"myclaw/tools"
)

var (
	readMeta  = tools.Meta{Name: "fs_read", ReadOnly: true, ReturnsUntrusted: true, Capability: "fs:read"}
	writeMeta = tools.Meta{Name: "fs_write", Risk: tools.RiskMedium, SupportsDryRun: true, Idempotent: true, Capability: "fs:write"}
	editMeta  = tools.Meta{Name: "fs_edit", Risk: tools.RiskMedium, SupportsDryRun: true, Capability: "fs:write"}
	webMeta   = tools.Meta{Name: "web_fetch", Risk: tools.RiskLow, SupportsDryRun: true, ReturnsUntrusted: true, Idempotent: true, Capability: "net:http"}
	memMeta   = tools.Meta{Name: "memory_store", Risk: tools.RiskLow, SupportsDryRun: true, Capability: "memory:write"}
	mcpMeta   = tools.Meta{Name: "github/create_issue", Risk: tools.RiskMedium, ReturnsUntrusted: true, Capability: "mcp:github/create_issue", Source: tools.SourceMCP}
	highMeta  = tools.Meta{Name: "deploy", Risk: tools.RiskHigh, SupportsDryRun: true, Capability: "deploy:prod"}
	bareMeta  = tools.Meta{Name: "mystery"}
)

func callReq(m tools.Meta, capability string) Request {
	return Request{CallID: "c1", Tool: m.Name, Meta: m, Capability: capability, Args: []byte(`{}`)}
}

func TestEvaluateLevelMatrix(t *testing.T) {
	levels := []Level{ReadOnly, Ask, AutoEdit, Full}
	tests := []struct {
		name string
		req  Request
		want [4]Outcome // readonly, ask, auto-edit, full
	}{
		{"read-only tool", callReq(readMeta, "fs:read:a.go"), [4]Outcome{OutcomeAllow, OutcomeAllow, OutcomeAllow, OutcomeAllow}},
		{"write inside", callReq(writeMeta, "fs:write:src/a.go"), [4]Outcome{OutcomeDeny, OutcomeAsk, OutcomeAllow, OutcomeAllow}},
		{"write at root", callReq(writeMeta, "fs:write:."), [4]Outcome{OutcomeDeny, OutcomeAsk, OutcomeAllow, OutcomeAllow}},
		{"write absolute", callReq(writeMeta, "fs:write:/etc/passwd"), [4]Outcome{OutcomeDeny, OutcomeAsk, OutcomeAsk, OutcomeAllow}},
		{"write escaping", callReq(writeMeta, "fs:write:src/../../x"), [4]Outcome{OutcomeDeny, OutcomeAsk, OutcomeAsk, OutcomeAllow}},
		{"write home", callReq(writeMeta, "fs:write:~/.bashrc"), [4]Outcome{OutcomeDeny, OutcomeAsk, OutcomeAsk, OutcomeAllow}},
		{"write without path", callReq(writeMeta, "fs:write"), [4]Outcome{OutcomeDeny, OutcomeAsk, OutcomeAsk, OutcomeAllow}},
		{"write capability from meta", callReq(writeMeta, ""), [4]Outcome{OutcomeDeny, OutcomeAsk, OutcomeAsk, OutcomeAllow}},
		// Without a sandbox full asks rather than run a command unconfined.
		{"shell", shellReq("go test ./..."), [4]Outcome{OutcomeDeny, OutcomeAsk, OutcomeAsk, OutcomeAsk}},
		{"web fetch", callReq(webMeta, "net:http:example.com"), [4]Outcome{OutcomeDeny, OutcomeAsk, OutcomeAllow, OutcomeAllow}},
		{"memory store", callReq(memMeta, "memory:write:todo"), [4]Outcome{OutcomeDeny, OutcomeAsk, OutcomeAllow, OutcomeAllow}},
		{"mcp without dry run", callReq(mcpMeta, "mcp:github/create_issue"), [4]Outcome{OutcomeDeny, OutcomeAsk, OutcomeAsk, OutcomeAllow}},
		{"high risk with dry run", callReq(highMeta, "deploy:prod"), [4]Outcome{OutcomeDeny, OutcomeAsk, OutcomeAsk, OutcomeAllow}},
		{"undeclared tool", callReq(bareMeta, ""), [4]Outcome{OutcomeDeny, OutcomeAsk, OutcomeAsk, OutcomeAllow}},
		{"dry run but no capability", callReq(tools.Meta{Name: "x", Risk: tools.RiskLow, SupportsDryRun: true}, ""), [4]Outcome{OutcomeDeny, OutcomeAsk, OutcomeAsk, OutcomeAllow}},
	}
	for _, tt := range tests {
		for i, level := range levels {
			t.Run(tt.name+"/"+string(level), func(t *testing.T) {
				v := mustPolicy(t, level).Evaluate(tt.req)
				if v.Outcome != tt.want[i] {
					t.Fatalf("Evaluate = %+v; want %s", v, tt.want[i])
				}
				if v.By == "" {
					t.Errorf("Evaluate gave no By")
				}
				if v.Outcome != OutcomeAllow && v.Why == "" {
					t.Errorf("Evaluate %s gave no Why", v.Outcome)
				}
			})
		}
	}
}

func TestEvaluateReasons(t *testing.T) {
	tests := []struct {
		name    string
		level   Level
		req     Request
		by, why string
	}{
		{"readonly", ReadOnly, callReq(writeMeta, "fs:write:a"), "level: readonly", "readonly allows no side effects, and fs_write has them"},
		{"read-only tool", Ask, callReq(readMeta, "fs:read:a"), "read-only tool", ""},
		{"ask", Ask, callReq(writeMeta, "fs:write:a"), "level: ask", "the autonomy level is ask: every call with side effects asks first"},
		{"full", Full, callReq(bareMeta, ""), "level: full", ""},
		{"auto-edit allows", AutoEdit, callReq(writeMeta, "fs:write:a"), "level: auto-edit", ""},
		{"auto-edit outside", AutoEdit, callReq(writeMeta, "fs:write:/etc/x"), "level: auto-edit", "outside the workspace (fs:write:/etc/x)"},
		{"auto-edit no preview", AutoEdit, callReq(mcpMeta, "mcp:github/create_issue"), "level: auto-edit", "github/create_issue because it has no faithful preview"},
		{"auto-edit high risk", AutoEdit, callReq(highMeta, "deploy:prod"), "level: auto-edit", "high-risk"},
		{"unknown level acts as ask", Level("yolo"), callReq(writeMeta, "fs:write:a"), "level: ask", "every call with side effects asks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustPolicy(t, Ask)
			p.SetLevel(tt.level)
			v := p.Evaluate(tt.req)
			if v.By != tt.by || !strings.Contains(v.Why, tt.why) {
				t.Errorf("Evaluate = %+v; want By %q and Why containing %q", v, tt.by, tt.why)
			}
		})
	}
}

func TestRulePrecedence(t *testing.T) {
	req := callReq(writeMeta, "fs:write:src/a.go")
	allow := Rule{Tool: "fs_write", Decision: "allow"}
	ask := Rule{Tool: "fs_*", Match: "fs:write:src/*", Decision: "ask"}
	deny := Rule{Tool: "*", Match: "fs:write:src/**", Decision: "deny"}
	tests := []struct {
		name  string
		level Level
		rules []Rule
		want  Outcome
		by    string
	}{
		{"deny allow ask", Ask, []Rule{deny, allow, ask}, OutcomeDeny, "rule: " + deny.Brief()},
		{"allow ask deny", Ask, []Rule{allow, ask, deny}, OutcomeDeny, "rule: " + deny.Brief()},
		{"ask deny allow", Full, []Rule{ask, deny, allow}, OutcomeDeny, "rule: " + deny.Brief()},
		{"allow ask", AutoEdit, []Rule{allow, ask}, OutcomeAsk, "rule: " + ask.Brief()},
		{"ask allow", Full, []Rule{ask, allow}, OutcomeAsk, "rule: " + ask.Brief()},
		{"allow only", Ask, []Rule{allow}, OutcomeAllow, "rule: " + allow.Brief()},
		{"deny under full", Full, []Rule{deny}, OutcomeDeny, "rule: " + deny.Brief()},
		{"allow under readonly", ReadOnly, []Rule{allow}, OutcomeDeny, "level: readonly"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := mustPolicy(t, tt.level, tt.rules...).Evaluate(req)
			if v.Outcome != tt.want || v.By != tt.by {
				t.Errorf("Evaluate = %+v; want %s by %q", v, tt.want, tt.by)
			}
		})
	}
}

func TestRulesOnTools(t *testing.T) {
	tests := []struct {
		name string
		rule Rule
		req  Request
		want Outcome // at level ask
	}{
		{"namespace glob allows", Rule{Tool: "github/*", Decision: "allow"}, callReq(mcpMeta, "mcp:github/create_issue"), OutcomeAllow},
		{"namespace glob misses", Rule{Tool: "gitlab/*", Decision: "allow"}, callReq(mcpMeta, "mcp:github/create_issue"), OutcomeAsk},
		{"server glob", Rule{Tool: "server/*", Decision: "deny"}, callReq(tools.Meta{Name: "server/tool", ReadOnly: true}, ""), OutcomeDeny},
		{"prefix glob", Rule{Tool: "fs_*", Decision: "allow"}, callReq(editMeta, "fs:write:a"), OutcomeAllow},
		{"capability allows", Rule{Tool: "fs_write", Match: "fs:write:src/**", Decision: "allow"}, callReq(writeMeta, "fs:write:src/deep/a.go"), OutcomeAllow},
		{"capability misses", Rule{Tool: "fs_write", Match: "fs:write:src/**", Decision: "allow"}, callReq(writeMeta, "fs:write:docs/a.md"), OutcomeAsk},
		{"capability from meta", Rule{Tool: "github/*", Match: "mcp:github/*", Decision: "allow"}, callReq(mcpMeta, ""), OutcomeAllow},
		{"no capability, no match", Rule{Tool: "*", Match: "*", Decision: "allow"}, callReq(bareMeta, ""), OutcomeAsk},
		{"deny on read-only tool", Rule{Tool: "fs_read", Match: "fs:read:.env*", Decision: "deny"}, callReq(readMeta, "fs:read:.env.local"), OutcomeDeny},
		{"ask rule spares read-only tool", Rule{Tool: "fs_read", Decision: "ask"}, callReq(readMeta, "fs:read:a"), OutcomeAllow},
		{"web host", Rule{Tool: "web_fetch", Match: "net:http:{docs.python.org,pkg.go.dev}", Decision: "allow"}, callReq(webMeta, "net:http:pkg.go.dev"), OutcomeAllow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := mustPolicy(t, Ask, tt.rule).Evaluate(tt.req)
			if v.Outcome != tt.want {
				t.Errorf("Evaluate = %+v; want %s", v, tt.want)
			}
		})
	}
}

func TestTaint(t *testing.T) {
	taint := &Taint{Source: "web:evil.example/page"}
	tainted := func(r Request) Request { r.Taint = taint; return r }
	tests := []struct {
		name  string
		level Level
		rules []Rule
		seen  string // a host fetched earlier this session
		grant Request
		req   Request
		want  Outcome
		why   string
	}{
		{name: "shell asks with reason", level: AutoEdit, req: tainted(shellReq("go test ./...")), want: OutcomeAsk,
			why: "auto-edit asks for shell commands after untrusted content from web:evil.example/page"},
		{name: "new host asks", level: AutoEdit, req: tainted(callReq(webMeta, "net:http:attacker.example")), want: OutcomeAsk,
			why: "attacker.example, a host not yet seen this session, after untrusted content from web:evil.example/page"},
		{name: "seen host allowed", level: AutoEdit, seen: "Docs.Example.", req: tainted(callReq(webMeta, "net:http:docs.example")), want: OutcomeAllow},
		{name: "untainted new host allowed", level: AutoEdit, req: callReq(webMeta, "net:http:attacker.example"), want: OutcomeAllow},
		{name: "memory asks", level: AutoEdit, req: tainted(callReq(memMeta, "memory:write:note")), want: OutcomeAsk,
			why: "storing a memory after untrusted content from web:evil.example/page"},
		{name: "untainted memory allowed", level: AutoEdit, req: callReq(memMeta, "memory:write:note"), want: OutcomeAllow},
		{name: "file write still allowed", level: AutoEdit, req: tainted(callReq(writeMeta, "fs:write:a.txt")), want: OutcomeAllow},
		{name: "allow rule still applies", level: AutoEdit, rules: []Rule{{Tool: "web_fetch", Decision: "allow"}},
			req: tainted(callReq(webMeta, "net:http:attacker.example")), want: OutcomeAllow},
		{name: "session grant still applies", level: AutoEdit, grant: shellReq("go test ./x"),
			req: tainted(shellReq("go test ./...")), want: OutcomeAllow},
		{name: "full ignores taint", level: Full, req: tainted(shellReq("curl x | sh")), want: OutcomeAllow},
		{name: "ask level unchanged", level: Ask, req: tainted(callReq(readMeta, "fs:read:a")), want: OutcomeAllow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustPolicy(t, tt.level, tt.rules...)
			if tt.level == Full {
				p.SetSandbox(activeSandbox) // full runs commands only sandboxed
			}
			if tt.seen != "" {
				p.Remember(callReq(webMeta, "net:http:"+tt.seen), Decision{Choice: ApproveOnce})
			}
			if tt.grant.Tool != "" {
				p.Remember(tt.grant, Decision{Choice: ApproveSession})
			}
			v := p.Evaluate(tt.req)
			if v.Outcome != tt.want || !strings.Contains(v.Why, tt.why) {
				t.Errorf("Evaluate = %+v; want %s with Why containing %q", v, tt.want, tt.why)
			}
		})
	}
	t.Run("empty source named", func(t *testing.T) {
		req := callReq(memMeta, "memory:write:n")
		req.Taint = &Taint{}
		v := mustPolicy(t, AutoEdit).Evaluate(req)
		if v.Outcome != OutcomeAsk || !strings.Contains(v.Why, "an unnamed source") {
			t.Errorf("Evaluate = %+v; want ask naming an unnamed source", v)
		}
	})
}

func TestRememberHosts(t *testing.T) {
	p := mustPolicy(t, AutoEdit)
	taint := &Taint{Source: "file:README.md"}
	fetch := func(host string) Request {
		r := callReq(webMeta, "net:http:"+host)
		r.Taint = taint
		return r
	}
	p.Remember(fetch("denied.example"), Decision{Choice: Deny, Reason: "no"})
	p.Remember(fetch("edited.example"), Decision{Choice: Edit})
	tests := []struct {
		host string
		want Outcome
	}{
		{"denied.example", OutcomeAsk},
		{"edited.example", OutcomeAllow},
		{"other.example", OutcomeAsk},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			if v := p.Evaluate(fetch(tt.host)); v.Outcome != tt.want {
				t.Errorf("Evaluate = %+v; want %s", v, tt.want)
			}
		})
	}
	if g := p.Grants(); len(g) != 0 {
		t.Errorf("Grants() = %v; want none (no ApproveSession)", g)
	}
}

func TestSessionGrants(t *testing.T) {
	denyEnv := Rule{Tool: "fs_*", Match: "fs:write:.env*", Decision: "deny"}
	denyRm := Rule{Tool: "shell_run", Match: "rm -rf *", Decision: "deny"}
	askPush := Rule{Tool: "shell_run", Match: "git push --force*", Decision: "ask"}
	p := mustPolicy(t, Ask, denyEnv, denyRm, askPush)

	p.Remember(callReq(writeMeta, "fs:write:a.txt"), Decision{Choice: ApproveSession})
	p.Remember(shellReq("go test ./..."), Decision{Choice: ApproveSession})
	p.Remember(shellReq("go test ./pkg"), Decision{Choice: ApproveSession}) // same grant again
	p.Remember(shellReq("git status && npm run lint"), Decision{Choice: ApproveSession})
	p.Remember(shellReq("rm -rf build"), Decision{Choice: ApproveSession}) // risky: no grant
	p.Remember(shellReq("rm build/a.o"), Decision{Choice: ApproveSession})
	p.Remember(shellReq("git push --force"), Decision{Choice: ApproveSession})
	p.Remember(shellReq("make build"), Decision{Choice: ApproveOnce})
	p.Remember(callReq(editMeta, "fs:write:b.txt"), Decision{Choice: Deny})

	wantGrants := []Rule{
		{Tool: "fs_write", Decision: "allow"},
		{Tool: "shell_run", Match: "go test *", Decision: "allow"},
		{Tool: "shell_run", Match: "{git status *,npm run lint *}", Decision: "allow"},
		{Tool: "shell_run", Match: "rm *", Decision: "allow"},
		// rm -rf and git push --force have warnings: no grant beyond the call.
	}
	got := p.Grants()
	if len(got) != len(wantGrants) {
		t.Fatalf("Grants() = %v; want %v", got, wantGrants)
	}
	for i := range got {
		if !got[i].Same(wantGrants[i]) {
			t.Errorf("Grants()[%d] = %+v; want %+v", i, got[i], wantGrants[i])
		}
	}
	got[0].Tool = "changed"
	if p.Grants()[0].Tool != "fs_write" {
		t.Errorf("Grants() shares its slice with the policy")
	}

	tests := []struct {
		name string
		req  Request
		want Outcome
		by   string
	}{
		{"granted tool, other path", callReq(writeMeta, "fs:write:other/b.txt"), OutcomeAllow, "session grant"},
		{"granted tool, outside", callReq(writeMeta, "fs:write:/etc/hosts"), OutcomeAllow, "session grant"},
		{"other tool", callReq(editMeta, "fs:write:a.txt"), OutcomeAsk, "level: ask"},
		{"deny rule beats grant", callReq(writeMeta, "fs:write:.env"), OutcomeDeny, "rule: " + denyEnv.Brief()},
		{"same prefix", shellReq("go test -run TestX ./internal/..."), OutcomeAllow, "session grant"},
		{"bare subcommand", shellReq("go test"), OutcomeAllow, "session grant"},
		{"other subcommand", shellReq("go build ./..."), OutcomeAsk, "level: ask"},
		{"not the whole tool", shellReq("go run ./cmd/evil"), OutcomeAsk, "level: ask"},
		{"not any shell", shellReq("curl evil.example"), OutcomeAsk, "level: ask"},
		{"prefix plus something else", shellReq("go test ./... ; curl evil.example"), OutcomeAsk, "level: ask"},
		{"prefix with planted variable", shellReq("GOFLAGS=-toolexec=./x go test ./..."), OutcomeAsk, "level: ask"},
		{"grants combine", shellReq("npm run lint && go test ./... && git status"), OutcomeAllow, "session grant"},
		{"script name kept", shellReq("npm run deploy"), OutcomeAsk, "level: ask"},
		{"once is not remembered", shellReq("make build"), OutcomeAsk, "level: ask"},
		{"deny rule beats shell grant", shellReq("rm -rf /"), OutcomeDeny, "rule: " + denyRm.Brief()},
		{"grant under deny rule still works elsewhere", shellReq("rm build/x.o"), OutcomeAllow, "session grant"},
		{"ask rule beats grant", shellReq("git push --force origin"), OutcomeAsk, "rule: " + askPush.Brief()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := p.Evaluate(tt.req)
			if v.Outcome != tt.want || v.By != tt.by {
				t.Errorf("Evaluate = %+v; want %s by %q", v, tt.want, tt.by)
			}
		})
	}

	t.Run("grants outlive level changes", func(t *testing.T) {
		p.SetLevel(Full)
		p.SetLevel(Ask)
		if v := p.Evaluate(shellReq("go test ./...")); v.Outcome != OutcomeAllow {
			t.Errorf("Evaluate = %+v; want allow", v)
		}
	})
	t.Run("readonly beats grants", func(t *testing.T) {
		p.SetLevel(ReadOnly)
		defer p.SetLevel(Ask)
		if v := p.Evaluate(callReq(writeMeta, "fs:write:a.txt")); v.Outcome != OutcomeDeny {
			t.Errorf("Evaluate = %+v; want deny", v)
		}
	})
}

func TestExactGrantForWrappers(t *testing.T) {
	p := mustPolicy(t, Ask)
	p.Remember(shellReq("find . -name '*.go'"), Decision{Choice: ApproveSession})
	tests := []struct {
		cmd  string
		want Outcome
	}{
		{"find . -name '*.go'", OutcomeAllow},
		{"find . -name '*.go' -delete", OutcomeAsk},
		{"find . -name 'x.go'", OutcomeAsk},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			if v := p.Evaluate(shellReq(tt.cmd)); v.Outcome != tt.want {
				t.Errorf("Evaluate = %+v; want %s", v, tt.want)
			}
		})
	}
}

func TestVisible(t *testing.T) {
	rules := []Rule{
		{Tool: "github/*", Decision: "deny"},
		{Tool: "fs_write", Match: "fs:write:.env", Decision: "deny"},
		{Tool: "fs_read", Decision: "ask"},
	}
	tests := []struct {
		name  string
		level Level
		meta  tools.Meta
		want  bool
		why   string
	}{
		{"readonly hides side effects", ReadOnly, writeMeta, false, "readonly hides side-effecting tools"},
		{"readonly hides undeclared", ReadOnly, bareMeta, false, "readonly"},
		{"readonly keeps read-only", ReadOnly, readMeta, true, ""},
		{"ask shows side effects", Ask, writeMeta, true, ""},
		{"full shows side effects", Full, highMeta, true, ""},
		{"deny rule hides", Full, mcpMeta, false, `denied by rule: tool = "github/*"`},
		{"deny rule hides read-only", Ask, tools.Meta{Name: "github/list_issues", ReadOnly: true}, false, "denied by rule"},
		{"deny rule with match keeps", Full, writeMeta, true, ""},
		{"ask rule keeps", Ask, readMeta, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := mustPolicy(t, tt.level, rules...).Visible(tt.meta)
			if got != tt.want || !strings.Contains(why, tt.why) || (got && why != "") {
				t.Errorf("Visible(%s) = %v, %q; want %v with %q", tt.meta.Name, got, why, tt.want, tt.why)
			}
		})
	}
}

func TestNewPolicy(t *testing.T) {
	p, err := NewPolicy("", nil)
	if err != nil || p.Level() != Ask {
		t.Fatalf("NewPolicy(\"\") = %v, %v; want level ask", p, err)
	}
	if _, err := NewPolicy("yolo", nil); err == nil || !strings.Contains(err.Error(), `"yolo"`) {
		t.Errorf("NewPolicy(yolo) error = %v; want one naming the level", err)
	}
	p.SetLevel(Full)
	if got := p.Level(); got != Full {
		t.Errorf("Level() = %s after SetLevel(full); want full", got)
	}
}

// BenchmarkEvaluate measures a decision on the agent's path: a shell line
// (parsed again for the guard) against a few rules and grants.
func BenchmarkEvaluate(b *testing.B) {
	p, err := NewPolicy(AutoEdit, []Rule{
		{Tool: "shell_run", Match: "git status*", Decision: "allow"},
		{Tool: "shell_run", Match: "rm *", Decision: "deny"},
		{Tool: "github/*", Decision: "ask"},
	})
	if err != nil {
		b.Fatal(err)
	}
	p.Remember(shellReq("go test ./..."), Decision{Choice: ApproveSession})
	reqs := []Request{
		shellReq("git status --short && go test ./... | tee log.txt"),
		callReq(writeMeta, "fs:write:src/a.go"),
		callReq(webMeta, "net:http:example.com"),
	}
	for i := 0; b.Loop(); i++ {
		p.Evaluate(reqs[i%len(reqs)])
	}
}

func TestAlwaysAskBeatsLevelRulesAndGrants(t *testing.T) {
	meta := tools.Meta{Name: "ops/deploy", AlwaysAsk: true, Risk: tools.RiskLow, SupportsDryRun: true}
	req := Request{Tool: "ops/deploy", Meta: meta, Capability: "command:ops/deploy"}
	p, err := NewPolicy(Full, []Rule{{Tool: "ops/*", Decision: "allow"}})
	if err != nil {
		t.Fatal(err)
	}
	p.Remember(req, Decision{Choice: ApproveSession})
	if v := p.Evaluate(req); v.Outcome != OutcomeAsk || !strings.Contains(v.Why, "requires a person's approval") {
		t.Fatalf("Evaluate = %+v; want ask", v)
	}
	deny, _ := NewPolicy(Full, []Rule{{Tool: "ops/*", Decision: "deny"}})
	if v := deny.Evaluate(req); v.Outcome != OutcomeDeny {
		t.Fatalf("a deny rule must still win: %+v", v)
	}
}
