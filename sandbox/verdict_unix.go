//go:build linux || darwin

package sandbox

import (
	"fmt"
	"os"
	"syscall"
)

// fileID is a file's device and inode: a binary replaced in place with
// the same size and mtime still changes it.
func fileID(fi os.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("%d:%d", st.Dev, st.Ino)
	}
	return ""
}

// ownedByMe reports whether the file belongs to this process's user.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
