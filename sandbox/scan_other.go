//go:build !linux

package sandbox

// dirStamp: no stamps here, so the scan reads every folder every time
// (changedSince still says which folders a command made).
func dirStamp(string) (stamp, bool) { return stamp{}, false }

func localFS(string) bool { return false }
