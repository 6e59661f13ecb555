package ui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"myclaw/approval"
	"myclaw/tools"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

func TestPaneOffersAPreviewAndThenAppliesOrDiscards(t *testing.T) {
	req := shellRequest()
	req.Taint = nil
	req.Confinement = &approval.Confinement{Sandboxed: true}
	req.Previewable = true
	m, p := withPane(t, req)
	if s := screen(m); !strings.Contains(s, "p preview") {
		t.Fatalf("the pane does not offer a preview:\n%s", s)
	}
	if s := screen(press(t, m, "?")); !strings.Contains(s, "p preview: run it once in a scratch layer") {
		t.Fatalf("the details do not explain the preview:\n%s", s)
	}
	press(t, m, "p")
	if d, ok := decision(t, p); !ok || d.Choice != approval.Preview {
		t.Fatalf("p decided %+v, %v", d, ok)
	}

	res := shellRequest()
	res.Taint = nil
	res.Confinement = &approval.Confinement{Sandboxed: true}
	res.Previewed = true
	res.Summary = "Previewed `sed -i …`: exit 0, would change 1 file (1 modified)"
	res.Preview = "$ sed -i s/a/b/ x.txt\n\nM x.txt\n--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-a\n+b"
	m, p = withPane(t, res)
	s := screen(m)
	for _, want := range []string{"-a", "+b", "M x.txt", "applies these changes", "n discards them"} {
		if !strings.Contains(s, want) {
			t.Errorf("the previewed pane lacks %q:\n%s", want, s)
		}
	}
	s = screen(press(t, m, "?"))
	for _, gone := range []string{"allows for this session", "grant", "with network", "+network", "p preview"} {
		if strings.Contains(s, gone) {
			t.Errorf("the previewed pane offers %q:\n%s", gone, s)
		}
	}
	// a, s, e and w do nothing on a previewed result; y applies it once.
	m = press(t, m, "a", "s", "e", "w")
	if _, ok := decision(t, p); ok {
		t.Fatal("a grant key answered a previewed result")
	}
	press(t, m, "y")
	if d, ok := decision(t, p); !ok || d.Choice != approval.ApproveOnce {
		t.Fatalf("y decided %+v, %v", d, ok)
	}
}

// The pane names where a call reaches by its capability, for any tool.
func TestPaneShowsTheNetworkTarget(t *testing.T) {
	req := approval.Request{
		CallID: "f1", Tool: "docs/get",
		Meta:       tools.Meta{Name: "docs/get", Risk: tools.RiskMedium, Capability: "net:http"},
		Args:       json.RawMessage(`{"url":"https://example.com/a?b=1"}`),
		Capability: "net:http:example.com", Summary: "Fetch a page",
	}
	m, _ := withPane(t, req)
	s := screen(m)
	if !strings.Contains(s, "host: example.com") || !strings.Contains(s, "url: https://example.com/a?b=1") {
		t.Fatalf("the pane does not name the target:\n%s", s)
	}
}

// Keys typed as a pane opens (the rest of a prompt someone was typing) are
// not taken as an answer; once armed, the pane takes them.
func TestPaneIgnoresTypeAhead(t *testing.T) {
	paneArmDelay = 400 * time.Millisecond
	defer func() { paneArmDelay = 0 }()
	m := startFakeTurn(t, newTestModel(t, newFake()), "go")
	p := &pendingApproval{req: writeRequest(), ctx: context.Background(), reply: make(chan approval.Decision, 1)}
	m, cmd := updateCmd(m, approvalRequestMsg{p})
	if m.pane == nil || cmd == nil {
		t.Fatal("no pane, or nothing scheduled to arm it")
	}
	m = press(t, m, "e", "y", "s")
	if _, ok := decision(t, p); ok || m.pane.mode != modeChoose {
		t.Fatal("keys typed before the pane was armed acted on it")
	}
	m = update(m, paneArmedMsg{p: p})
	press(t, m, "y")
	if d, ok := decision(t, p); !ok || d.Choice != approval.ApproveOnce {
		t.Fatalf("after arming, y decided %+v, %v", d, ok)
	}
}

// At 40 columns no line of the pane is cut: the long ones wrap; none is
// wider than the screen, the title included.
func TestPaneWrapsAtFortyColumns(t *testing.T) {
	req := writeRequest()
	req.Position, req.Count = 2, 3
	m, _ := withPane(t, req)
	m.pane.edited = true
	m = update(m, tea.WindowSizeMsg{Width: 40, Height: 30})
	m = press(t, m, "?")
	for _, l := range append(m.pane.footer(), m.pane.body()...) {
		if strings.HasSuffix(ansi.Strip(l), "…") {
			t.Errorf("line cut: %q", ansi.Strip(l))
		}
	}
	for _, l := range m.pane.view() {
		if w := ansi.StringWidth(l); w > 40 {
			t.Errorf("line wider than the screen (%d): %q", w, ansi.Strip(l))
		}
	}
}

// While a preview runs, keys do not reach the prompt (a "y" meant for the
// pane must not become a prompt); the pane comes back with the result.
func TestKeysWaitWhileAPreviewRuns(t *testing.T) {
	req := shellRequest()
	req.Taint = nil
	req.Confinement = &approval.Confinement{Sandboxed: true}
	req.Previewable = true
	m, _ := withPane(t, req)
	m = press(t, m, "p")
	if m.pane != nil || !m.previewing || !strings.Contains(strings.Join(m.bottomView(), "\n"), "previewing") {
		t.Fatalf("after p: pane %v, previewing %v, bottom %q", m.pane != nil, m.previewing, m.bottomView())
	}
	m = press(t, m, "y", "e", "s")
	if v := m.input.ta.value(); v != "" {
		t.Fatalf("keys typed during the preview reached the prompt: %q", v)
	}
	res := req
	res.Previewable, res.Previewed = false, true
	p := &pendingApproval{req: res, ctx: context.Background(), reply: make(chan approval.Decision, 1)}
	m = update(m, approvalRequestMsg{p})
	if m.pane == nil || m.previewing {
		t.Fatal("the result's pane did not come back")
	}
	press(t, m, "y")
	if d, ok := decision(t, p); !ok || d.Choice != approval.ApproveOnce {
		t.Fatalf("y on the result decided %+v, %v", d, ok)
	}
}
