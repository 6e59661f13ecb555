package walk

import (
	"io/fs"
	"os"
)

// The files a listing reads (ignore files, a repository's config, index
// and pointers) are named by the workspace, which a command may have
// filled with FIFOs or devices: opening a FIFO for reading waits for a
// writer, so only regular files are opened.

// openRegular opens name in fsys when it is a regular file. The check
// comes before the open (an fs.FS takes no flags); a FIFO swapped in
// between the two is the one case left, and needs a command running
// beside the listing.
func openRegular(fsys fs.FS, name string) (fs.File, error) {
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fs.ErrInvalid
	}
	return fsys.Open(name)
}

// openRegularOS opens a file by its path without waiting on a FIFO
// (non-blocking where the platform has FIFOs) and refuses anything but
// a regular file.
func openRegularOS(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fs.ErrInvalid
	}
	return f, nil
}
