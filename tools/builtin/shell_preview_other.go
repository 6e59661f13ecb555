//go:build !linux

package builtin

import "io/fs"

// Previews run only on Linux (an overlay mount), so no layer is read here.
func isWhiteout(fs.FileInfo) bool { return false }
func isOpaque(string) bool        { return false }

// changeTime is not compared where previews do not run.
func changeTime(fs.FileInfo) int64 { return 0 }
