//go:build !linux

package builtin

import (
	"errors"
	"io/fs"
	"os"
)

// canMakeFifo: a named pipe a command removed is not made again here
// (there is no mkfifoat to make it safely inside the workspace).
const canMakeFifo = false

func makeFifo(*os.Root, string, fs.FileMode) (fs.FileInfo, error) {
	return nil, errors.New("named pipes are not made again on this system")
}
