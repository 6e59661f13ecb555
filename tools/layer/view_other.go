//go:build !linux

package layer

import (
	"errors"
	"os"
)

func openView(int, string) (*os.Root, error) {
	return nil, errors.New("a layer's view needs Linux")
}
