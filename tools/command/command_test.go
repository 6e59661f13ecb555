package command

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"myclaw/internal/proctest"
	"myclaw/tools"
)

const origin = "/home/u/.config/myclaw/config.toml: tools[2]"

func validSpec() Spec {
	return Spec{
		Name:        "local/line_counter",
		Description: "Count the lines of a text.",
		Command:     []string{"wc", "-l"},
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Origin:      origin,
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Spec)
		want   []string // substrings of the error; none means valid
	}{
		{"valid", func(*Spec) {}, nil},
		{"valid without schema", func(s *Spec) { s.InputSchema = nil }, nil},
		{"missing name", func(s *Spec) { s.Name = "" }, []string{origin + ": name: missing"}},
		{"name without namespace", func(s *Spec) { s.Name = "counter" }, []string{origin + `: name: "counter" is not namespace/short_name`}},
		{"name with three parts", func(s *Spec) { s.Name = "a/b/c" }, []string{`name: "a/b/c" is not namespace/short_name`}},
		{"name with a space", func(s *Spec) { s.Name = "a/line counter" }, []string{`name: "a/line counter" is not`}},
		{"name too long", func(s *Spec) { s.Name = "a/" + strings.Repeat("b", 127) }, []string{"128 bytes at most"}},
		{"missing description", func(s *Spec) { s.Description = "  " }, []string{origin + ": description: missing"}},
		{"missing command", func(s *Spec) { s.Command = nil }, []string{origin + ": command: missing"}},
		{"empty program", func(s *Spec) { s.Command = []string{""} }, []string{origin + ": command[0]: the program name is empty"}},
		{"NUL in argument", func(s *Spec) { s.Command = []string{"wc", "-l\x00"} }, []string{origin + ": command[1]: contains a NUL byte"}},
		{"negative timeout", func(s *Spec) { s.Timeout = -5 }, []string{origin + ": timeout: must be at least 1 second, got -5"}},
		{"bad risk", func(s *Spec) { s.Risk = "extreme" }, []string{origin + `: risk: "extreme" is not one of low, medium, high`}},
		{"read_only and writes", func(s *Spec) { s.Capability = Capability{ReadOnly: true, Writes: true} },
			[]string{origin + ": capability.writes: read_only = true forbids writes = true"}},
		{"read_only and checkpointable", func(s *Spec) { s.Capability = Capability{ReadOnly: true, Checkpointable: true} },
			[]string{origin + ": capability.checkpointable: read_only = true forbids checkpointable = true"}},
		{"schema not JSON", func(s *Spec) { s.InputSchema = json.RawMessage(`{"type":`) }, []string{origin + ": input_schema: schema is not valid JSON"}},
		{"schema not an object", func(s *Spec) { s.InputSchema = json.RawMessage(`[1]`) }, []string{"input_schema: schema must be a JSON object"}},
		{"schema for a string", func(s *Spec) { s.InputSchema = json.RawMessage(`{"type":"string"}`) }, []string{`input_schema: schema type is string; want "object"`}},
		{"schema does not compile", func(s *Spec) {
			s.InputSchema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":"zero"}}}`)
		}, []string{origin + ": input_schema: schema does not compile"}},
		{"schema refers to a local file", func(s *Spec) {
			s.InputSchema = json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`)
		}, []string{origin + ": input_schema: schema does not compile", "external references are not allowed"}},
		{"valid with capitals in the name", func(s *Spec) { s.Name = "Make/Build" }, nil},
		{"valid schema admitting an object among other types", func(s *Spec) {
			s.InputSchema = json.RawMessage(`{"type":["object","null"],"properties":{"text":{"type":"string"}}}`)
		}, nil},
		{"no origin", func(s *Spec) { s.Origin = ""; s.Risk = "x" }, []string{`tools entry "local/line_counter": risk:`}},
		{"every problem reported", func(s *Spec) { s.Description = ""; s.Timeout = -1; s.Risk = "x" },
			[]string{"description: missing", "timeout: must be", "risk:"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := validSpec()
			tc.modify(&s)
			err := s.Check()
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("got %v; want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("got nil; want an error containing %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got %q; want it to contain %q", err, w)
				}
			}
			if _, nerr := New(s); nerr == nil {
				t.Errorf("got New accepting the spec; want Check's error")
			}
		})
	}
}

func TestNewMeta(t *testing.T) {
	tests := []struct {
		name       string
		capability Capability
		risk       string
		readOnly   bool
		wantRisk   tools.Risk
		idempotent bool
	}{
		{"read-only", Capability{ReadOnly: true}, "", true, tools.RiskLow, true},
		{"read-only needing approval", Capability{ReadOnly: true, HumanApprovalRequired: true}, "", false, tools.RiskHigh, false},
		{"read-only with side effects", Capability{ReadOnly: true, SideEffects: []string{"sends mail"}}, "", false, tools.RiskMedium, false},
		{"writes", Capability{Writes: true, WriteScope: "workspace", Idempotent: true}, "", false, tools.RiskMedium, true},
		{"unsafe", Capability{Writes: true, Unsafe: true}, "", false, tools.RiskHigh, false},
		{"nothing declared", Capability{}, "", false, tools.RiskHigh, false},
		{"explicit risk wins", Capability{Unsafe: true}, "low", false, tools.RiskLow, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := validSpec()
			s.Capability, s.Risk = tc.capability, tc.risk
			tl, err := New(s)
			if err != nil {
				t.Fatal(err)
			}
			m := tl.Meta()
			if m.ReadOnly != tc.readOnly || m.Risk != tc.wantRisk || m.Idempotent != tc.idempotent {
				t.Errorf("got read_only=%v risk=%s idempotent=%v; want %v %s %v", m.ReadOnly, m.Risk, m.Idempotent, tc.readOnly, tc.wantRisk, tc.idempotent)
			}
			if m.Source != tools.SourceCommand || m.SupportsDryRun || m.Capability != "command:local/line_counter" || m.Timeout != 300*time.Second {
				t.Errorf("got source=%s dry_run=%v capability=%q timeout=%s; want command false command:local/line_counter 300s", m.Source, m.SupportsDryRun, m.Capability, m.Timeout)
			}
		})
	}

	s := validSpec()
	s.InputSchema, s.Timeout, s.ReturnsUntrusted = nil, 7, true
	tl, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	if m := tl.Meta(); string(m.Schema) != defaultSchema || m.Timeout != 7*time.Second || !m.ReturnsUntrusted {
		t.Errorf("got schema %s timeout %s untrusted %v; want the default schema, 7s, true", m.Schema, m.Timeout, m.ReturnsUntrusted)
	}
}

func TestRegistryEnforcesSchema(t *testing.T) {
	reg := tools.NewRegistry()
	s := validSpec()
	tl, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	s2 := validSpec()
	s2.Name, s2.InputSchema = "local/no_args", nil
	tl2, err := New(s2)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []tools.Tool{tl, tl2} {
		if err := reg.Register(x); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		tool, args string
		ok         bool
	}{
		{"local/line_counter", `{"text":"a"}`, true},
		{"local/line_counter", `{"text":1}`, false},
		{"local/line_counter", `{}`, false},
		{"local/no_args", `{}`, true},
		{"local/no_args", `{"x":1}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			_, verr := reg.Validate(tc.tool, json.RawMessage(tc.args))
			if (verr == nil) != tc.ok {
				t.Errorf("got %v; want ok=%v", verr, tc.ok)
			}
			if verr != nil && verr.Kind != tools.KindInvalidArgs {
				t.Errorf("got kind %s; want invalid_args", verr.Kind)
			}
		})
	}
}

