package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Killing the whole tree of a shell command on Linux.
//
// A process-group kill misses processes that left the group with setsid(1)
// or setpgid, and a parent-link walk misses processes orphaned before the
// kill (their parent becomes init). So every command runs with a marker
// variable, MYCLAW_RUN_<id>=1, in its environment, which its descendants
// inherit, and the tree is everything that either carries the marker, is in
// the command's session or process group, or descends from one of those. The members are
// frozen with SIGSTOP, round after round until a /proc scan finds no new one
// (a stopped process cannot fork), and then killed with SIGKILL. Signals go
// through pidfds opened after checking the start time, so a recycled pid is
// never hit.
//
// PR_SET_CHILD_SUBREAPER was rejected: it makes myclaw the parent of every
// orphan of every child (MCP servers included) for the life of the program,
// and reaping those zombies needs wait(-1), which steals exit statuses from
// exec.Cmd.Wait elsewhere. Cgroups would be exact but need delegation that an
// ordinary user session does not have. The remaining gap: a process that
// both clears its environment (env -i) and is orphaned before the kill is not
// found; shell_run then stops reading the output pipes it may still hold.

// readProcStat parses /proc/<pid>/stat.
func readProcStat(pid int) (procInfo, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, err
	}
	// The command name is in parentheses and may itself contain ") ".
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procInfo{}, errors.New("malformed stat")
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); ppid is field 4, pgrp 5, session 6,
	// starttime 22.
	if len(f) < 20 {
		return procInfo{}, errors.New("malformed stat")
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgid, err2 := strconv.Atoi(f[2])
	sid, err3 := strconv.Atoi(f[3])
	start, err4 := strconv.ParseUint(f[19], 10, 64)
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return procInfo{}, err
	}
	return procInfo{pid: pid, ppid: ppid, pgid: pgid, sid: sid, start: start}, nil
}

// procHasMarker reports whether the environment pid started with carries
// marker. A process in the middle of an exec shows an empty environment
// for an instant (its old memory is gone, the new one not yet in place):
// such a read is tried again, briefly, so that a command that setsid's
// and execs as the call ends is still found.
func procHasMarker(pid int, marker string) bool {
	name := "/proc/" + strconv.Itoa(pid) + "/environ"
	for try := 0; ; try++ {
		b, err := os.ReadFile(name)
		if err != nil {
			return false
		}
		if len(b) == 0 && try < procEnvironRetries {
			time.Sleep(time.Millisecond)
			continue
		}
		for _, kv := range bytes.Split(b, []byte{0}) {
			if string(kv) == marker {
				return true
			}
		}
		return false
	}
}

// procEnvironRetries bounds the re-reads of an empty environment; a
// process whose environment really is empty (env -i) costs that much.
const procEnvironRetries = 20

// scanProcs lists the processes visible in /proc. Only those started at or
// after since (clock ticks after boot, as in /proc/<pid>/stat) are checked
// for the marker: a process older than the command cannot descend from it,
// and skipping their environments keeps a scan cheap on a busy machine.
func scanProcs(marker string, since uint64) ([]procInfo, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	out := make([]procInfo, 0, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		p, err := readProcStat(pid)
		if err != nil {
			continue // exited meanwhile
		}
		p.marked = p.start >= since && procHasMarker(pid, marker)
		out = append(out, p)
	}
	return out, nil
}

// procHandle signals one process safely.
type procHandle struct {
	pid int
	fd  int // pidfd, or -1 when the kernel has none
}

func (h procHandle) close() {
	if h.fd >= 0 {
		unix.Close(h.fd)
	}
}

func (h procHandle) signal(sig unix.Signal) {
	if h.fd >= 0 {
		_ = unix.PidfdSendSignal(h.fd, sig, nil, 0)
		return
	}
	_ = unix.Kill(h.pid, sig)
}

