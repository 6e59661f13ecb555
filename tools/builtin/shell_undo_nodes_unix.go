//go:build unix

package builtin

import (
	"io/fs"
	"syscall"
)

// fileID is the device and inode of fi.
func fileID(fi fs.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), st.Ino //nolint:unconvert // Dev is int32 on darwin
	}
	return 0, 0
}
