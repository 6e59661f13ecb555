package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"myclaw/approval"
)

func sandboxedRequest(c approval.Confinement) approval.Request {
	req := shellRequest()
	req.Taint, req.Why = nil, ""
	req.Confinement = &c
	return req
}

func TestPaneShowsConfinementAndNetworkKeys(t *testing.T) {
	for _, tc := range []struct {
		key     string
		choice  approval.Choice
		network bool
	}{
		{"w", approval.ApproveOnce, true},
		{"W", approval.ApproveSession, true},
		{"y", approval.ApproveOnce, false},
	} {
		m, p := withPane(t, sandboxedRequest(approval.Confinement{Sandboxed: true}))
		view := ansi.Strip(m.View())
		if !strings.Contains(view, "sandbox: writes in workspace + temp, no network") || !strings.Contains(view, "w approve with network once  W with network for the session") {
			t.Fatalf("the pane does not show the confinement and the network keys:\n%s", view)
		}
		press(t, m, tc.key)
		d, ok := decision(t, p)
		if !ok || d.Choice != tc.choice || d.Network != tc.network {
			t.Errorf("%s: decision %+v (%v); want %s with network %v", tc.key, d, ok, tc.choice, tc.network)
		}
	}
}

func TestPaneNotSandboxedOffersNoNetwork(t *testing.T) {
	m, p := withPane(t, sandboxedRequest(approval.Confinement{Why: "this kernel has no Landlock"}))
	view := ansi.Strip(m.View())
	if !strings.Contains(view, "not sandboxed: this kernel has no Landlock") || strings.Contains(view, "with network") {
		t.Fatalf("want the reason and no network keys:\n%s", view)
	}
	press(t, m, "w")
	if d, ok := decision(t, p); ok {
		t.Errorf("w decided %+v on an unsandboxed command", d)
	}
}
