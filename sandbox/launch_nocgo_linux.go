//go:build linux && !cgo

package sandbox

// launcherMakesNamespaces: without cgo, the Go launcher runs in a
// threaded process that cannot make a user namespace, so the clone does.
const launcherMakesNamespaces = false
