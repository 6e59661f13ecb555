//go:build !linux && !darwin

package snapshot

import "io/fs"

// statFile has size, time and mode only where the OS offers no inode and
// change time through os.FileInfo.
func statFile(info fs.FileInfo) File {
	return File{Size: info.Size(), ModTime: info.ModTime().UnixNano(), Mode: info.Mode()}
}
