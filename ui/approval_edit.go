package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf16"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/approval"
	"myclaw/tools/termtext"
)

func (a *approvalPane) startEdit() {
	a.mode, a.errMsg = modeEdit, ""
	text := ""
	a.shell = false
	if cmd, ok := shellCommand(a.p.req); ok {
		a.shell, text = true, termtext.Editable(cmd)
	} else {
		var b bytes.Buffer
		if json.Indent(&b, a.p.req.Args, "", "  ") == nil {
			text = jsonEscapeInvisible(b.String())
		} else {
			text = termtext.Editable(string(a.p.req.Args))
		}
	}
	a.editor = newEditor(a.c, "", 8)
	a.editor.setValue(text)
	a.shown = a.editor.value()
	a.fitEditor()
}

func (a *approvalPane) fitEditor() { a.editor.setWidth(max(a.c.width-2, minWidth)) }

// submit finishes the reason or the edit. A bad edit keeps the text and
// says what is wrong.
func (a *approvalPane) submit() (*approvalPane, tea.Cmd) {
	text := a.editor.value()
	if a.mode == modeReason {
		return a, a.decide(approval.Decision{Choice: approval.Deny, Reason: strings.TrimSpace(text)})
	}
	if text == a.shown {
		// Untouched: exactly the call that was asked about runs, byte for
		// byte, whatever the editor had to escape to show it.
		return a.unchanged()
	}
	if a.shell {
		text = termtext.ParseEditable(text)
	}
	args, changed, err := editedArgs(a.p.req, a.shell, text)
	if err != nil {
		a.errMsg = err.Error()
		return a, nil
	}
	if !changed {
		return a.unchanged()
	}
	return a, a.decide(approval.Decision{Choice: approval.Edit, Args: args})
}

// unchanged ends an edit that changed nothing: Enter there approves the
// call as Enter on the pane would, so a call that takes y goes back to
// the pane.
func (a *approvalPane) unchanged() (*approvalPane, tea.Cmd) {
	if a.deliberate == "" {
		return a, a.decide(approval.Decision{Choice: approval.ApproveOnce})
	}
	k := &a.c.keys
	a.mode, a.errMsg = modeChoose, ""
	a.note = "nothing changed: press " + k.ApproveOnce.Help().Key + " to approve the call as shown, or " + k.Deny.Help().Key + " to deny it"
	return a, nil
}

// jsonEscapeInvisible writes every character of indented JSON that would
// not show as itself (controls cannot appear raw in valid JSON; invisible
// and format characters can) as a \uXXXX escape, which decodes to the
// same string: the editor then shows them and keeps them.
func jsonEscapeInvisible(s string) string {
	if !termtext.HasHidden(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r == '\n' || !termtext.HasHidden(string(r)) {
			b.WriteRune(r)
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(&b, "\\u%04x", u)
		}
	}
	return b.String()
}

// shellCommand returns the command line of a shell_run request, if it has one.
func shellCommand(req approval.Request) (string, bool) {
	if !req.Meta.Shell && req.Command == nil {
		return "", false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(req.Args, &m) != nil {
		return "", false
	}
	var cmd string
	if raw, ok := m["command"]; !ok || json.Unmarshal(raw, &cmd) != nil {
		return "", false
	}
	return cmd, true
}

// editedArgs turns the edited text into the arguments that go back in the
// Decision: the command line put back into the original arguments for
// shell_run, or a JSON object. changed is false when nothing differs.
func editedArgs(req approval.Request, shell bool, text string) (json.RawMessage, bool, error) {
	if shell {
		if strings.TrimSpace(text) == "" {
			return nil, false, fmt.Errorf("the command is empty: type a command, or press esc to go back")
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(req.Args, &m); err != nil {
			return nil, false, fmt.Errorf("the original arguments are not a JSON object: %w", err)
		}
		old, _ := shellCommand(req)
		if text == old {
			return req.Args, false, nil
		}
		b, err := json.Marshal(text)
		if err != nil {
			return nil, false, err
		}
		m["command"] = b
		out, err := json.Marshal(m)
		return out, true, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &m); err != nil || m == nil {
		if err == nil {
			err = fmt.Errorf("null")
		}
		return nil, false, fmt.Errorf("the arguments must be a JSON object: %w", err)
	}
	var b, old bytes.Buffer
	if err := json.Compact(&b, []byte(text)); err != nil {
		return nil, false, fmt.Errorf("the arguments must be a JSON object: %w", err)
	}
	if json.Compact(&old, req.Args) == nil && bytes.Equal(b.Bytes(), old.Bytes()) {
		return req.Args, false, nil
	}
	return json.RawMessage(b.Bytes()), true, nil
}
