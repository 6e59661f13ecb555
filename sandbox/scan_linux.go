package sandbox

import "golang.org/x/sys/unix"

// dirStamp stats dir (following a link, as reading it does).
func dirStamp(dir string) (stamp, bool) {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return stamp{}, false
	}
	return stamp{dev: st.Dev, ino: st.Ino, ctime: st.Ctim.Nano(), mtime: st.Mtim.Nano(), size: st.Size, nlink: uint64(st.Nlink)}, true
}

// localFS reports whether dir is on a file system whose
// times this kernel sets itself at every change of a folder: local disk
// file systems, tmpfs, and overlayfs over them (a container's root). Not
// network or FUSE file systems, whose servers set the times.
func localFS(dir string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return false
	}
	switch st.Type {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC,
		unix.F2FS_SUPER_MAGIC, unix.OVERLAYFS_SUPER_MAGIC, unix.BCACHEFS_SUPER_MAGIC, zfsMagic:
		return true
	}
	return false
}

// zfsMagic is ZFS on Linux's f_type (not in x/sys).
const zfsMagic = 0x2fc12fc1
