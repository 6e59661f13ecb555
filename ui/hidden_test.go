package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"myclaw/approval"
	"myclaw/tools"
	"myclaw/tools/builtin"
)

// hiddenShellRequest asks to run cmd the way shell_run's dry run would.
func hiddenShellRequest(t *testing.T, cmd string) approval.Request {
	t.Helper()
	cl, err := builtin.ParseCommandLine(cmd, "/work/project")
	if err != nil {
		t.Fatal(err)
	}
	return approval.Request{
		CallID: "c9", Tool: "shell_run",
		Meta:       tools.Meta{Name: "shell_run", Risk: tools.RiskHigh, Capability: "shell:exec"},
		Args:       json.RawMessage(`{"command":` + jsonString(cmd) + `}`),
		Capability: "shell:exec",
		Summary:    "Run `" + tools.ClipOneLine(cmd, 80) + "`",
		Command:    &cl,
	}
}

// What the pane shows is what runs: an OSC string keeps its payload on
// screen and a zero-width space shows where it is; the session grant line
// shows them too.
func TestApprovalShowsHiddenCharacters(t *testing.T) {
	tests := []struct{ cmd, shown, hidden string }{
		{"rm -rf ./build \x1b] ./victim \x07", `rm -rf ./build \e] ./victim \a`, "./victim"},
		{"rm -rf ./bu\u200bild", "rm -rf ./bu⟨U+200B⟩ild", "⟨U+200B⟩"},
	}
	for _, tt := range tests {
		m, _ := withPane(t, hiddenShellRequest(t, tt.cmd))
		s := screen(m)
		if !strings.Contains(s, "$ "+tt.shown) {
			t.Errorf("pane for %q lacks the command shown as %q:\n%s", tt.cmd, tt.shown, s)
		}
		// Shown once: the summary, which repeats the command, is left out.
		if n := strings.Count(s, tt.shown); n != 1 || strings.Contains(s, "Run `") {
			t.Errorf("pane for %q shows the command %d times (want once, without backticks):\n%s", tt.cmd, n, s)
		}
		if strings.ContainsAny(m.View(), "\x07\u200b") {
			t.Errorf("pane for %q lets a raw control or invisible character through", tt.cmd)
		}
	}
}

// Opening the editor and pressing Enter runs the original bytes (a call
// that takes y goes back to the pane, where y approves it); an edit that
// keeps the escapes keeps the characters.
func TestApprovalEditorIsByteExact(t *testing.T) {
	for _, cmd := range []string{"rm -rf ./build \x1b] ./victim \x07", "rm -rf ./bu\u200bild", "printf 'a\tb'"} {
		m, p := withPane(t, hiddenShellRequest(t, cmd))
		press(t, m, "e", "enter", "y")
		d, ok := decision(t, p)
		if !ok || d.Choice != approval.ApproveOnce || d.Args != nil {
			t.Errorf("%q: e then enter gave %+v (%v); want approve once, the call unchanged", cmd, d, ok)
		}

		m, p = withPane(t, hiddenShellRequest(t, cmd))
		m = press(t, m, "e", "end", " ", "backspace", "enter", "y")
		d, ok = decision(t, p)
		if !ok {
			t.Fatalf("%q: no decision after a null edit:\n%s", cmd, screen(m))
		}
		if d.Choice == approval.Edit {
			var a struct{ Command string }
			_ = json.Unmarshal(d.Args, &a)
			if a.Command != cmd {
				t.Errorf("%q: a null edit runs %q", cmd, a.Command)
			}
		}
	}

	// JSON arguments keep an invisible character as an escape.
	req := writeRequest()
	req.Args = json.RawMessage("{\"path\":\"notes/to\u200bdo.md\",\"content\":\"x\"}")
	m, p := withPane(t, req)
	m = press(t, m, "e")
	if v := m.pane.editor.value(); !strings.Contains(v, `to\u200bdo.md`) {
		t.Errorf("editor shows %q; want the zero-width space escaped", v)
	}
	m = press(t, m, "end", " ", "backspace", "enter")
	d, ok := decision(t, p)
	if !ok {
		t.Fatalf("no decision for the JSON edit:\n%s", screen(m))
	}
	args := req.Args
	if d.Choice == approval.Edit {
		args = d.Args
	}
	var a struct{ Path string }
	if err := json.Unmarshal(args, &a); err != nil || a.Path != "notes/to\u200bdo.md" {
		t.Errorf("the edit runs path %q (%v); want the original one", a.Path, err)
	}
}
