package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"myclaw/approval"
	"myclaw/sandbox"
	"myclaw/tools"
)

// withAudit gives the harness an audit log at path.
func withAudit(t *testing.T, path string) harnessOpt {
	audit, err := approval.OpenAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { audit.Close() })
	return func(o *Options) { o.Audit = audit }
}

// canonical is args as the registry hands them on: keys in order.
func canonical(t *testing.T, args string) json.RawMessage {
	var v map[string]any
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	return b
}

// auditOf reads the audit log at path.
func auditOf(t *testing.T, path string) []approval.AuditEntry {
	t.Helper()
	entries, warnings, err := approval.ReadAudit(path)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("read audit: %v %v", err, warnings)
	}
	return entries
}

// Every way a call leaves the gate writes its audit entry exactly once:
// a second write anywhere on the way shows as a second entry.
func TestEachCallIsAuditedOnce(t *testing.T) {
	write := `{"path":"a.txt","content":"model"}`
	approve := func(d approval.Decision) approval.Approver { return &recordingApprover{d: d} }
	cases := []struct {
		name     string
		level    approval.Level
		rules    []approval.Rule
		tool     string
		args     string
		approver func(cancel func()) approval.Approver
		decision string
		by       string
		// edited is set when the entry describes the person's edit.
		edited string
	}{
		{name: "approve", level: approval.Ask, tool: "fs_write", args: write,
			approver: func(func()) approval.Approver { return approveAll() }, decision: "approve", by: "user"},
		{name: "deny", level: approval.Ask, tool: "fs_write", args: write,
			approver: func(func()) approval.Approver {
				return approve(approval.Decision{Choice: approval.Deny, Reason: "not there"})
			}, decision: "deny", by: "user"},
		{name: "edit", level: approval.Ask, tool: "fs_write", args: write,
			approver: func(func()) approval.Approver {
				return approve(approval.Decision{Choice: approval.Edit, Args: json.RawMessage(`{"path":"a.txt","content":"user"}`)})
			}, decision: "edit", by: "user", edited: `{"path":"a.txt","content":"user"}`},
		{name: "invalid edit", level: approval.Ask, tool: "fs_write", args: write,
			approver: func(func()) approval.Approver {
				return approve(approval.Decision{Choice: approval.Edit, Args: json.RawMessage(`{"path":"a.txt"}`)})
			}, decision: "edit", by: "user"},
		{name: "edit denied by a rule", level: approval.Ask, tool: "shell_run", args: `{"command":"echo hi"}`,
			rules: []approval.Rule{{Tool: "shell_run", Match: "rm *", Decision: "deny"}},
			approver: func(func()) approval.Approver {
				return approve(approval.Decision{Choice: approval.Edit, Args: json.RawMessage(`{"command":"rm a.txt"}`)})
			}, decision: "deny", by: `rule: tool = "shell_run", match = "rm *"`, edited: `{"command":"rm a.txt"}`},
		{name: "headless", level: approval.Ask, tool: "fs_write", args: write,
			approver: func(func()) approval.Approver { return approval.Headless{} }, decision: "deny", by: "headless"},
		{name: "approver fails", level: approval.Ask, tool: "fs_write", args: write,
			approver: func(func()) approval.Approver {
				return approverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
					return approval.Decision{}, errors.New("the pane broke")
				})
			}, decision: "deny", by: "approver"},
		{name: "cancelled", level: approval.Ask, tool: "fs_write", args: write,
			approver: func(cancel func()) approval.Approver {
				return approverFunc(func(ctx context.Context, _ approval.Request) (approval.Decision, error) {
					cancel()
					<-ctx.Done()
					return approval.Decision{}, ctx.Err()
				})
			}, decision: "cancelled", by: "user"},
		{name: "allowed by the level", level: approval.AutoEdit, tool: "fs_write", args: write,
			approver: func(func()) approval.Approver { return approval.Headless{} }, decision: "allow", by: "level: auto-edit"},
		{name: "denied by a rule", level: approval.Ask, tool: "fs_write", args: write,
			rules:    []approval.Rule{{Tool: "fs_write", Decision: "deny"}},
			approver: func(func()) approval.Approver { return approveAll() }, decision: "deny", by: `rule: tool = "fs_write"`},
		{name: "session grant saved as a rule", level: approval.Ask, tool: "fs_write", args: write,
			approver: func(func()) approval.Approver {
				return approve(approval.Decision{Choice: approval.ApproveSession, SaveRule: true})
			}, decision: approval.ApproveSave, by: "user"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t,
				openAIStyle("", call{"c1", tc.tool, tc.args}),
				openAIStyle("done"),
			)
			path := filepath.Join(t.TempDir(), approval.AuditFile)
			cfg := filepath.Join(t.TempDir(), "config.toml")
			h := newHarness(t, tc.level, srv, withAudit(t, path), func(o *Options) {
				p, err := approval.NewPolicy(tc.level, tc.rules)
				if err != nil {
					t.Fatal(err)
				}
				o.Policy, o.ConfigPath = p, cfg
			})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if err := h.run(ctx, "go", tc.approver(cancel)); err != nil && !errors.Is(err, context.Canceled) {
				t.Fatal(err)
			}
			entries := auditOf(t, path)
			if len(entries) != 1 {
				t.Fatalf("%d audit entries %+v; want exactly one", len(entries), entries)
			}
			e := entries[0]
			if e.CallID != "c1" || e.Tool != tc.tool || e.Decision != tc.decision || (tc.by != "" && e.By != tc.by) {
				t.Fatalf("audit entry %+v; want call c1 of %s decided %s by %q", e, tc.tool, tc.decision, tc.by)
			}
			args := tc.args
			if tc.edited != "" {
				args = tc.edited
			}
			if e.ArgsSHA != approval.ArgsDigest(canonical(t, args)) {
				t.Fatalf("audit entry %+v describes other arguments than %s", e, args)
			}
			if e.Session == "" || e.Workspace != h.ws || e.Time.IsZero() {
				t.Fatalf("audit entry %+v; want its time, session and workspace", e)
			}
		})
	}
}

