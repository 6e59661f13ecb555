package ui

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
)

// KeyMap holds every key binding of the TUI, with the help text /help shows.
type KeyMap struct {
	Send        key.Binding
	Newline     key.Binding
	Cancel      key.Binding
	Interrupt   key.Binding
	PageUp      key.Binding
	PageDown    key.Binding
	Top         key.Binding
	Bottom      key.Binding
	HistoryPrev key.Binding
	HistoryNext key.Binding
	Complete    key.Binding
	ToggleTools key.Binding
	ToggleThink key.Binding
	// ExternalEditor opens $VISUAL/$EDITOR on the prompt.
	ExternalEditor key.Binding
	// ExpandPaste puts the text of collapsed pastes in the input.
	ExpandPaste key.Binding
	// ToggleMouse turns mouse capture off (the terminal selects text) and on.
	ToggleMouse key.Binding
	// CycleLevel steps the autonomy level: ask, auto-edit, full, plan, ask.
	CycleLevel key.Binding

	// Approval pane.
	ApproveOnce    key.Binding
	ApproveSession key.Binding
	SaveRule       key.Binding
	// SaveRuleUserWide saves the rule for every project, not only this one.
	SaveRuleUserWide key.Binding
	Deny             key.Binding
	DenyReason       key.Binding
	Edit             key.Binding
	// ApproveNetwork and ApproveNetworkSession approve a sandboxed shell
	// command with network, once or for the session. TrustHints approves a
	// call of a tool an untrusted MCP server claims is read-only and trusts
	// that server's read-only hints in the project.
	ApproveNetwork        key.Binding
	ApproveNetworkSession key.Binding
	TrustHints            key.Binding
	// PreviewRun runs a shell command first in a scratch layer.
	PreviewRun key.Binding
	// ApproveEnter approves like ApproveOnce, except on a call that needs
	// a deliberate answer (high risk, or after untrusted text).
	ApproveEnter key.Binding
	// DenyEsc ends the turn: every call still waiting is not run.
	DenyEsc key.Binding
	// Details shows or hides what the pane keeps behind it: how the call
	// runs and is undone, the full parse, what the grants would save.
	Details key.Binding
	// Choose takes the highlighted item of a list (/sessions, /fork).
	Choose        key.Binding
	PreviewUp     key.Binding
	PreviewDown   key.Binding
	PreviewPgUp   key.Binding
	PreviewPgDown key.Binding

	// Editor edits the prompt and the pane's editors.
	Editor EditorKeyMap
}

// EditorKeyMap holds the editing keys of the prompt (readline's, mostly).
type EditorKeyMap struct {
	DeleteBack, DeleteForward         key.Binding
	Left, Right, Up, Down             key.Binding
	LineStart, LineEnd                key.Binding
	WordLeft, WordRight               key.Binding
	DeleteWordBack, DeleteWordForward key.Binding
	DeleteToStart, DeleteToEnd        key.Binding
	Indent                            key.Binding
}

// ShortHelp implements help.KeyMap: the keys of every moment.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Send, k.Newline, k.Cancel, k.Interrupt}
}

// FullHelp implements help.KeyMap: every key, in the groups /help shows
// under helpGroups' titles.
func (k KeyMap) FullHelp() [][]key.Binding {
	out := make([][]key.Binding, len(helpGroups))
	for _, a := range keyActions {
		out[a.group] = append(out[a.group], *a.get(&k))
	}
	return out
}

// KeyMap is a help.KeyMap, so key help lives in one place.
var _ help.KeyMap = KeyMap{}

// helpGroups title FullHelp's groups.
var helpGroups = []string{"keys", "approval pane", "editing the prompt"}

