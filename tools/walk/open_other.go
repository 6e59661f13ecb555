//go:build !unix

package walk

import (
	"io/fs"
)

// openNonBlock is nothing where there are no FIFOs to wait on.
const openNonBlock = 0

// fileIdentity is empty where Stat has no inode to tell: size and time
// still tell one version of a file from another.
func fileIdentity(fs.FileInfo) string { return "" }
