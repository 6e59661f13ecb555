package ui

import (
	"fmt"
	"myclaw/tools/termtext"
	"path/filepath"
	"strings"

	"myclaw/agent"
)

// A paste longer than this many lines (or characters) shows in the input
// as a chip, "[pasted 240 lines]", and is sent in full.
const (
	pasteChipLines = 10
	pasteChipChars = 2000
)

// pasteChip is one collapsed paste: the label in the input and the text
// it stands for.
type pasteChip struct {
	label string
	text  string
}

// pasteAsChip inserts a large paste as a chip; it reports whether it did.
func (in *inputModel) pasteAsChip(s string) bool {
	if m, ok := imageMention(s, in.c.workspace); ok {
		in.ta.insert(m)
		in.ta.scrollToCursor()
		return true
	}
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	n := strings.Count(strings.TrimRight(s, "\n"), "\n") + 1
	if n <= pasteChipLines && len(s) <= pasteChipChars {
		return false
	}
	label := fmt.Sprintf("[pasted %d lines]", n)
	if n == 1 {
		label = fmt.Sprintf("[pasted %d characters]", len([]rune(s)))
	}
	if k := len(in.pastes); k > 0 {
		label = strings.TrimSuffix(label, "]") + fmt.Sprintf(" #%d]", k+1)
	}
	// The text is cleaned as the editor would clean it when typed.
	in.pastes = append(in.pastes, pasteChip{label: label, text: termtext.Screen(s)})
	in.ta.insert(label)
	in.ta.scrollToCursor()
	return true
}

// sentText is what the input held when it was last sent: the text as
// shown, chips and all, and the pastes the chips stand for.
type sentText struct {
	shown  string
	pastes []pasteChip
}

// restore puts what was sent back in the input, chips and all.
func (in *inputModel) restore(s sentText) {
	in.setValue(s.shown)
	in.pastes = s.pastes
}

// notePasted remembers, for the transcript, how a prompt about to be sent
// looked with its chips.
func (m Model) notePasted(text string) Model {
	if s := m.input.sent; len(s.pastes) > 0 && s.shown != text {
		m.pasted[text] = s
	}
	return m
}

// asShown gives a prompt not yet sent back as the input showed it: its
// pastes as chips when it had any.
func (m Model) asShown(text string) sentText {
	if s, ok := m.pasted[text]; ok {
		delete(m.pasted, text)
		return s
	}
	return sentText{shown: text}
}

// promptBlock shows a prompt as typed: with its pastes as chips when it
// had any.
func (m Model) promptBlock(text string) block {
	if s, ok := m.pasted[text]; ok {
		delete(m.pasted, text)
		return pastedPromptBlock(s.shown, text)
	}
	return userBlock(text)
}

// earlierPromptBlock shows a prompt of a resumed session. History keeps
// the text sent, not where its pastes were, so a prompt past the chip's
// size shows its first line and a chip for the rest; Ctrl+O shows it all.
func earlierPromptBlock(text string) block {
	if shown, ok := collapsed(text); ok {
		return pastedPromptBlock(shown, text)
	}
	return userBlock(text)
}

// collapsed is text as a prompt of a resumed session shows it: whole when
// a paste of it would not be a chip, else its first line (cut short) and
// a chip for the rest.
func collapsed(text string) (string, bool) {
	text = strings.TrimRight(text, "\n")
	n := strings.Count(text, "\n") + 1
	if n <= pasteChipLines && len(text) <= pasteChipChars {
		return "", false
	}
	const keep = 200 // runes of the first line shown
	first, _, _ := strings.Cut(text, "\n")
	r := []rune(first)
	cut := len(r) > keep
	if cut {
		first = string(r[:keep]) + "…"
	}
	switch {
	case n > 1:
		return fmt.Sprintf("%s [%d more lines]", first, n-1), true
	case cut:
		return fmt.Sprintf("%s [%d more characters]", first, len(r)-keep), true
	}
	return first, false
}

// expandPastes gives text with every chip replaced by what it stands for.
func (in *inputModel) expandPastes(text string) string {
	for _, p := range in.pastes {
		text = strings.Replace(text, p.label, p.text, 1)
	}
	return text
}

// expandPastesInPlace puts the pasted text itself in the input.
func (in *inputModel) expandPastesInPlace() bool {
	if len(in.pastes) == 0 {
		return false
	}
	in.ta.setValue(in.expandPastes(in.ta.value()))
	in.pastes = nil
	in.refresh()
	return true
}

// deleteChipBefore removes a whole chip when backspace reaches its end,
// so a chip is never half deleted into text that stands for nothing.
func (in *inputModel) deleteChipBefore() bool {
	l := in.ta.lines[in.ta.row]
	before := string(l[:in.ta.col])
	for i, p := range in.pastes {
		if strings.HasSuffix(before, p.label) {
			n := len([]rune(p.label))
			e := &in.ta
			e.lines[e.row] = append(l[:e.col-n:e.col-n], l[e.col:]...)
			e.col -= n
			e.rev++
			e.scrollToCursor()
			in.pastes = append(in.pastes[:i], in.pastes[i+1:]...)
			return true
		}
	}
	return false
}

// imageMention turns a pasted path to an image (what a terminal pastes
// for a file dropped on it) into an @mention, relative to the workspace
// when it is inside. Paths with spaces are left as they are.
func imageMention(s, workspace string) (string, bool) {
	p := strings.TrimSpace(s)
	p = strings.Trim(p, `'"`)
	if p == "" || strings.ContainsAny(p, " \n\t") || !agent.IsImagePath(p) {
		return "", false
	}
	p = strings.TrimPrefix(p, "file://")
	if workspace != "" && filepath.IsAbs(p) {
		if rel, err := filepath.Rel(workspace, p); err == nil && !strings.HasPrefix(rel, "..") {
			p = filepath.ToSlash(rel)
		}
	}
	return "@" + p + " ", true
}
