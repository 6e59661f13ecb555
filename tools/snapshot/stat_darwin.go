package snapshot

import (
	"io/fs"
	"syscall"
)

func statFile(info fs.FileInfo) File {
	f := File{Size: info.Size(), ModTime: info.ModTime().UnixNano(), Mode: info.Mode()}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		f.Ino = st.Ino
		f.Dev = uint64(st.Dev)
		f.Ctime = st.Ctimespec.Nano()
	}
	return f
}
