package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"myclaw/approval"
)

// Every key of the pane is on screen at any width: what does not fit on
// the key line goes on another, never dropped.
func TestApprovalKeysAreNeverCut(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  func() approval.Request
		want []string
	}{
		{"routine shell", routineShellRequest, []string{"enter approve", "? details", "w +network", "esc end turn"}},
		{"risky shell", shellRequest, []string{"y approve (not enter)", "e edit", "? details", "esc end turn"}},
		{"file edit", writeRequest, []string{"n deny", "? details", "esc end turn"}},
	} {
		for _, w := range []int{50, 80, 100, 120} {
			t.Run(fmt.Sprintf("%s %d", tc.name, w), func(t *testing.T) {
				m, _ := withPane(t, tc.req())
				m = update(m, sizeMsg(w, 24))
				pane := m.pane.view()
				text := ansi.Strip(strings.Join(pane, "\n"))
				for _, want := range tc.want {
					if !strings.Contains(text, want) {
						t.Errorf("the pane at %d columns lacks %q:\n%s", w, want, text)
					}
				}
				for _, l := range pane {
					if ansi.StringWidth(l) > w {
						t.Errorf("a line is wider than %d: %q", w, ansi.Strip(l))
					}
				}
			})
		}
	}
}
