package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"myclaw/approval"
)

func sandboxedRequest(c approval.Confinement) approval.Request {
	req := shellRequestFor("go test ./...")
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
		if !strings.Contains(view, "sandboxed · no network") || !strings.Contains(view, "w +network") {
			t.Fatalf("the pane does not show the confinement and the network key:\n%s", view)
		}
		m = press(t, m, "?")
		view = ansi.Strip(m.View())
		if !strings.Contains(view, "sandbox: writes in workspace + temp, no network") || !strings.Contains(view, "w approve with network once  W with network for the session") {
			t.Fatalf("the details do not show the confinement and the network keys:\n%s", view)
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

// A risky line gets no session grant and no saved rule: a, s, S and W do
// nothing and the pane says why; a plain line offers them all.
func TestPaneHidesGrantsForRiskyCalls(t *testing.T) {
	m, p := withPane(t, sandboxedRequest(approval.Confinement{Sandboxed: true}))
	m.pane.p.req = shellRequest() // rm -rf, curl | sh
	m.pane = newApprovalPane(m.c, m.pane.p)
	m.pane.armed = true
	m = press(t, m, "?")
	view := strings.Join(strings.Fields(ansi.Strip(m.View())), " ")
	if strings.Contains(view, "a/s grant") || strings.Contains(view, "allows for this session") || !strings.Contains(view, "once only, no session grant or saved rule: the command line is risky") {
		t.Fatalf("the pane offers grants for a risky line:\n%s", view)
	}
	for _, k := range []string{"a", "s", "S", "W"} {
		press(t, m, k)
		if d, ok := decision(t, p); ok {
			t.Fatalf("%s decided %+v on a risky line", k, d)
		}
	}
	for _, tc := range []struct {
		key            string
		save, userWide bool
	}{{"a", false, false}, {"s", true, false}, {"S", true, true}} {
		m, p := withPane(t, sandboxedRequest(approval.Confinement{Sandboxed: true}))
		if view := ansi.Strip(m.View()); !strings.Contains(view, "a/s grant") {
			t.Fatalf("a plain line should offer the grants:\n%s", view)
		}
		m = press(t, m, "?")
		view := strings.Join(strings.Fields(ansi.Strip(m.View())), " ")
		if !strings.Contains(view, "a allows for this session") || !strings.Contains(view, "saves it as a rule for this project (S: for every project)") {
			t.Fatalf("the details should explain the grants:\n%s", view)
		}
		press(t, m, tc.key)
		d, ok := decision(t, p)
		if !ok || d.Choice != approval.ApproveSession || d.SaveRule != tc.save || d.UserWide != tc.userWide {
			t.Errorf("%s: decision %+v (%v); want a session grant, save %v, user-wide %v", tc.key, d, ok, tc.save, tc.userWide)
		}
	}
}