// DefaultKeyMap returns the standard bindings.
func DefaultKeyMap() KeyMap {
	b := func(help string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(keys[0], help))
	}
	return KeyMap{
		Send:      b("send the prompt or command", "enter"),
		Newline:   b("insert a newline", "alt+enter", "ctrl+j"),
		Cancel:    b("cancel the running turn; close the popup", "esc"),
		Interrupt: b("cancel the running turn; twice when idle to quit", "ctrl+c"),
		PageUp:    b("scroll the transcript up (the mouse wheel scrolls too)", "pgup"),
		PageDown:  b("scroll the transcript down", "pgdown"),
		// Home and End belong to the editors; the transcript's ends take Ctrl.
		Top:         b("go to the top of the transcript", "ctrl+home"),
		Bottom:      b("go to the bottom and follow new output", "ctrl+end"),
		HistoryPrev: b("earlier prompt (cursor on the first line)", "up"),
		HistoryNext: b("later prompt (cursor on the last line)", "down"),
		Complete:    b("complete a slash command", "tab"),
		ToggleTools: b("expand or collapse tool results", "ctrl+o"),
		ToggleThink: b("show or hide the model's reasoning", "ctrl+r"),

		ExternalEditor: b("edit the prompt in $VISUAL / $EDITOR", "ctrl+g"),
		ExpandPaste:    b("expand a collapsed paste in the prompt", "ctrl+x"),
		ToggleMouse:    b("mouse capture off (select text with the terminal) or on", "f2"),
		CycleLevel:     b("next autonomy level: ask → auto-edit → full → plan → ask", "shift+tab"),

		ApproveOnce:           b("approve this call once", "y"),
		ApproveSession:        b("approve for the rest of the session", "a"),
		SaveRule:              b("approve, and save as a rule for this project", "s"),
		SaveRuleUserWide:      b("approve, and save as a rule for every project", "S"),
		Deny:                  b("deny this call; the turn goes on", "n"),
		DenyReason:            b("deny with a reason the model reads", "r"),
		Edit:                  b("edit the arguments; enter then approves the edited call (shown once more first)", "e"),
		ApproveNetwork:        b("approve a sandboxed command with network, once", "w"),
		ApproveNetworkSession: b("approve a sandboxed command with network for the session", "W"),
		PreviewRun:            b("run the command first in a preview, then decide on what it changed", "p"),
		TrustHints:            b("approve, and trust this MCP server's read-only hints in this project", "t"),
		ApproveEnter:          b("approve; on a high-risk call, or one after untrusted text, it does nothing: press y", "enter"),
		DenyEsc:               b("end the turn: this call and every call waiting are not run", "esc"),
		Details:               b("show or hide the details: undo, sandbox, the full parse, what a grant saves", "?"),
		Choose:                b("take the highlighted item of a list (/sessions, /fork)", "enter"),
		PreviewUp:             b("scroll the preview", "up", "k"),
		PreviewDown:           b("scroll the preview", "down", "j"),
		PreviewPgUp:           b("scroll the preview a page", "pgup"),
		PreviewPgDown:         b("scroll the preview a page", "pgdown"),

		Editor: EditorKeyMap{
			DeleteBack:        b("delete the character before the cursor", "backspace", "ctrl+h"),
			DeleteForward:     b("delete the character under the cursor", "delete", "ctrl+d"),
			Left:              b("move left", "left", "ctrl+b"),
			Right:             b("move right", "right", "ctrl+f"),
			Up:                b("move up a line", "up", "ctrl+p"),
			Down:              b("move down a line", "down", "ctrl+n"),
			LineStart:         b("go to the start of the line", "home", "ctrl+a"),
			LineEnd:           b("go to the end of the line", "end", "ctrl+e"),
			WordLeft:          b("go back a word", "alt+left", "alt+b", "ctrl+left"),
			WordRight:         b("go forward a word", "alt+right", "alt+f", "ctrl+right"),
			DeleteWordBack:    b("delete the word before the cursor", "ctrl+w", "alt+backspace"),
			DeleteWordForward: b("delete the word after the cursor", "alt+d", "alt+delete"),
			DeleteToStart:     b("delete to the start of the line", "ctrl+u"),
			DeleteToEnd:       b("delete to the end of the line", "ctrl+k"),
			Indent:            b("insert spaces for a tab", "tab"),
		},
	}
}
