package ui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// A message that would not fit in the context window is not sent without
// a word: the person sends it anyway, attaches it as a file the model reads
// in parts, or compacts the conversation first. Esc goes back to the
// prompt, which holds the message as it was.

// pastesDir is where a message attached as a file goes: in the workspace,
// where the model's file tools can read it, but not in .myclaw, whose files
// later sessions trust; its own .gitignore keeps pasted text (logs, keys)
// out of commits.
const pastesDir = ".myclaw-pastes"

// tooLongMsg is the person's choice for a message too long for the window.
type tooLongMsg struct {
	choice string // "send", "file" or "compact"
	path   string // for "file": the file written, relative to the workspace
	lines  int
	err    error
	// custom is the command whose expanded prompt it is, if any.
	custom *CustomCommand
	prompt string
}

// estimateTokens counts tokens as /context does: 4 bytes each.
func estimateTokens(s string) int { return (len(s) + 3) / 4 }

// tooBig reports whether a message of need tokens is the reason a request
// would not fit: it is a large part of the window by itself, or the
// context fits and the message tips it over. A context already over the
// window is not the message's fault, however short it is.
func tooBig(window, used, need int) bool {
	if window <= 0 || used+need <= window {
		return false
	}
	return need > window/4 || used <= window
}

// tooLong offers the choices when text (a prompt about to be sent) and
// what the context holds exceed the window; it reports whether it did.
// The input gets the message back, chips and all.
func (m Model) tooLong(text string) (Model, bool) { return m.tooLongAs(nil, text) }

// tooLongAs is tooLong for the prompt of a custom command (nil: a typed
// prompt).
func (m Model) tooLongAs(custom *CustomCommand, text string) (Model, bool) {
	window, used := m.status.window, m.status.tokens
	need := estimateTokens(text)
	if !tooBig(window, used, need) {
		return m, false
	}
	m.input.restore(m.input.sent)
	items := []pickItem{{label: "send it anyway (the server may refuse it or cut it)", value: "send"}}
	if m.c.workspace != "" {
		items = append(items, pickItem{label: "attach it as a file in " + pastesDir + "/ for the model to read in parts", value: "file"})
	}
	if _, ok := m.backend.(Compactor); ok && used > 0 && need < window && (custom == nil || custom.Mode == "") {
		// Only worth it when the message alone fits; a command's prompt
		// sent after the compaction would lose its mode.
		items = append(items, pickItem{label: "compact the conversation first, then send it", value: "compact"})
	}
	ws := m.c.workspace
	title := fmt.Sprintf("This message (~%s %s) and the context (~%s) exceed the %s-token window.", shortCount(need), plural(need, "token", "tokens"), shortCount(used), shortCount(window))
	m.picker = &picker{c: m.c, title: title, items: items, verb: "chooses", pick: func(v string) tea.Cmd {
		return func() tea.Msg {
			if v != "file" {
				return tooLongMsg{choice: v, custom: custom, prompt: text}
			}
			path, err := writePasteFile(ws, text, time.Now())
			return tooLongMsg{choice: v, path: path, lines: strings.Count(strings.TrimRight(text, "\n"), "\n") + 1, err: err, custom: custom, prompt: text}
		}
	}}
	return m, true
}

// handleTooLong sends the message in the input as the person chose.
func (m Model) handleTooLong(msg tooLongMsg) (Model, tea.Cmd) {
	if msg.err != nil {
		m = m.addBlock(errorBlock("cannot attach the message as a file: "+msg.err.Error(), "it is still in the prompt"))
		return m, nil
	}
	text := m.input.submit()
	if text == "" {
		return m, nil
	}
	if msg.custom != nil {
		// The input held the command line; what goes is its prompt.
		m.tr.toBottom()
		switch msg.choice {
		case "file":
			m, note, ok := m.enterCommandMode(*msg.custom, text)
			if !ok {
				return m, nil
			}
			m, cmd := m.startTurnAs(text, attachedNote(msg))
			if note != "" {
				m.tr.add(noticeBlock(note))
			}
			return m, cmd
		case "compact":
			m, cmd := m.compactCommand("compact", "")
			if m.compactCancel != nil {
				m.queued = append(m.queued, msg.prompt)
			} else {
				m.input.restore(m.input.sent)
			}
			return m, cmd
		}
		return m.sendCustom(*msg.custom, text, msg.prompt)
	}
	m = m.notePasted(text)
	text = strings.TrimPrefix(text, "/") // "//" sends a prompt that begins with "/"
	switch msg.choice {
	case "file":
		delete(m.pasted, text)
		return m.startTurn(attachedNote(msg))
	case "compact":
		m, cmd := m.compactCommand("compact", "")
		if m.compactCancel != nil {
			m.queued = append(m.queued, text) // sent once the compaction is over
		} else {
			m.input.restore(m.input.sent)
		}
		return m, cmd
	}
	return m.startTurn(text)
}

// attachedNote is the prompt that stands for a message attached as a file.
func attachedNote(msg tooLongMsg) string {
	return fmt.Sprintf("My message is too long for the context window, so it is in the file %s (%d lines). Read it with your file tools, in parts, and answer it.", msg.path, msg.lines)
}

// writePasteFile writes text to a new file of pastesDir in the workspace
// and returns its path relative to the workspace. The workspace is the
// repository's to shape: everything goes through an os.Root, so a link
// planted as the folder, its .gitignore or a message file cannot make
// myclaw write outside it, and nothing existing is overwritten.
func writePasteFile(workspace, text string, now time.Time) (string, error) {
	if workspace == "" {
		return "", errors.New("no workspace")
	}
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return "", err
	}
	defer root.Close()
	if err := root.Mkdir(pastesDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	if fi, err := root.Lstat(pastesDir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s in the workspace is not a folder", pastesDir)
	}
	dir, err := root.OpenRoot(pastesDir)
	if err != nil {
		return "", err
	}
	defer dir.Close()
	if f, err := dir.OpenFile(".gitignore", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		_, werr := f.WriteString("# pasted messages myclaw attached as files\n*\n")
		if cerr := f.Close(); werr != nil || cerr != nil {
			_ = dir.Remove(".gitignore")
			return "", errors.Join(werr, cerr)
		}
	} else if !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	name := "message-" + now.UTC().Format("20060102-150405")
	for i := 0; ; i++ {
		file := name + ".txt"
		if i > 0 {
			file = fmt.Sprintf("%s-%d.txt", name, i)
		}
		f, err := dir.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = dir.Remove(file) // no half-written message
			return "", err
		}
		return pastesDir + "/" + file, nil
	}
}
