//go:build !linux

package snapshot

import (
	"io/fs"
	"os"
)

// statAt stats the entry e of the folder d (by its path, where fstatat is
// not used).
func statAt(_ *os.File, e fs.DirEntry) (File, error) {
	info, err := e.Info()
	if err != nil {
		return File{}, err
	}
	return statFile(info), nil
}
