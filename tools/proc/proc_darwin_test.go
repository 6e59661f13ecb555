package proc

import (
	"os"
	"os/exec"
	"slices"
	"testing"

	"myclaw/internal/proctest"
)

// darwinEscape runs a command in a session of its own (macOS has no
// setsid(1)); it prints its pid only once setsid succeeded, and lets go of
// the output pipes as an escaped daemon would.
const darwinEscape = `perl -MPOSIX -e 'POSIX::setsid() or die "setsid: $!"; print "$$\n"; close STDOUT; close STDERR; exec @ARGV' `

// TestDarwinScanSeesMarker checks the sysctl reading: a child started with
// a marker is listed with its parent, group and session, and marked.
func TestDarwinScanSeesMarker(t *testing.T) {
	marker := newProcMarker()
	cmd := exec.Command("sleep", "1000")
	cmd.Env = append(os.Environ(), marker)
	procSetSession(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	procs, err := scanProcs(marker, 0)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(procs, func(p procInfo) bool { return p.pid == pid })
	if i < 0 {
		t.Fatalf("scan does not list the child %d", pid)
	}
	p := procs[i]
	if p.ppid != os.Getpid() || p.pgid != pid || p.sid != pid || !p.marked || p.start == 0 {
		t.Errorf("child listed as %+v; want ppid %d, pgid and sid %d, marked, a start time", p, os.Getpid(), pid)
	}
	if slices.ContainsFunc(procs, func(p procInfo) bool { return p.marked && p.pid != pid }) {
		t.Errorf("another process carries the fresh marker")
	}
	tree, _ := newTree(pid, marker)
	tree.kill()
	if proctest.Alive(pid) {
		t.Errorf("the child survived kill")
	}
}
