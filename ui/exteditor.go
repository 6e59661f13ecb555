package ui

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/term"
)

// editorDoneMsg brings the prompt back from the external editor.
type editorDoneMsg struct {
	text string
	err  error
}

// errNoEditor says that neither $VISUAL nor $EDITOR names an editor.
var errNoEditor = errors.New("no editor: set $VISUAL or $EDITOR (for example EDITOR=vim, or VISUAL=\"code --wait\")")

// editorArgv is the editor command from $VISUAL, else $EDITOR, split at
// spaces ("code --wait"), with the file to edit last.
func editorArgv(getenv func(string) string, file string) ([]string, error) {
	ed := strings.TrimSpace(getenv("VISUAL"))
	if ed == "" {
		ed = strings.TrimSpace(getenv("EDITOR"))
	}
	if ed == "" {
		return nil, errNoEditor
	}
	return append(strings.Fields(ed), file), nil
}

// prepareEditor writes text to a temporary file and returns the editor
// command for it; finish reads the file back and removes it.
func prepareEditor(text string, getenv func(string) string) (cmd *exec.Cmd, finish func(error) tea.Msg, err error) {
	cmd, read, err := editText(text, "prompt", getenv)
	if err != nil {
		return nil, nil, err
	}
	return cmd, func(runErr error) tea.Msg {
		text, err := read(runErr)
		return editorDoneMsg{text: text, err: err}
	}, nil
}

// editText writes text to a temporary file and returns the editor command
// for it; read takes the editor's exit error, reads the file back (without
// the final newline editors add) and removes it. what names the text in
// errors ("prompt", "plan").
func editText(text, what string, getenv func(string) string) (cmd *exec.Cmd, read func(error) (string, error), err error) {
	f, err := os.CreateTemp("", "myclaw-"+what+"-*.md")
	if err != nil {
		return nil, nil, fmt.Errorf("create the file to edit: %w", err)
	}
	path := f.Name()
	_, werr := f.WriteString(text)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(path)
		return nil, nil, fmt.Errorf("write the file to edit: %w", werr)
	}
	argv, err := editorArgv(getenv, path)
	if err != nil {
		os.Remove(path)
		return nil, nil, err
	}
	cmd = exec.Command(argv[0], argv[1:]...)
	if term.IsTerminal(os.Stdin.Fd()) {
		// The editor reads the terminal itself: Bubble Tea would hand it
		// the TUI's input reader through a pipe, which editors refuse or
		// misbehave on, and whose copy holds the TUI after the editor quit
		// until Enter is pressed.
		cmd.Stdin = os.Stdin
	}
	read = func(runErr error) (string, error) {
		defer os.Remove(path)
		if runErr != nil {
			return "", fmt.Errorf("the editor %s failed: %w; the %s is unchanged", argv[0], runErr, what)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("read the edited %s: %w", what, err)
		}
		return strings.TrimRight(string(b), "\n"), nil
	}
	return cmd, read, nil
}

// openEditor suspends the TUI and runs the editor on text, through
// tea.ExecProcess; the result comes back as editorDoneMsg.
func openEditor(text string) tea.Cmd {
	return func() tea.Msg {
		cmd, finish, err := prepareEditor(text, os.Getenv)
		if err != nil {
			return editorDoneMsg{err: err}
		}
		return execTTY(cmd, finish)()
	}
}

// handleEditorDone puts the edited prompt in the input.
func (m Model) handleEditorDone(msg editorDoneMsg) (Model, tea.Cmd) {
	if msg.err != nil {
		text, hint := errorParts(msg.err)
		m = m.addBlock(errorBlock(text, hint))
		return m, nil
	}
	m.input.setValue(msg.text)
	m.input.pastes = nil // the text holds them now
	return m, nil
}

// ttyExec is a command run in the TUI's place with the terminal itself as
// its stdin. Bubble Tea hands it the paste reader, which exec would copy
// from in a goroutine that Wait waits on: the TUI would stay away, after
// the editor quit, until a key was pressed.
type ttyExec struct{ *exec.Cmd }

func (c ttyExec) SetStdin(r io.Reader) {
	if t, ok := r.(interface{ File() *os.File }); ok {
		if f := t.File(); f != nil {
			c.Stdin = f
			return
		}
	}
	c.Stdin = r
}
func (c ttyExec) SetStdout(w io.Writer) { c.Stdout = w }
func (c ttyExec) SetStderr(w io.Writer) { c.Stderr = w }

// execTTY is tea.ExecProcess with the terminal as the command's stdin.
func execTTY(cmd *exec.Cmd, fn tea.ExecCallback) tea.Cmd {
	return tea.Exec(ttyExec{cmd}, fn)
}
