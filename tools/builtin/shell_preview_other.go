//go:build !linux

package builtin

import "io/fs"

// Previews run only on Linux (an overlay mount), so no layer is read here.
func isWhiteout(fs.FileInfo) bool { return false }
func isOpaque(string) bool        { return false }
