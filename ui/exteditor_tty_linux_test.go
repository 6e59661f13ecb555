//go:build linux

package ui

import (
	"os"
	"testing"

	"myclaw/internal/proctest"
)

// The editor reads the terminal itself. Left to Bubble Tea, it would get
// the TUI's input reader through a pipe: editors refuse a pipe or
// misbehave, and the copy into it keeps the TUI from coming back after
// the editor quit until the person presses Enter.
func TestEditorReadsTheTerminal(t *testing.T) {
	_, slave := proctest.OpenPTY(t, false)
	stdin := os.Stdin
	os.Stdin = slave
	t.Cleanup(func() { os.Stdin = stdin })
	for _, what := range []string{"prompt", "plan"} {
		cmd, read, err := editText("text", what, func(k string) string {
			if k == "EDITOR" {
				return "true"
			}
			return ""
		})
		if err != nil {
			t.Fatal(err)
		}
		if cmd.Stdin != slave {
			t.Errorf("the %s editor's stdin is %T, not the terminal: Bubble Tea would feed it through a pipe", what, cmd.Stdin)
		}
		if _, err := read(nil); err != nil {
			t.Fatal(err)
		}
	}
}
