package layer

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// openView opens dir as the process pid sees it, which must be on an
// overlay mount: the layer, never the workspace itself.
func openView(pid int, dir string) (*os.Root, error) {
	root, err := os.OpenRoot(filepath.Join("/proc", strconv.Itoa(pid), "root", dir))
	if err != nil {
		return nil, err
	}
	f, err := root.Open(".")
	if err == nil {
		var st unix.Statfs_t
		err = unix.Fstatfs(int(f.Fd()), &st)
		f.Close()
		if err == nil && st.Type != unix.OVERLAYFS_SUPER_MAGIC {
			err = fmt.Errorf("%s is not on the layer's overlay mount", dir)
		}
	}
	if err != nil {
		root.Close()
		return nil, err
	}
	return root, nil
}