// newTool builds a tool running argv in a temporary workspace.
func newTool(t *testing.T, argv []string, modify func(*Spec)) (tools.Tool, string) {
	t.Helper()
	dir := t.TempDir()
	s := Spec{Name: "test/tool", Description: "A test tool.", Command: argv, Dir: dir, Origin: origin,
		InputSchema: json.RawMessage(`{"type":"object"}`)}
	if modify != nil {
		modify(&s)
	}
	tl, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	return tl, dir
}

func TestExecute(t *testing.T) {
	t.Run("JSON object on stdout is output; stdin gets the arguments", func(t *testing.T) {
		tl, _ := newTool(t, []string{"cat"}, nil)
		res, err := tools.Call(context.Background(), tl, json.RawMessage(`{"text":"hi","n":2}`), false)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := json.Marshal(res.Output)
		if string(out) != `{"text":"hi","n":2}` || res.Body != "" {
			t.Errorf("got output %s body %q; want the arguments echoed as output", out, res.Body)
		}
		if res.Source != "command:test/tool" {
			t.Errorf("got source %q; want command:test/tool", res.Source)
		}
	})
	t.Run("text on stdout is the body", func(t *testing.T) {
		tl, _ := newTool(t, []string{"sh", "-c", `printf 'lines: '; wc -l`}, nil)
		res, err := tl.Execute(context.Background(), json.RawMessage("{\n\"a\":1\n}"))
		if err != nil || res.Output != nil || strings.TrimSpace(res.Body) != "lines: 2" {
			t.Errorf("got output %v body %q, %v; want body \"lines: 2\"", res.Output, res.Body, err)
		}
	})
	t.Run("untrusted JSON stays in the body", func(t *testing.T) {
		tl, _ := newTool(t, []string{"cat"}, func(s *Spec) { s.ReturnsUntrusted = true })
		res, err := tl.Execute(context.Background(), json.RawMessage(`{"a":1}`))
		if err != nil || res.Output != nil || res.Body != `{"a":1}` {
			t.Errorf("got output %v body %q, %v; want the JSON in the body", res.Output, res.Body, err)
		}
	})
	t.Run("working directory", func(t *testing.T) {
		tl, dir := newTool(t, []string{"pwd", "-P"}, nil)
		want, _ := filepath.EvalSymlinks(dir)
		res, err := tl.Execute(context.Background(), nil)
		if err != nil || strings.TrimSpace(res.Body) != want {
			t.Errorf("got %q, %v; want %q", res.Body, err, want)
		}
	})
	t.Run("output is capped", func(t *testing.T) {
		tl, _ := newTool(t, []string{"sh", "-c", `head -c 40000 /dev/zero | tr '\000' x`}, nil)
		res, err := tl.Execute(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(res.Body, strings.Repeat("x", maxStdout)+"\n[output truncated: shown 30720 of 40000 bytes") {
			t.Errorf("got body ending %q; want the cap and a note", res.Body[len(res.Body)-100:])
		}
	})
	t.Run("non-zero exit is external_error with stderr's tail", func(t *testing.T) {
		tl, _ := newTool(t, []string{"sh", "-c", `echo early >&2; printf '\033[31mfatal: no such thing\033[0m\n' >&2; exit 3`}, nil)
		_, err := tl.Execute(context.Background(), nil)
		var te *tools.Error
		if !errors.As(err, &te) || te.Kind != tools.KindExternalError {
			t.Fatalf("got %v; want external_error", err)
		}
		if !strings.Contains(te.Message, "test/tool failed: exit status 3") || !strings.Contains(te.Message, "early\nfatal: no such thing") {
			t.Errorf("got message %q; want the status and the stderr tail", te.Message)
		}
		if strings.ContainsRune(te.Message, '\x1b') {
			t.Errorf("got message %q with an escape sequence; want it stripped", te.Message)
		}
		if te.Details["exit_code"] != 3 {
			t.Errorf("got details %v; want exit_code 3", te.Details)
		}
	})
	t.Run("a long stderr keeps its end", func(t *testing.T) {
		tl, _ := newTool(t, []string{"sh", "-c", `i=0; while [ $i -lt 500 ]; do echo "line $i" >&2; i=$((i+1)); done; exit 1`}, nil)
		_, err := tl.Execute(context.Background(), nil)
		var te *tools.Error
		if !errors.As(err, &te) || !strings.HasSuffix(te.Message, "line 499") || strings.Contains(te.Message, "line 0\n") {
			t.Errorf("got %v; want the last lines of stderr only", err)
		}
	})
	t.Run("a program that does not exist", func(t *testing.T) {
		tl, _ := newTool(t, []string{"/nonexistent/tool"}, nil)
		_, err := tl.Execute(context.Background(), nil)
		var te *tools.Error
		if !errors.As(err, &te) || te.Kind != tools.KindExternalError || !strings.Contains(te.Message, "could not start") || !strings.Contains(te.Hint, origin) {
			t.Errorf("got %v; want external_error naming the origin", err)
		}
	})
	t.Run("secrets are not in the environment", func(t *testing.T) {
		t.Setenv("OPENAI_API_KEY", "sk-secret-1")
		t.Setenv("MYCLAW_TEST_GITHUB_TOKEN", "ghp-secret-2")
		t.Setenv("MYCLAW_TEST_PLAIN", "visible")
		tl, _ := newTool(t, []string{"env"}, nil)
		res, err := tl.Execute(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.Body, "secret") || !strings.Contains(res.Body, "MYCLAW_TEST_PLAIN=visible") {
			t.Errorf("got environment %q; want secrets dropped and the rest kept", res.Body)
		}
	})
}

func TestTimeoutKillsProcessGroup(t *testing.T) {
	tl, dir := newTool(t, []string{"sh", "-c", `sleep 300 & echo $! > child.pid; wait`}, func(s *Spec) { s.Timeout = 1 })
	_, err := tools.Call(context.Background(), tl, json.RawMessage(`{}`), false)
	var te *tools.Error
	if !errors.As(err, &te) || te.Kind != tools.KindQuotaExceeded || !strings.Contains(te.Message, "timed out after 1s") {
		t.Fatalf("got %v; want quota_exceeded saying it timed out", err)
	}
	pid := readPid(t, filepath.Join(dir, "child.pid"))
	waitGone(t, pid)
}

func TestLeftoversKilled(t *testing.T) {
	// The command exits at once but leaves a child holding stdout.
	tl, dir := newTool(t, []string{"sh", "-c", `sleep 300 & echo $! > child.pid; echo done`}, nil)
	res, err := tl.Execute(context.Background(), nil)
	if err != nil || strings.TrimSpace(res.Body) != "done" {
		t.Fatalf("got %q, %v; want \"done\"", res.Body, err)
	}
	waitGone(t, readPid(t, filepath.Join(dir, "child.pid")))
}

func TestCancel(t *testing.T) {
	tl, dir := newTool(t, []string{"sh", "-c", `sleep 300 & echo $! > child.pid; wait`}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := tl.Execute(ctx, nil)
		done <- err
	}()
	pid := readPid(t, filepath.Join(dir, "child.pid"))
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("got %v; want context.Canceled", err)
	}
	waitGone(t, pid)
}

