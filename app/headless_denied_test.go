package app

import (
	"bytes"
	"strings"
	"testing"

	"myclaw/agent"
	"myclaw/approval"
)

// A call headless denied tells the person reading stderr why it asked and
// how to allow it, not only that it was denied.
func TestHeadlessTextSaysHowToAllowADeniedCall(t *testing.T) {
	var out, errOut bytes.Buffer
	p := newPrinter(false, &out, &errOut)
	call := agent.Call{ID: "c1", Tool: "shell_run"}
	req := approval.Request{CallID: "c1", Tool: "shell_run", Why: "auto-edit asks for high-risk command lines: git branch -D deletes a branch"}
	p.print(agent.ApprovalEvent{Request: req, CallID: "c1", Tool: "shell_run", Phase: "decided", Decision: &approval.Decision{Choice: approval.Deny, By: "headless"}})
	p.print(agent.ToolResultEvent{Call: call, Status: agent.StatusDenied, Message: "shell_run needs approval, and this session runs without a person to approve"})
	got := errOut.String()
	want := "  it asks for approval (auto-edit asks for high-risk command lines: git branch -D deletes a branch): allow it with an [[approval.rules]] entry in the config or a higher --autonomy level\n"
	if !strings.Contains(got, "✗ shell_run denied") || !strings.HasSuffix(got, want) {
		t.Fatalf("stderr %q; want the denial, then %q", got, want)
	}
	// A denial that names the reason is not followed by it again.
	errOut.Reset()
	p.print(agent.ApprovalEvent{Request: req, CallID: "c2", Tool: "shell_run", Phase: "decided", Decision: &approval.Decision{Choice: approval.Deny, By: "headless"}})
	p.print(agent.ToolResultEvent{Call: agent.Call{ID: "c2", Tool: "shell_run"}, Status: agent.StatusDenied, Message: "shell_run needs approval (" + req.Why + "), and this session runs without a person to approve"})
	got = errOut.String()
	if strings.Count(got, req.Why) != 1 || !strings.HasSuffix(got, "\n  allow it with an [[approval.rules]] entry in the config or a higher --autonomy level\n") {
		t.Fatalf("stderr %q; want the reason once, then how to allow it", got)
	}
}
