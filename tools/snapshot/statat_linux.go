package snapshot

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// statAt stats the entry name of the open folder d with fstatat, not
// following a link: no walk of the whole path for each file of a large tree.
func statAt(d *os.File, name string) (File, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(int(d.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return File{}, err
	}
	return File{Size: st.Size, ModTime: st.Mtim.Nano(), Mode: fileMode(st.Mode), Ino: st.Ino, Dev: st.Dev, Ctime: st.Ctim.Nano()}, nil
}

// readlinkAt reads the target of the link name in the open folder d.
func readlinkAt(d *os.File, name string) (string, error) {
	for n := 256; ; n *= 2 {
		buf := make([]byte, n)
		m, err := unix.Readlinkat(int(d.Fd()), name, buf)
		if err != nil {
			return "", err
		}
		if m < n {
			return string(buf[:m]), nil
		}
	}
}

// fileMode is os.FileInfo's Mode for a stat mode, as Go computes it.
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}
