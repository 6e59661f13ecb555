package ui

import (
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// maxInputRows is the tallest the prompt input grows before it scrolls.
const maxInputRows = 6

// maxPopupRows bounds the completion popup.
const maxPopupRows = 8

// inputModel is the prompt input: an editor with recall of earlier
// prompts and a completion popup for slash commands.
type inputModel struct {
	c       *common
	ta      editor
	rule    string // the rule above the input, rendered for the width
	history []string
	histIdx int // len(history) when not recalling
	draft   string
	// chipped maps a prompt of history sent with pastes to how the input
	// showed it, so recall brings its chips back; draftPastes are the
	// draft's while recalling.
	chipped     map[string]sentText
	draftPastes []pasteChip
	matches     []command
	// files are the @ completion's paths; wantsFiles is set while the
	// word at the cursor is an @mention.
	files      []string
	wantsFiles bool
	sel        int
	closed     bool // the popup was dismissed for the current text
	// pastes are the large pastes shown as chips in the text.
	pastes []pasteChip
	// sent is what the input held when it was last sent.
	sent sentText
	// spaceAdded is set while the last key completed a file mention,
	// which ends in a space: a space typed next is not added again.
	spaceAdded bool
}

func newInput(c *common) inputModel {
	in := inputModel{c: c}
	in.ta = newEditor(c, "Ask anything · / for commands · "+c.keys.Interrupt.Help().Key+" twice to quit", maxInputRows)
	// The prompt mark is drawn every frame: styled once per colour
	// profile, not at every frame.
	var mark string
	markProfile := termenv.Profile(-1)
	in.ta.setPrompt(2, func(row int) string {
		if row != 0 {
			return "  "
		}
		if p := lipgloss.ColorProfile(); p != markProfile {
			mark, markProfile = c.styles.Prompt.Render("❯ "), p
		}
		return mark
	})
	in.resize()
	return in
}

// resize fits the input to the screen's width.
func (in *inputModel) resize() {
	w := max(in.c.width, minWidth)
	in.ta.setWidth(w)
	in.rule = in.c.styles.InputRule.Render(strings.Repeat("─", w))
}

func (in *inputModel) setValue(s string) {
	in.ta.setValue(s)
	in.closed = false
	in.refresh()
}

// popupVisible reports whether the completion popup shows.
func (in *inputModel) popupVisible() bool {
	return (len(in.matches) > 0 || len(in.files) > 0) && !in.closed
}

// popupLen is how many entries the popup has.
func (in *inputModel) popupLen() int { return len(in.matches) + len(in.files) }

// refresh recomputes the popup after the text changed.
func (in *inputModel) refresh() {
	v := in.ta.value()
	prev := len(in.matches)
	in.matches = nil
	if strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \n\t") {
		in.matches = matchCommands(in.c.allCommands(), v[1:])
	}
	if len(in.matches) != prev {
		in.sel = 0
	}
	in.sel = min(in.sel, max(len(in.matches)-1, 0))
	in.wantsFiles = in.refreshMentions()
}

// complete replaces the typed command name with the selected match, or
// the model name after /model with the server's model it starts.
func (in *inputModel) complete() {
	if v := in.ta.value(); strings.HasPrefix(v, "/model ") {
		if name, ok := completeModel(in.c.models, strings.TrimSpace(strings.TrimPrefix(v, "/model "))); ok {
			in.ta.setValue("/model " + name)
			in.refresh()
		}
		return
	}
	if !in.popupVisible() {
		return
	}
	if len(in.files) > 0 {
		in.completeMention()
		return
	}
	cmd := in.matches[in.sel]
	v := "/" + cmd.name
	if cmd.args != "" {
		v += " "
	}
	in.ta.setValue(v)
	in.refresh()
	in.closed = true
}

// submit takes the text, remembers it for recall and clears the input.
func (in *inputModel) submit() string {
	shown := in.ta.value()
	v := in.expandPastes(shown)
	if strings.TrimSpace(v) == "" {
		return ""
	}
	in.sent = sentText{shown: shown, pastes: in.pastes}
	if len(in.pastes) > 0 {
		if in.chipped == nil {
			in.chipped = map[string]sentText{}
		}
		in.chipped[v] = in.sent
	}
	in.pastes = nil
	if n := len(in.history); n == 0 || in.history[n-1] != v {
		in.history = append(in.history, v)
	}
	in.histIdx = len(in.history)
	in.draft = ""
	in.ta.reset()
	in.closed = false
	in.refresh()
	return v
}

