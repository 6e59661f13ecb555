package sandbox

import (
	"fmt"
	"os/exec"
	"strings"
)

// ReadOnlyLine is Describe's line for a command confined by
// ConfineReadOnly.
const ReadOnlyLine = "sandbox: read-only (plan mode), no network"

// ConfineReadOnly is Confine for plan mode: without network, with the
// workspace and every other place read-only but the command's own temp dir
// (and, where they are layered, the caches, whose writes never reach the
// caches themselves). A write to the workspace fails: it is blocked, not
// asked about. It fails (and cmd must not run) when the sandbox is not
// active.
func (s *Sandbox) ConfineReadOnly(cmd *exec.Cmd) (func(stderr string) (string, string), error) {
	if !s.Active() {
		return nil, fmt.Errorf("the sandbox is not active: %s", s.Status().Why)
	}
	c, err := s.confineReadOnly(cmd)
	if err != nil {
		return nil, err
	}
	return c.finish, nil
}

// readOnlyNote rewrites blocked's note for a read-only command: it names
// plan mode as the reason, not the list of writable places.
func readOnlyNote(note string) string {
	what, ok := strings.CutSuffix(note, writeAdvice)
	if !ok {
		return note
	}
	return what + ". Plan mode runs commands read-only: nothing in the workspace can change until the user accepts a plan. Put the change in the plan (plan_submit) instead"
}