// openProc opens a handle on p and checks it is still the process scanned.
func openProc(p procInfo) (procHandle, bool) {
	fd, err := unix.PidfdOpen(p.pid, 0)
	if err != nil {
		if errors.Is(err, unix.ESRCH) {
			return procHandle{}, false // gone already
		}
		// No pidfds (old kernel) or no descriptors left (thousands of
		// members): signal by pid, the start time checked just now.
		if now, err := readProcStat(p.pid); err != nil || now.start != p.start {
			return procHandle{}, false
		}
		return procHandle{pid: p.pid, fd: -1}, true
	}
	// The pidfd pins the process now; if the pid was recycled between the
	// scan and the open, the start time tells.
	now, err := readProcStat(p.pid)
	if err != nil || now.start != p.start {
		unix.Close(fd)
		return procHandle{}, false
	}
	return procHandle{pid: p.pid, fd: fd}, true
}

// procWaitExit waits until every pidfd reports its process exited, or
// procReapWait passes.
func procWaitExit(handles map[int]procHandle) {
	var fds []unix.PollFd
	for _, h := range handles {
		if h.fd >= 0 {
			fds = append(fds, unix.PollFd{Fd: int32(h.fd), Events: unix.POLLIN})
		}
	}
	deadline := time.Now().Add(procReapWait)
	for len(fds) > 0 {
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		n, err := unix.Poll(fds, int(left/time.Millisecond)+1)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return
		}
		if n <= 0 {
			continue
		}
		pending := fds[:0]
		for _, f := range fds {
			if f.Revents == 0 {
				pending = append(pending, f)
			}
		}
		fds = pending
	}
}

// HideEnviron removes the named variables (secrets read at start-up, such as
// OPENAI_API_KEY) from this process for the sake of the commands it runs:
// it unsets them, zeroes their values in the start-up environment block that
// the kernel shows in /proc/<pid>/environ (which os.Unsetenv leaves intact,
// so a child could read the key from its parent there), and marks the
// process non-dumpable, so that other processes of the same user can read
// neither that file nor its memory (root still can). Getenv still finds
// them. Calling it again for more names is fine.
func HideEnviron(names ...string) error {
	rememberHidden(names)
	for _, n := range names {
		os.Unsetenv(n)
	}
	werr := procZeroEnvironValues(names)
	derr := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	if derr != nil {
		derr = fmt.Errorf("hide environment: mark process non-dumpable: %w", derr)
	}
	return errors.Join(werr, derr)
}

// procZeroEnvironValues overwrites, through /proc/self/mem, the values of
// the named variables in the environment block the process started with. Go
// copied that block at start-up, so nothing in the program still reads it.
func procZeroEnvironValues(names []string) error {
	if len(names) == 0 {
		return nil
	}
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return fmt.Errorf("hide environment: %w", err)
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	// env_start and env_end are fields 50 and 51 (Linux 3.5+).
	if len(f) < 49 {
		return errors.New("hide environment: /proc/self/stat lacks env_start and env_end")
	}
	start, err1 := strconv.ParseInt(f[47], 10, 64)
	end, err2 := strconv.ParseInt(f[48], 10, 64)
	if err := errors.Join(err1, err2); err != nil || end <= start {
		return fmt.Errorf("hide environment: bad environment bounds in /proc/self/stat: %w", err)
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("hide environment: %w", err)
	}
	defer mem.Close()
	block := make([]byte, end-start)
	if _, err := mem.ReadAt(block, start); err != nil {
		return fmt.Errorf("hide environment: read environment block: %w", err)
	}
	off := 0
	for _, kv := range bytes.Split(block, []byte{0}) {
		name, _, ok := bytes.Cut(kv, []byte("="))
		if ok && slices.Contains(names, string(name)) {
			valueOff := off + len(name) + 1
			zeros := make([]byte, len(kv)-len(name)-1)
			if _, err := mem.WriteAt(zeros, start+int64(valueOff)); err != nil {
				return fmt.Errorf("hide environment: overwrite %s: %w", name, err)
			}
		}
		off += len(kv) + 1
	}
	return nil
}
