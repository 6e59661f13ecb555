package agent

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/approval"
	"myclaw/tools"
)

// claimingTool stands for an MCP tool whose untrusted server says it is
// read-only.
type claimingTool struct {
	meta  tools.Meta
	calls int
}

func (c *claimingTool) Meta() tools.Meta { return c.meta }
func (c *claimingTool) Execute(context.Context, json.RawMessage) (tools.Result, error) {
	c.calls++
	return tools.Result{Body: "ok", Summary: "looked up"}, nil
}
func (c *claimingTool) DryRun(context.Context, json.RawMessage) (tools.Result, error) {
	return tools.Result{Summary: "Call " + c.meta.Name, Capability: c.meta.Capability + "@" + c.meta.Definition}, nil
}

// Approving with "trust this server's read-only hints" lets the next call
// run without asking, and saves the grant for the project.
func TestTrustHintsDecisionGrantsAndSaves(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("", call{"h1", "docs__lookup", `{}`}),
		openAIStyle("", call{"h2", "docs__lookup", `{}`}),
		openAIStyle("done"),
	)
	grants := filepath.Join(t.TempDir(), approval.HintGrantsFile)
	tool := &claimingTool{meta: tools.Meta{Name: "docs/lookup", Description: "Look up.", Schema: json.RawMessage(`{"type":"object"}`),
		Capability: "mcp:docs/lookup", Source: tools.SourceMCP, Definition: "d1", HintServer: "docs", ReturnsUntrusted: true}}
	h := newHarness(t, approval.Ask, srv, func(o *Options) {
		o.HintGrants = grants
		o.Registry.MustRegister(tool)
	})
	ap := &recordingApprover{d: approval.Decision{Choice: approval.ApproveOnce, TrustHints: true}}
	if err := h.run(context.Background(), "look twice", ap); err != nil {
		t.Fatal(err)
	}
	if len(ap.requests) != 1 || tool.calls != 2 {
		t.Fatalf("asked %d times, ran %d; want one question and two runs", len(ap.requests), tool.calls)
	}
	saved, err := approval.LoadHintGrants(grants, h.ws)
	if err != nil || len(saved) != 1 || saved[0].Server != "docs" || saved[0].Tools["docs/lookup"] != "d1" {
		t.Fatalf("saved %+v, %v", saved, err)
	}
	var said bool
	for _, e := range h.eventsOf("notice") {
		said = said || strings.Contains(e.(NoticeEvent).Text, "read-only hints of docs")
	}
	if !said {
		t.Error("no notice says the hints are trusted")
	}
	// /tools shows it.
	for _, info := range h.agent.Tools() {
		if info.Meta.Name != "docs/lookup" {
			continue
		}
		found := false
		for _, kv := range info.Details {
			found = found || (kv[0] == "read_only_hint" && strings.Contains(kv[1], "trusted in this project"))
		}
		if !found {
			t.Errorf("/tools details %v lack the grant", info.Details)
		}
	}
}

// A session switched to is marked as running; one another process runs is
// not taken over.
func TestSwitchingSessionsHoldsTheNewOne(t *testing.T) {
	h := newHarness(t, approval.Ask, newFakeServer(t, openAIStyle("hi")))
	busy, err := h.store.NewSession(h.ws, "m")
	if err != nil {
		t.Fatal(err)
	}
	if err := busy.Hold(); err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	if err := h.agent.OpenSession(busy.Info().ID); err == nil || !strings.Contains(err.Error(), "another myclaw process") {
		t.Fatalf("resuming a running session: %v", err)
	}
	if err := h.agent.NewConversation(); err != nil {
		t.Fatal(err)
	}
	active, err := h.store.Active(h.ws, busy.Info().ID)
	if err != nil || len(active) != 1 || active[0].ID != h.agent.Session().Info().ID {
		t.Fatalf("Active = %v, %v; want the new conversation's session", active, err)
	}
}