func TestDryRun(t *testing.T) {
	tl, dir := newTool(t, []string{"deploy", "--env", "prod site"}, nil)
	res, err := tools.Call(context.Background(), tl, json.RawMessage(`{"version":"1.2","force":true}`), true)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Run test/tool: deploy --env 'prod site'"; res.Summary != want {
		t.Errorf("got summary %q; want %q", res.Summary, want)
	}
	want := "$ deploy --env 'prod site'\n(in " + dir + ")\nstdin:\n{\n  \"version\": \"1.2\",\n  \"force\": true\n}"
	if res.Preview != want {
		t.Errorf("got preview %q; want %q", res.Preview, want)
	}
	if res.Capability != "command:test/tool" {
		t.Errorf("got capability %q; want command:test/tool", res.Capability)
	}

	ro, _ := newTool(t, []string{"cat"}, func(s *Spec) { s.Capability.ReadOnly = true })
	res, err = tools.Call(context.Background(), ro, json.RawMessage(`{"a":1}`), true)
	if err != nil || res.Output == nil || res.Summary != "Run test/tool: cat" {
		t.Errorf("got %+v, %v; want a read-only dry run to run the command", res, err)
	}
}

func TestCLIDict(t *testing.T) {
	s := validSpec()
	s.Capability = Capability{Writes: true, WriteScope: "workspace", SideEffects: []string{"git commit", "network"}, Idempotent: true}
	s.Command = []string{"tool", "a b"}
	s.Dir = "/work"
	tl, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	spec, ok := SpecOf(tl)
	if !ok {
		t.Fatal("got no spec for a command tool")
	}
	got := CLIDict(tl.Meta(), spec)
	want := [][2]string{
		{"name", "local/line_counter"}, {"namespace", "local"}, {"short_name", "line_counter"},
		{"source", "command"}, {"description", "Count the lines of a text."},
		{"read_only", "false"}, {"has_side_effects", "true"}, {"risk", "medium"}, {"idempotent", "true"},
		{"returns_untrusted", "false"}, {"supports_dry_run", "false"}, {"capability", "command:local/line_counter"},
		{"timeout", "300s"},
		{"writes", "true"}, {"write_scope", "workspace"}, {"checkpointable", "false"},
		{"side_effects", "git commit, network"}, {"unsafe", "false"}, {"human_approval_required", "false"},
		{"command", "tool 'a b'"}, {"dir", "/work"}, {"origin", origin},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d pairs %v; want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pair %d: got %q; want %q", i, got[i], want[i])
		}
	}

	builtin := CLIDict(tools.Meta{Name: "fs_read", ReadOnly: true, Source: tools.SourceBuiltin}, nil)
	if len(builtin) != 13 || builtin[1] != [2]string{"namespace", ""} || builtin[2] != [2]string{"short_name", "fs_read"} || builtin[7] != [2]string{"risk", "low"} {
		t.Errorf("got %v; want the 13 Meta pairs of a builtin", builtin)
	}
	if _, ok := SpecOf(tools.Func{}); ok {
		t.Errorf("got a spec for a non-command tool")
	}
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatalf("bad pid file %q", b)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never written", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitGone fails unless pid ends up dead (a zombie counts: the init process
// of a container may never reap it). The wait is only a bound for a broken
// kill, not a timing assertion.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("got pid %d still running; want it killed", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var alive = proctest.Alive
