package ui

import (
	"strings"
	"testing"

	"myclaw/agent"
)

// An edited call that failed before it ran is named by its edited
// arguments and not said to have run.
func TestFailedEditedCallCard(t *testing.T) {
	edited := call("e1", "fs_write", `{"path":"../escape.md","content":"x"}`)
	edited.Edited = true
	m := New(newFake(), Options{Workspace: "/work/project", Earlier: []Earlier{
		{Role: "user", Text: "go"},
		{Role: "tool", Text: "↳ fs_write {...}", Call: &agent.CallRecord{Result: agent.ToolResultEvent{Call: edited,
			Status: agent.StatusError, Kind: "permission_denied", Message: `path "../escape.md" is outside the workspace`}}},
	}})
	m = update(m, sizeMsg(80, 30))
	got := m.tr.text(m.c)
	if !strings.Contains(got, "fs_write ../escape.md") || !strings.Contains(got, "failed as you edited it") || strings.Contains(got, "ran with") {
		t.Fatalf("the card of a failed edited call:\n%s", got)
	}
}
