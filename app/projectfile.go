package app

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"myclaw/tools"
)

// maxProjectConfig bounds what is read of .myclaw.toml: a config is a few
// kilobytes, and a huge file in a hostile folder must not stall the start.
const maxProjectConfig = 1 << 20

// readProjectFile reads the workspace's .myclaw.toml through root without
// ever blocking or leaving the workspace. A missing file is (nil, "").
// One that cannot be used (a folder, a FIFO, a symlink out of the
// workspace, an unreadable or oversized file) gives skip, a sentence saying
// why: the caller warns and goes on as if there were none, as it does for
// an AGENTS.md it cannot read, since the file would not be loaded anyway
// until the folder is trusted.
func readProjectFile(root *os.Root) (src []byte, skip string) {
	// O_NONBLOCK: a FIFO opens at once instead of waiting for a writer;
	// fstat on what was opened then decides, so nothing swapped in after a
	// stat can be read.
	f, err := root.OpenFile(projectConfigName, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		if fi, lerr := root.Lstat(projectConfigName); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, "it is a symbolic link to nothing"
		}
		return nil, ""
	}
	if err != nil {
		if fi, lerr := root.Lstat(projectConfigName); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, "it is a symbolic link that leads outside the workspace"
		}
		return nil, "it cannot be read: " + errText(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, "it cannot be read: " + errText(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, "it is " + tools.FileKind(fi.Mode()) + ", not a regular file"
	}
	src, err = io.ReadAll(io.LimitReader(f, maxProjectConfig+1))
	if err != nil {
		return nil, "it cannot be read: " + errText(err)
	}
	if len(src) > maxProjectConfig {
		return nil, fmt.Sprintf("it is larger than %d MiB", maxProjectConfig>>20)
	}
	return src, ""
}

// errText is an error without the path an os error repeats.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// projectSkipNotice is the warning for a project config readProjectFile
// skipped.
func projectSkipNotice(why string) string {
	return fmt.Sprintf("Skipped the project config %s: %s.", projectConfigName, why)
}
