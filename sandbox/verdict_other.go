//go:build !linux

package sandbox

// platformKey: only Linux tells a reboot and its namespace switches apart
// here, so elsewhere the self-test runs every time.
func platformKey() (string, bool) { return "", false }
