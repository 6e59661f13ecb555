package builtin

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// isWhiteout reports an overlayfs whiteout: a character device 0:0 in the
// upper layer, standing for a deleted file.
func isWhiteout(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && info.Mode()&fs.ModeCharDevice != 0 && st.Rdev == 0
}

// isOpaque reports an overlayfs opaque directory: it replaced the one
// below it (mounted with userxattr, the mark is user.overlay.opaque).
func isOpaque(dir string) bool {
	buf := make([]byte, 4)
	n, err := unix.Lgetxattr(dir, "user.overlay.opaque", buf)
	return err == nil && n == 1 && buf[0] == 'y'
}

// changeTime is the inode's change time: a write that puts the size and
// modification time back still moves it.
func changeTime(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano()
	}
	return 0
}
