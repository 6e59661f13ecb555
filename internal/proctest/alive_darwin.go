package proctest

import "golang.org/x/sys/unix"

// szomb is the p_stat of a process that exited and awaits its parent.
const szomb = 5

// Alive reports whether pid runs and is not a zombie.
func Alive(pid int) bool {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	return err == nil && int(k.Proc.P_pid) == pid && k.Proc.P_stat != szomb
}
