//go:build !linux

package layer

import (
	"fmt"
	"io/fs"
	"os"
)

// chmodFolder sets the mode of the folder rel in root (layers exist only
// on Linux; this keeps the package building elsewhere).
func chmodFolder(root *os.Root, rel string, mode fs.FileMode) error {
	return chmodFolderRoot(root, rel, mode)
}

// chmodFolderRoot opens the folder rel in root without following a link
// and sets its mode on what it opened.
func chmodFolderRoot(root *os.Root, rel string, mode fs.FileMode) error {
	fi, err := root.Lstat(rel)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", name(rel))
	}
	f, err := root.Open(rel)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !os.SameFile(st, fi) {
		return fmt.Errorf("%s changed while its mode was set", name(rel))
	}
	return f.Chmod(mode)
}
