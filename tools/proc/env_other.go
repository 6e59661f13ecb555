//go:build !linux

package proc

import (
	"errors"
	"os"
)

// HideEnviron removes the named variables (secrets read at start-up, such
// as OPENAI_API_KEY) from this process, so that the commands it runs do not
// inherit them; Getenv still finds them. Calling it again for more names
// is fine.
//
// What it cannot do here: on macOS the environment the process started
// with stays readable to other processes of the same user through
// kern.procargs2 (ps -E), which the kernel reads from the process's initial
// stack; on Windows, other processes of the same user can read the
// process's memory, the environment block included (unsetting takes the
// variables out of that block, but the freed memory is not wiped).
func HideEnviron(names ...string) error {
	rememberHidden(names)
	var errs []error
	for _, n := range names {
		if err := os.Unsetenv(n); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
