package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"myclaw/approval"
	"myclaw/tools"
)

func claimedReadOnlyRequest(server string) approval.Request {
	meta := tools.Meta{Name: "docs/lookup", Capability: "mcp:docs/lookup", Source: tools.SourceMCP, Definition: "abc123",
		Claims: "the server says: read-only (unverified: the server is not trusted)", HintServer: server}
	return approval.Request{CallID: "h1", Tool: meta.Name, Meta: meta, Args: json.RawMessage(`{"q":"x"}`),
		Capability: "mcp:docs/lookup@abc123", Summary: "Call docs/lookup"}
}

func TestPaneOffersToTrustAServersReadOnlyHints(t *testing.T) {
	m, p := withPane(t, claimedReadOnlyRequest("docs"))
	if view := ansi.Strip(m.View()); !strings.Contains(view, "t trust hints") {
		t.Fatalf("the key line does not offer the hint grant:\n%s", view)
	}
	m = press(t, m, "?")
	view := strings.Join(strings.Fields(ansi.Strip(m.View())), " ")
	if !strings.Contains(view, "t approve, and trust the read-only hints of docs in this project") {
		t.Fatalf("the pane does not offer the hint grant:\n%s", view)
	}
	press(t, m, "t")
	d, ok := decision(t, p)
	if !ok || d.Choice != approval.ApproveOnce || !d.TrustHints {
		t.Fatalf("t: decision %+v (%v); want approve with TrustHints", d, ok)
	}
}

func TestPaneOffersNoHintGrantWithoutAClaim(t *testing.T) {
	m, p := withPane(t, claimedReadOnlyRequest(""))
	m = press(t, m, "?")
	if view := ansi.Strip(m.View()); strings.Contains(view, "trust the read-only hints") || strings.Contains(view, "trust hints") {
		t.Fatalf("offered a hint grant for a tool that claims nothing:\n%s", view)
	}
	press(t, m, "t")
	if d, ok := decision(t, p); ok {
		t.Errorf("t decided %+v", d)
	}
}
