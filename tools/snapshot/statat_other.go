//go:build !linux

package snapshot

import (
	"os"
	"path/filepath"
)

// statAt stats the entry name of the folder d, not following a link (by
// its path, where fstatat is not used).
func statAt(d *os.File, name string) (File, error) {
	info, err := os.Lstat(filepath.Join(d.Name(), name))
	if err != nil {
		return File{}, err
	}
	return statFile(info), nil
}

// readlinkAt reads the target of the link name in the folder d.
func readlinkAt(d *os.File, name string) (string, error) {
	return os.Readlink(filepath.Join(d.Name(), name))
}