// A read-only call nothing gates decides nothing: it leaves no entry.
func TestUngatedCallIsNotAudited(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"r1", "time_now", `{}`}),
		openAIStyle("done"),
	)
	path := filepath.Join(t.TempDir(), approval.AuditFile)
	h := newHarness(t, approval.Ask, srv, withAudit(t, path))
	if err := h.run(context.Background(), "time", approveAll()); err != nil {
		t.Fatal(err)
	}
	if res := h.results(); len(res) != 1 || res[0].Status != StatusOK {
		t.Fatalf("results %+v", res)
	}
	if entries := auditOf(t, path); len(entries) != 0 {
		t.Fatalf("audit %+v; want no entry for a call nobody decided", entries)
	}
}

// A confined command's host is decided on a passage of its own: one entry
// for the command, one for the host, each once.
func TestHostDecisionIsAuditedOnce(t *testing.T) {
	addr := devServer(t)
	line := fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && printf 'GET http://%s/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' >&3 && cat <&3`, sandbox.ProxyPort, addr)
	args, _ := json.Marshal(line)
	srv := newFakeServer(t,
		openAIStyle("", call{"t1", "shell_run", `{"command":` + string(args) + `}`}),
		openAIStyle("done"),
	)
	path := filepath.Join(t.TempDir(), approval.AuditFile)
	var sb *sandbox.Sandbox
	h := newHarness(t, approval.Ask, srv, withSandbox(&sb, ""), withAudit(t, path))
	if st := sb.Check(context.Background()); !st.Active {
		t.Skip("no sandbox here: " + st.Why)
	}
	h.policy.SetSandbox(approval.Sandbox{Active: true, HostProxy: true})
	if err := h.run(context.Background(), "check the dev server", approveAll()); err != nil {
		t.Fatal(err)
	}
	entries := auditOf(t, path)
	count := map[string]int{}
	for _, e := range entries {
		if e.CallID != "t1" || e.Decision != "approve" {
			t.Fatalf("audit entry %+v; want approvals of call t1", e)
		}
		count[e.Tool]++
	}
	if len(entries) != 2 || count["shell_run"] != 1 || count[approval.NetworkTool] != 1 {
		t.Fatalf("audit %+v; want one entry for the command and one for its host", entries)
	}
}

// A previewed call is asked about twice, first as it is and then with what
// its preview did, and still audited once: an approval as the call first
// asked about, a denial as what the person was last shown.
func TestPreviewedCallIsAuditedOnce(t *testing.T) {
	for _, tc := range []struct {
		name        string
		final       approval.Choice
		failPreview bool
		decision    string
		previewed   bool // the entry's summary is the preview's
	}{
		{"approved", approval.ApproveOnce, false, "approve", false},
		{"denied", approval.Deny, false, "deny", true},
		{"no preview", approval.ApproveOnce, true, "approve", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeServer(t,
				openAIStyle("", call{"s1", "shell_run", `{"command":"echo made > c.txt && echo ran"}`}),
				openAIStyle("done"),
			)
			var wrap func(*sandbox.Sandbox) tools.Sandbox
			if tc.failPreview {
				wrap = func(s *sandbox.Sandbox) tools.Sandbox { return noOverlay{s} }
			}
			path := filepath.Join(t.TempDir(), approval.AuditFile)
			h := sandboxedHarness(t, srv, wrap, withAudit(t, path))
			ap := &previewApprover{final: tc.final}
			if err := h.run(context.Background(), "make c", ap); err != nil {
				t.Fatal(err)
			}
			if len(ap.requests) != 2 {
				t.Fatalf("asked %d times; want the call, then its preview or the call again", len(ap.requests))
			}
			entries := auditOf(t, path)
			if len(entries) != 1 || entries[0].CallID != "s1" || entries[0].Decision != tc.decision {
				t.Fatalf("audit %+v; want one %s of s1", entries, tc.decision)
			}
			want := ap.requests[0].Summary
			if tc.previewed {
				want = ap.requests[1].Summary
			}
			if entries[0].Summary != want {
				t.Fatalf("audit summary %q; want %q", entries[0].Summary, want)
			}
		})
	}
}
