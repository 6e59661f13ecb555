package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"myclaw/agent"
)

// A file name with a control character in it shows on the applied card
// and in /diff escaped as the approval pane showed it, not cut out: what
// was approved and what is reported read the same.
func TestCardAndDiffShowFileNamesEscapedAsThePaneDoes(t *testing.T) {
	diff := "--- /dev/null\n+++ b/x\x1b[8m.txt\n@@ -0,0 +1 @@\n+hi\n"
	const shown = `+++ b/x\e[8m.txt`

	req := writeRequest()
	req.Preview = diff
	pm, _ := withPane(t, req)
	if got := ansi.Strip(strings.Join(pm.pane.view(), "\n")); !strings.Contains(got, shown) {
		t.Fatalf("the pane does not show %q:\n%s", shown, got)
	}

	m := startFakeTurn(t, newTestModel(t, newFake()), "write it")
	w := call("w1", "fs_write", `{"path":"x\u001b[8m.txt","content":"hi\n"}`)
	m = events(m,
		agent.ToolCallEvent{Call: w, Phase: "started"},
		agent.ToolResultEvent{Call: w, Status: agent.StatusOK, Duration: time.Millisecond, Reversible: true, Diff: diff, Content: `{"ok":true}`},
	)
	if got := ansi.Strip(m.tr.text(m.c)); !strings.Contains(got, shown) {
		t.Errorf("the applied card does not show %q:\n%s", shown, got)
	}

	f := newFake()
	f.diffOut = diff
	m = runLine(t, newTestModel(t, f), "/diff")
	if got := ansi.Strip(lastBlock(m)); !strings.Contains(got, shown) {
		t.Errorf("/diff does not show %q:\n%s", shown, got)
	}
}
