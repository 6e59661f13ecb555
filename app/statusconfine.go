package app

import (
	"context"
	"errors"
	"os/exec"
)

// confineStatus readies a run of the user's status command. In a folder
// the user trusted it runs as it is. In any other it runs confined,
// read-only and without network: a status command commonly runs git, and
// git obeys the folder's .git/config (core.fsmonitor, filters), which a
// cloned repository chooses. Where no sandbox can confine it, it does
// not run until the folder is trusted (/trust).
func (b *tuiBackend) confineStatus(cmd *exec.Cmd) (func(), error) {
	b.trustMu.Lock()
	trusted := b.app.project.trusted
	b.trustMu.Unlock()
	if trusted {
		return func() {}, nil
	}
	sb := b.app.sandbox
	if sb == nil {
		return nil, errors.New("not run: this folder is not trusted (/trust), and the sandbox that would run it read-only is off")
	}
	if st := sb.Check(context.Background()); !st.Active {
		return nil, errors.New("not run: this folder is not trusted (/trust), and the sandbox that would run it read-only is not available: " + st.Why)
	}
	finish, err := sb.ConfineReadOnly(cmd)
	if err != nil {
		return nil, err
	}
	return func() { finish("") }, nil
}
