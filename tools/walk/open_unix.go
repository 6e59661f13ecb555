//go:build unix

package walk

import (
	"fmt"
	"io/fs"
	"syscall"
)

const openNonBlock = syscall.O_NONBLOCK

// fileIdentity is a file's device and inode.
func fileIdentity(fi fs.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprint(st.Dev, ":", st.Ino)
	}
	return ""
}
