package ui

import (
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"myclaw/agent"
)

func TestContextGolden(t *testing.T) {
	d := &directFake{fakeBackend: newFake(), report: agent.ContextReport{
		Window: 32768, System: 2100, Catalog: 3400, Tools: 12, Conversation: 5200, Messages: 14, Attached: 300, Free: 21768, LastUsage: 10950,
		Instructions: []agent.InstructionShare{
			{Path: "/home/u/.config/myclaw/AGENTS.md", Scope: "user", Tokens: 60},
			{Path: "AGENTS.md", Scope: "project", Untrusted: true, Tokens: 540},
			{Path: "svc/api/AGENTS.md", Scope: "subdir", Untrusted: true, Truncated: true, Tokens: 8192},
		},
	}}
	m := newTestModel(t, d)
	m = typeText(m, "/context")
	m, cmd := updateCmd(m, keyMsg("enter"))
	m = runCmd(t, m, cmd)
	golden.RequireEqual(t, []byte(screen(m)))
}
