//go:build linux || darwin

package proc

import (
	"os"
	"os/exec"
	"syscall"
)

// The part of process-tree killing that Linux and macOS share: which
// processes belong to a call (marker, session, process group, descendants)
// and the freeze-then-kill loop. How processes are listed, pinned and
// waited for is per system (proc_linux.go, proc_darwin.go).

// procKillRounds bounds the freeze-and-rescan loop; a fork bomb outrunning
// it still loses its already frozen members.
const procKillRounds = 64

// procTree identifies the processes of one shell_run call.
type procTree struct {
	marker    string // "MYCLAW_RUN_<id>=1"
	root      int    // pid of bash, also its session and process group id
	rootStart uint64 // start time of root, to detect pid reuse
}

// procSetSession makes cmd the leader of a new session: it has no
// controlling terminal (opening /dev/tty fails with ENXIO, TIOCSTI has no
// terminal to inject into) and no terminal job control reaches myclaw.
func procSetSession(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// setsid also makes a new process group; asking for both fails.
	cmd.SysProcAttr.Setpgid = false
	cmd.SysProcAttr.Setsid = true
}

// procInfo is one process as the system lists it.
type procInfo struct {
	pid, ppid, pgid, sid int
	start                uint64
	marked               bool
}

// newTree describes the tree rooted at a just-started process (started
// after procSetSession).
func newTree(root int, marker string) (*procTree, error) {
	t := &procTree{marker: marker, root: root}
	if p, err := readProcStat(root); err == nil {
		t.rootStart = p.start
	}
	return t, nil
}

// release frees what the tree holds once it is killed; on Unix that is
// nothing.
func (t *procTree) release() {}

// terminate asks the tree's session leader and its group to exit (SIGTERM).
func (t *procTree) terminate() { _ = syscall.Kill(-t.root, syscall.SIGTERM) }

// members returns the processes of the tree among procs.
func (t *procTree) members(procs []procInfo) []procInfo {
	// The group and session ids are trusted only while the root pid has not
	// been recycled: a live root with another start time belongs to someone
	// else. (The kernel does not hand out a pid still in use as a group or
	// session id, so a dead root's ids still name its own processes.)
	groupOK := true
	children := map[int][]int{}
	byPID := map[int]procInfo{}
	for _, p := range procs {
		byPID[p.pid] = p
		children[p.ppid] = append(children[p.ppid], p.pid)
		if p.pid == t.root && p.start != t.rootStart {
			groupOK = false
		}
	}
	in := map[int]bool{}
	var queue []int
	for _, p := range procs {
		if p.marked || (groupOK && (p.pid == t.root || p.pgid == t.root || p.sid == t.root)) {
			in[p.pid] = true
			queue = append(queue, p.pid)
		}
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if !in[c] {
				in[c] = true
				queue = append(queue, c)
			}
		}
	}
	self := os.Getpid()
	out := make([]procInfo, 0, len(in))
	for pid := range in {
		if pid != self && pid > 1 {
			out = append(out, byPID[pid])
		}
	}
	return out
}

// kill stops and kills every process of the tree and waits (bounded) until
// they have exited.
func (t *procTree) kill() {
	handles := map[int]procHandle{}
	defer func() {
		for _, h := range handles {
			h.close()
		}
	}()
	for round := 0; round < procKillRounds; round++ {
		procs, err := scanProcs(t.marker, t.rootStart)
		if err != nil {
			// Without a process list, the group is all that can be reached.
			if round == 0 {
				_ = syscall.Kill(-t.root, syscall.SIGKILL)
			}
			break
		}
		found := false
		for _, p := range t.members(procs) {
			if _, seen := handles[p.pid]; seen {
				continue
			}
			h, ok := openProc(p)
			if !ok {
				continue
			}
			found = true
			handles[p.pid] = h
			h.signal(syscall.SIGSTOP)
		}
		if !found {
			break
		}
	}
	for _, h := range handles {
		h.signal(syscall.SIGKILL)
	}
	procWaitExit(handles)
}

// BashInstallHint completes shell_run's "bash is missing" hint.
const BashInstallHint = ""

// Marked lists the processes that carry marker in their environment or run
// in session sid (when above 1), as a scan sees them now: what a call may
// have left behind. Tests use it to check that nothing outlived a call.
func Marked(marker string, sid int) ([]int, error) {
	procs, err := scanProcs(marker, 0)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, p := range procs {
		if p.marked || (sid > 1 && p.sid == sid) {
			out = append(out, p.pid)
		}
	}
	return out, nil
}
