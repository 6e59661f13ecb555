package layer

import (
	"fmt"
	"io/fs"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// chmodFolder sets the mode of the folder rel in root: it is opened as a
// path (a folder the owner cannot read opens too), never through a link,
// and its mode set through that very descriptor.
func chmodFolder(root *os.Root, rel string, mode fs.FileMode) error {
	f, err := root.OpenFile(rel, unix.O_PATH|unix.O_NOFOLLOW|unix.O_DIRECTORY, 0)
	if err != nil {
		return fmt.Errorf("%s is not a folder here: %w", name(rel), err)
	}
	defer f.Close()
	return os.Chmod("/proc/self/fd/"+strconv.Itoa(int(f.Fd())), mode)
}
