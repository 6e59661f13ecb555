// Package durable writes and locks myclaw's own files (state, config,
// session journals) so that a crash or a second process cannot leave them
// half-written: WriteFile replaces a file atomically and fsyncs it and its
// directory, and Lock, TryLock and Unlock take advisory file locks (flock on
// Unix, LockFileEx on Windows).
package durable
