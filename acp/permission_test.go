package acp

import (
	"testing"

	"myclaw/approval"
	"myclaw/tools"
)

// An edit agent's merge is approved once or rejected: the editor is not
// offered "allow for the session" for it, as the TUI's pane is not.
func TestNoSessionOptionForAnEditAgentsMerge(t *testing.T) {
	session := func(req approval.Request) bool {
		for _, o := range permissionOptions(req) {
			if o.OptionId == optAllowSession {
				return true
			}
		}
		return false
	}
	write := approval.Request{Tool: "fs_write", Meta: tools.Meta{Name: "fs_write", Risk: tools.RiskMedium}, Capability: "fs:write:a.txt"}
	if !session(write) {
		t.Fatal("a plain write is not offered a session grant; the test proves nothing")
	}
	merge := approval.Request{Tool: "agent", Meta: tools.Meta{Name: "agent", Risk: tools.RiskMedium, Capability: "agent:edit"}, Capability: "agent:edit", Previewed: true}
	if session(merge) {
		t.Error("an edit agent's merge is offered a session grant")
	}
	previewed := write
	previewed.Previewed = true
	if session(previewed) {
		t.Error("a preview's result is offered a session grant")
	}
}