// recall moves through earlier prompts: -1 older, +1 newer. The text being
// typed is kept as a draft and comes back past the newest prompt.
func (in *inputModel) recall(dir int) {
	if len(in.history) == 0 {
		return
	}
	i := in.histIdx + dir
	if i < 0 || i > len(in.history) {
		return
	}
	if in.histIdx == len(in.history) {
		in.draft, in.draftPastes = in.ta.value(), in.pastes
	}
	in.histIdx = i
	switch s, ok := in.chipped[in.history[min(i, len(in.history)-1)]]; {
	case i == len(in.history):
		in.ta.setValue(in.draft)
		in.pastes = in.draftPastes
	case ok:
		in.ta.setValue(s.shown)
		in.pastes = slices.Clone(s.pastes)
	default:
		in.ta.setValue(in.history[i])
		in.pastes = nil
	}
	in.closed = true
	in.refresh()
}

// update handles a key for the input. It returns the submitted text when
// Enter sends something.
func (in *inputModel) update(km tea.KeyMsg) string {
	k := &in.c.keys
	if in.spaceAdded {
		in.spaceAdded = false
		if km.Type == tea.KeySpace && !km.Paste && in.ta.col > 0 && in.ta.lines[in.ta.row][in.ta.col-1] == ' ' {
			return ""
		}
	}
	switch {
	case km.Paste && in.pasteAsChip(string(km.Runes)),
		km.Type == tea.KeyBackspace && in.deleteChipBefore():
		in.closed = false
		in.histIdx = len(in.history)
		in.refresh()
		return ""
	case key.Matches(km, k.ExpandPaste):
		in.expandPastesInPlace()
		return ""
	case key.Matches(km, k.Send) && !km.Paste:
		if in.popupVisible() && len(in.files) > 0 {
			// A mention typed out in full is not completed again: Enter
			// sends the prompt.
			if tok, ok := in.ta.mentionToken(); !ok || tok != in.files[in.sel] {
				in.completeMention()
				return ""
			}
		} else if in.popupVisible() {
			cmd := in.matches[in.sel]
			if strings.TrimPrefix(in.ta.value(), "/") != cmd.name {
				in.complete()
				return ""
			}
		}
		return in.submit()
	case key.Matches(km, k.Complete):
		in.complete()
		return ""
	case key.Matches(km, k.HistoryPrev):
		if in.popupVisible() {
			in.sel = (in.sel + in.popupLen() - 1) % in.popupLen()
			return ""
		}
		if in.ta.line() == 0 {
			in.recall(-1)
			return ""
		}
	case key.Matches(km, k.HistoryNext):
		if in.popupVisible() {
			in.sel = (in.sel + 1) % in.popupLen()
			return ""
		}
		if in.ta.line() == in.ta.lineCount()-1 {
			in.recall(+1)
			return ""
		}
	}
	if in.ta.update(km) {
		in.closed = false
		in.histIdx = len(in.history)
		in.refresh()
	}
	return ""
}

// view is the rule above the input and the input itself.
func (in *inputModel) view() []string {
	return append([]string{in.rule}, in.ta.view()...)
}

// popupView lists the matching commands, the selected one highlighted.
func (in *inputModel) popupView() []string {
	if !in.popupVisible() {
		return nil
	}
	if len(in.files) > 0 {
		return in.mentionPopupView()
	}
	st := &in.c.styles
	w := max(in.c.width, minWidth)
	nameW := 0
	for _, c := range in.matches {
		nameW = max(nameW, ansi.StringWidth(c.usage()))
	}
	start := max(0, in.sel-maxPopupRows+1)
	end := min(len(in.matches), start+maxPopupRows)
	var out []string
	for i := start; i < end; i++ {
		c := in.matches[i]
		name := c.usage() + strings.Repeat(" ", nameW-ansi.StringWidth(c.usage()))
		mark, style := "  ", st.PopupName
		if i == in.sel {
			mark, style = "› ", st.PopupActive
		}
		out = append(out, truncate(mark+style.Render(name)+"  "+st.PopupDesc.Render(c.desc), w))
	}
	return out
}
