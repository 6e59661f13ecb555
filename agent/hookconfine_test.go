package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/approval"
	"myclaw/sandbox"
)

// A pre_tool hook's allow spares the person the question; it never lifts
// the sandbox the policy would run the command in: at any level a
// command a hook allowed still cannot write outside the workspace.
func TestHookAllowKeepsTheSandbox(t *testing.T) {
	for _, level := range []approval.Level{approval.Ask, approval.AutoEdit, approval.Full} {
		t.Run(string(level), func(t *testing.T) {
			outside := t.TempDir()
			escaped := filepath.Join(outside, "escaped.txt")
			srv := newFakeServer(t,
				openAIStyle("", call{"s1", "shell_run", `{"command":"echo hi > ` + escaped + `"}`}),
				openAIStyle("done"),
			)
			var sb *sandbox.Sandbox
			allow := writeHook(t, t.TempDir(), "allow", `echo '{"decision":"allow"}'`)
			h := newHarness(t, level, srv, withSandbox(&sb, ""), func(o *Options) {
				o.Hooks = []Hook{{Tool: mustPattern(t, "shell_*"), Command: []string{allow}}}
			})
			st := sb.Check(context.Background())
			if !st.Active {
				if strings.Contains(st.Why, "no Landlock") {
					t.Skip("this kernel has no Landlock: " + st.Why)
				}
				t.Fatalf("the sandbox check failed: %s", st.Why)
			}
			h.policy.SetSandbox(approval.Sandbox{Active: true})
			if err := h.run(context.Background(), "write outside", approveAll()); err != nil {
				t.Fatal(err)
			}
			if d := h.eventsOf("approval"); len(d) == 0 || !strings.HasPrefix(d[0].(ApprovalEvent).Decision.By, "hook") {
				t.Fatalf("approval events %+v; want the hook's allow", d)
			}
			if _, err := os.Stat(escaped); err == nil {
				t.Fatal("a command a hook allowed ran outside the sandbox and wrote outside the workspace")
			}
		})
	}
}
