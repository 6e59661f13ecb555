package proc

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"myclaw/internal/proctest"
)

// winHelperEnv makes the test binary a process of a tree: "parent" starts
// a "child" and prints both pids, "child" sleeps.
const winHelperEnv = "MYCLAW_TEST_WIN_TREE"

func TestWindowsTreeHelper(t *testing.T) {
	switch os.Getenv(winHelperEnv) {
	case "parent":
		child := exec.Command(os.Args[0], "-test.run=^TestWindowsTreeHelper$")
		child.Env = append(os.Environ(), winHelperEnv+"=child")
		if err := child.Start(); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println(os.Getpid(), child.Process.Pid)
		time.Sleep(time.Hour)
	case "child":
		time.Sleep(time.Hour)
	default:
		t.Skip("helper process only")
	}
}

// startWinTree starts the helper tree in a job and returns both pids.
func startWinTree(t *testing.T, start func(*exec.Cmd) error) (*exec.Cmd, []int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWindowsTreeHelper$")
	cmd.Env = append(os.Environ(), winHelperEnv+"=parent")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := start(cmd); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	var pids []int
	for _, f := range strings.Fields(line) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	if err != nil || len(pids) != 2 {
		cmd.Process.Kill()
		t.Fatalf("helper printed %q (%v); want two pids", line, err)
	}
	return cmd, pids
}

func winAwaitGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for _, pid := range pids {
		for proctest.Alive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if proctest.Alive(pid) {
			t.Errorf("pid %d survived; want the whole tree gone", pid)
		}
	}
}

func TestWindowsProcTreeKill(t *testing.T) {
	var tree *procTree
	cmd, pids := startWinTree(t, func(cmd *exec.Cmd) error {
		procSetSession(cmd)
		if err := cmd.Start(); err != nil {
			return err
		}
		var err error
		tree, err = newTree(cmd.Process.Pid, newProcMarker())
		return err
	})
	defer tree.release()
	tree.kill()
	cmd.Wait()
	winAwaitGone(t, pids)
}

// TestWindowsJobCloseKills checks KILL_ON_JOB_CLOSE: releasing the job
// ends what is still in it, as myclaw's exit does.
func TestWindowsJobCloseKills(t *testing.T) {
	var pt *Tree
	cmd, pids := startWinTree(t, func(cmd *exec.Cmd) error {
		var err error
		pt, err = StartTree(cmd, PrepareCmd(cmd))
		return err
	})
	pt.t.release()
	pt.Kill() // after the release: must not fail or hang
	cmd.Wait()
	winAwaitGone(t, pids)
}
