package ui

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/approval"
)

// conflictEditedMsg says the editor opened on a merge's conflicted file
// returned: the merge is proposed again against the workspace as it now is.
type conflictEditedMsg struct {
	p   *pendingApproval
	err error
}

// conflictFile is the first conflicted file of a previewed merge, in the
// workspace: the version the person resolves by editing.
func conflictFile(workspace string, req approval.Request) (string, error) {
	if len(req.Conflicts) == 0 || workspace == "" {
		return "", errors.New("no conflicted file to open")
	}
	rel := filepath.FromSlash(req.Conflicts[0])
	if !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%s is not a path inside the workspace", oneLine(req.Conflicts[0]))
	}
	abs := filepath.Join(workspace, rel)
	fi, err := os.Lstat(abs)
	switch {
	case err != nil:
		return "", fmt.Errorf("open %s: %w", oneLine(req.Conflicts[0]), err)
	case !fi.Mode().IsRegular():
		// A link could lead the editor out of the workspace; a folder or a
		// special file is no text to resolve.
		return "", fmt.Errorf("%s is not a plain file: resolve it by hand, then deny this merge and ask again", oneLine(req.Conflicts[0]))
	}
	return abs, nil
}

// conflictEditor is the editor command on the merge's first conflicted file.
func conflictEditor(workspace string, req approval.Request, getenv func(string) string) (*exec.Cmd, error) {
	abs, err := conflictFile(workspace, req)
	if err != nil {
		return nil, err
	}
	argv, err := editorArgv(getenv, abs)
	if err != nil {
		return nil, err
	}
	return exec.Command(argv[0], argv[1:]...), nil
}

// resolveConflict suspends the TUI and runs the editor on the first
// conflicted file of the pane's merge.
func (a *approvalPane) resolveConflict() tea.Cmd {
	p := a.p
	cmd, err := conflictEditor(a.c.workspace, p.req, os.Getenv)
	if err != nil {
		return func() tea.Msg { return conflictEditedMsg{p: p, err: err} }
	}
	return execTTY(cmd, func(err error) tea.Msg {
		if err != nil {
			err = fmt.Errorf("the editor %s failed: %w", cmd.Path, err)
		}
		return conflictEditedMsg{p: p, err: err}
	})
}

// handleConflictEdited has the merge proposed again, or says why the
// editor could not help; the pane stays either way until then.
func (m Model) handleConflictEdited(msg conflictEditedMsg) (Model, tea.Cmd) {
	if m.pane == nil || m.pane.p != msg.p || m.pane.decided {
		return m, nil
	}
	if msg.err != nil {
		m.pane.note = oneLine(msg.err.Error())
		return m, nil
	}
	return m, m.pane.decide(approval.Decision{Choice: approval.Repropose})
}
