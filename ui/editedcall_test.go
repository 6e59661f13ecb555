package ui

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/teatest"
)

// A call run as the person edited it says so once, on its card: no
// notice repeats it.
func TestEditedCallSaysSoOnce(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("shell_run needs bash, which is not installed here")
	}
	a, ws, _ := scriptedAgent(t, scriptedCall{"shell_run", `{"command":"echo hi"}`})
	tm := teatest.NewTestModel(t, New(a, Options{Workspace: ws}), teatest.WithInitialTermSize(testWidth, testHeight))
	tm.Type("run: echo hi")
	send(tm, "enter")
	waitFor(t, tm, "approve shell_run?", "$ echo hi")
	send(tm, "e")
	waitFor(t, tm, "edit the command")
	tm.Type(" there")
	send(tm, "enter")
	waitFor(t, tm, "approve shell_run? · as you edited it", "$ echo hi there")
	send(tm, "enter")
	waitFor(t, tm, "All done.")
	m := quitProgram(t, tm)
	view := m.tr.text(m.c)
	if n := strings.Count(view, "edited"); n != 1 || !strings.Contains(view, "ran with the arguments as you edited them") {
		t.Fatalf("the transcript names the edit %d times; want once, on the card:\n%s", n, view)
	}
}
