//go:build linux || darwin

package tools

import (
	"os"
	"os/exec"
	"syscall"
)

// The part of process-tree killing that Linux and macOS share: which
// processes belong to a call (marker, process group, descendants) and the
// freeze-then-kill loop. How processes are listed, pinned and waited for is
// per system (proc_linux.go, proc_darwin.go).

// procKillRounds bounds the freeze-and-rescan loop; a fork bomb outrunning
// it still loses its already frozen members.
const procKillRounds = 64

// procTree identifies the processes of one shell_run call.
type procTree struct {
	marker    string // "MYCLAW_RUN_<id>=1"
	root      int    // pid of bash, also its process group id
	rootStart uint64 // start time of root, to detect pid reuse
}

// procInfo is one process as the system lists it.
type procInfo struct {
	pid, ppid, pgid int
	start           uint64
	marked          bool
}

// setProcGroup makes cmd start in a process group of its own.
func setProcGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// newProcTree describes the tree rooted at a just-started process (started
// after setProcGroup).
func newProcTree(root int, marker string) (*procTree, error) {
	t := &procTree{marker: marker, root: root}
	if p, err := readProcStat(root); err == nil {
		t.rootStart = p.start
	}
	return t, nil
}

// release frees what the tree holds once the call is over; on Unix that is
// nothing.
func (t *procTree) release() {}

// members returns the processes of the tree among procs.
func (t *procTree) members(procs []procInfo) []procInfo {
	// The group id is trusted only while the root pid has not been recycled:
	// a live root with another start time belongs to someone else.
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
		if p.marked || (groupOK && (p.pid == t.root || p.pgid == t.root)) {
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
		procs, err := scanProcs(t.marker)
		if err != nil {
			// Without a process list, the group is all that can be reached.
			_ = syscall.Kill(-t.root, syscall.SIGKILL)
			return
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

// shellInstallHint completes shell_run's "bash is missing" hint.
const shellInstallHint = ""
