package proc

import (
	"errors"
	"os"
	"slices"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Killing the whole tree of a shell command on macOS: the same membership
// rule and freeze-then-kill loop as on Linux (proc_unix.go), with the
// process table read through sysctl instead of /proc: kern.proc.all for pid,
// parent, group and start time, getsid for the session, kern.procargs2 for
// the start-up environment that carries the call's marker (readable for
// the user's own processes).
//
// macOS has no pidfd, so a process is pinned by its start time instead: it
// is checked just before each signal, and the frozen members cannot exit
// on their own before the kill, so their pids cannot be recycled meanwhile.

// procZombie is SZOMB, the p_stat of a process that exited and awaits its
// parent's wait.
const procZombie = 5

// procFromKinfo reads one process table entry; the start time is in
// microseconds since the epoch.
func procFromKinfo(k *unix.KinfoProc) procInfo {
	st := k.Proc.P_starttime
	p := procInfo{
		pid:   int(k.Proc.P_pid),
		ppid:  int(k.Eproc.Ppid),
		pgid:  int(k.Eproc.Pgid),
		start: uint64(st.Sec)*1e6 + uint64(st.Usec),
	}
	// kinfo_proc names the session only by a kernel address; a process
	// whose session cannot be read is still found by marker or parent.
	if sid, err := unix.Getsid(p.pid); err == nil {
		p.sid = sid
	}
	return p
}

// readProcStat reads one process from the kernel's process table.
func readProcStat(pid int) (procInfo, error) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return procInfo{}, err
	}
	if int(k.Proc.P_pid) != pid {
		return procInfo{}, syscall.ESRCH
	}
	return procFromKinfo(k), nil
}

// procHasMarker reports whether the environment pid started with carries
// marker.
func procHasMarker(pid int, marker string) bool {
	buf, err := unix.SysctlRaw("kern.procargs2", pid)
	// EIO is a failed copy from a process in the middle of fork, exec or
	// exit; it settles within a moment.
	for try := 0; try < 3 && errors.Is(err, unix.EIO); try++ {
		time.Sleep(time.Millisecond)
		buf, err = unix.SysctlRaw("kern.procargs2", pid)
	}
	if err != nil {
		return false
	}
	env, _ := procArgsEnv(buf)
	return slices.Contains(env, marker)
}

// scanProcs lists every process. Only the user's own started at or after
// since are checked for the marker: the kernel shows no one else's
// environment, and a process older than the command cannot descend from it.
func scanProcs(marker string, since uint64) ([]procInfo, error) {
	ks, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, err
	}
	uid := uint32(os.Getuid())
	out := make([]procInfo, 0, len(ks))
	for i := range ks {
		k := &ks[i]
		p := procFromKinfo(k)
		if p.pid <= 0 {
			continue
		}
		if k.Eproc.Ucred.Uid == uid && k.Proc.P_stat != procZombie && p.start >= since {
			p.marked = procHasMarker(p.pid, marker)
		}
		out = append(out, p)
	}
	return out, nil
}

// procHandle signals one process, as long as it is still the one scanned.
type procHandle struct {
	pid   int
	start uint64
}

func (h procHandle) close() {}

// alive reports whether the process still exists as scanned and has not
// exited.
func (h procHandle) alive() bool {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", h.pid)
	if err != nil || int(k.Proc.P_pid) != h.pid {
		return false
	}
	return procFromKinfo(k).start == h.start && k.Proc.P_stat != procZombie
}

func (h procHandle) signal(sig syscall.Signal) {
	if p, err := readProcStat(h.pid); err == nil && p.start == h.start {
		_ = syscall.Kill(h.pid, sig)
	}
}

// openProc checks that p is still the process scanned.
func openProc(p procInfo) (procHandle, bool) {
	now, err := readProcStat(p.pid)
	if err != nil || now.start != p.start {
		return procHandle{}, false
	}
	return procHandle{pid: p.pid, start: p.start}, true
}

// procWaitExit waits until every process has exited (or become a zombie),
// or procReapWait passes.
func procWaitExit(handles map[int]procHandle) {
	deadline := time.Now().Add(procReapWait)
	pending := make([]procHandle, 0, len(handles))
	for _, h := range handles {
		pending = append(pending, h)
	}
	for len(pending) > 0 && time.Now().Before(deadline) {
		pending = slices.DeleteFunc(pending, func(h procHandle) bool { return !h.alive() })
		if len(pending) > 0 {
			time.Sleep(5 * time.Millisecond)
		}
	}
}
