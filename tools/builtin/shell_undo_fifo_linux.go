package builtin

import (
	"io/fs"
	"os"
	"path"

	"golang.org/x/sys/unix"
)

// canMakeFifo: undo makes again a named pipe a command removed.
const canMakeFifo = true

// makeFifo makes the named pipe rel in root with mknodat in its folder,
// the folder opened through root (so a link on the way cannot lead out).
func makeFifo(root *os.Root, rel string, perm fs.FileMode) (fs.FileInfo, error) {
	dir, base := path.Split(rel)
	if dir == "" {
		dir = "."
	}
	d, err := root.Open(path.Clean(dir))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	if err := unix.Mkfifoat(int(d.Fd()), base, uint32(perm)); err != nil {
		return nil, &os.PathError{Op: "mkfifo", Path: rel, Err: err}
	}
	return root.Lstat(rel)
}
