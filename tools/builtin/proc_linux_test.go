package builtin

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"myclaw/internal/proctest"
	"myclaw/tools/proc"
)

// procTagged returns the live processes (zombies aside) whose environment
// holds tag or whose session is sid: what a call may have left behind.
func procTagged(tag string, sid int) []int {
	pids, err := proc.Marked(tag, sid)
	if err != nil {
		return nil
	}
	var out []int
	for _, pid := range pids {
		if proctest.Alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// procTestTag returns an environment entry unique to one test.
func procTestTag() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "MYCLAW_TEST_TAG_" + hex.EncodeToString(b) + "=1"
}

// procAwaitNone fails when processes carrying tag (or in session sid) are
// still alive after a generous grace period, and kills them.
func procAwaitNone(t *testing.T, tag string, sid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	left := procTagged(tag, sid)
	for len(left) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		left = procTagged(tag, sid)
	}
	if len(left) > 0 {
		t.Errorf("%d processes of the call outlived it (pids %v); want none", len(left), left[:min(len(left), 10)])
		for _, pid := range left {
			_ = shellKillPID(pid)
		}
	}
}

func TestShellRunLeavesNothingBehind(t *testing.T) {
	tests := []struct {
		name    string
		command string
	}{
		{"subshell background", "(sleep 600 &); echo started"},
		{"nohup", "nohup sleep 600 >/dev/null 2>&1 & echo ok"},
		{"setsid", "setsid sleep 600 </dev/null >/dev/null 2>&1 &"},
		{"double fork holding stdout", "( ( sleep 600 & ) & ); echo forked"},
		{"setsid double fork", "(setsid sh -c 'sleep 600 & sleep 600' >/dev/null 2>&1 &); true"},
		{"new process groups", "set -m; sleep 600 & sleep 600 & disown -a; echo x"},
		{"many background sleeps", "for i in $(seq 1 500); do sleep 600 & done; echo spawned"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if testing.Short() && strings.HasPrefix(tt.name, "many") {
				t.Skip("slow (starts 500 processes): left out of the quick -short run")
			}
			tag := procTestTag()
			tool, _ := shellTestTool(t, ShellOptions{Env: append(os.Environ(), tag)})
			out, res := shellExec(t, tool, "echo $$; "+tt.command, 120)
			if out.TimedOut {
				t.Fatalf("timed out; body %q", res.Body)
			}
			pids := shellPIDs(t, res.Body)
			if len(pids) == 0 {
				t.Fatalf("no session id printed; body %q", res.Body)
			}
			// Checked at once: the result is in, so nothing may run.
			if left := procTagged(tag, pids[0]); len(left) > 0 {
				t.Errorf("when the result arrived %d processes of the call were alive (pids %v); want none", len(left), left[:min(len(left), 10)])
			}
			procAwaitNone(t, tag, pids[0])
		})
	}
}

func TestShellRunOutputOfKilledBackgroundKept(t *testing.T) {
	tool, _ := shellTestTool(t, ShellOptions{})
	out, res := shellExec(t, tool, "(echo early; sleep 600) & sleep 0.2; echo done", 60)
	if out.ExitCode != 0 || out.TimedOut {
		t.Errorf("exit %d timed_out %v; want 0, false", out.ExitCode, out.TimedOut)
	}
	if !strings.Contains(res.Body, "early") || !strings.Contains(res.Body, "done") {
		t.Errorf("body %q; want both the background and the foreground output", res.Body)
	}
	if strings.Contains(out.Note, "kept the output open") {
		t.Errorf("note %q; the background process was killed, so nothing kept the output", out.Note)
	}
}

func TestKillProcessesEndsLiveCalls(t *testing.T) {
	tag := procTestTag()
	tool, dir := shellTestTool(t, ShellOptions{Env: append(os.Environ(), tag)})
	errc := make(chan error, 1)
	go func() {
		_, err := tool.Execute(context.Background(), shellArgsJSON(t, "echo $$ > sid; setsid sleep 600 & sleep 600", 600))
		errc <- err
	}()
	var sid int
	for deadline := time.Now().Add(20 * time.Second); sid == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(dir + "/sid")
		sid, _ = strconv.Atoi(string(bytes.TrimSpace(b)))
	}
	if sid == 0 {
		t.Fatal("the command did not start")
	}
	for deadline := time.Now().Add(20 * time.Second); len(procTagged(tag, 0)) < 3 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	proc.KillProcesses()
	if left := procTagged(tag, sid); len(left) > 0 {
		t.Errorf("after KillProcesses %d processes of the call are alive (pids %v); want none", len(left), left)
	}
	select {
	case err := <-errc:
		if err != nil {
			t.Errorf("Execute: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Execute did not return after its processes were killed")
	}
	procAwaitNone(t, tag, sid)
}

// TestCttyHelper plays myclaw in a terminal for
// TestShellRunNoControllingTerminal: it runs with a pty as its controlling
// terminal and runs a shell_run command that tries to reach it.
func TestCttyHelper(t *testing.T) {
	if os.Getenv("MYCLAW_TEST_CTTY") != "helper" {
		t.Skip("helper process only")
	}
	if f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err != nil {
		fmt.Println("helper-tty=" + err.Error())
	} else {
		fmt.Println("helper-tty=ok")
		// The control: a process of the terminal's session can inject.
		c := byte('#')
		if err := unix.IoctlSetPointerInt(int(f.Fd()), unix.TIOCSTI, int(c)); err != nil {
			fmt.Println("helper-sti=" + err.Error())
		} else {
			fmt.Println("helper-sti=ok")
		}
		f.Close()
	}
	env := append(os.Environ(), "MYCLAW_TEST_CTTY=child")
	tool := NewShellRun(ShellOptions{Dir: t.TempDir(), Env: env})
	args, _ := json.Marshal(map[string]string{"command": shellQuote(os.Args[0]) + " -test.run=^TestCttyChild$ -test.v"})
	res, err := tool.Execute(context.Background(), args)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(res.Body)
}

// TestCttyChild is the command TestCttyHelper runs: it reports what it can
// do to the terminal.
func TestCttyChild(t *testing.T) {
	if os.Getenv("MYCLAW_TEST_CTTY") != "child" {
		t.Skip("helper process only")
	}
	report := func(what string, err error) {
		if err == nil {
			fmt.Println(what + "=ok")
		} else {
			fmt.Println(what + "=" + err.Error())
		}
	}
	_, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	report("child-tty", err)
	stdin, _ := os.Readlink("/proc/self/fd/0")
	fmt.Println("child-stdin=" + stdin)
	for fd := 0; fd <= 2; fd++ {
		report(fmt.Sprintf("child-sti-fd%d", fd), unix.IoctlSetPointerInt(fd, unix.TIOCSTI, int('!')))
	}
	// The terminal's device by name: opening it works (the user owns it),
	// but it is not this process's controlling terminal.
	pts, err := os.OpenFile(os.Getenv("MYCLAW_TEST_PTS"), os.O_RDWR|unix.O_NOCTTY, 0)
	report("child-pts-open", err)
	if err == nil {
		report("child-sti-pts", unix.IoctlSetPointerInt(int(pts.Fd()), unix.TIOCSTI, int('!')))
		_, err := unix.IoctlGetInt(int(pts.Fd()), unix.TIOCGPGRP)
		report("child-tcgetpgrp", err)
	}
}

func TestShellRunNoControllingTerminal(t *testing.T) {
	master, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	defer unix.Close(master)
	if err := unix.IoctlSetPointerInt(master, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(master, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	ptsPath := "/dev/pts/" + strconv.Itoa(n)
	slave, err := os.OpenFile(ptsPath, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer slave.Close()
	// Keep the terminal's input and output moving so nothing blocks.
	go func() {
		buf := make([]byte, 4096)
		for {
			if _, err := unix.Read(master, buf); err != nil {
				return
			}
		}
	}()
	exe := os.Args[0]
	attr := &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if os.Geteuid() == 0 {
		// Root may inject into any terminal (CAP_SYS_ADMIN); play an
		// ordinary user, who owns the terminal but has no such power.
		exe = procCopyExecutable(t, exe)
		if err := slave.Chown(65534, 65534); err != nil {
			t.Fatal(err)
		}
		attr.Credential = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	cmd := exec.Command(exe, "-test.run=^TestCttyHelper$", "-test.v")
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "MYCLAW_TEST_CTTY=helper", "MYCLAW_TEST_PTS="+ptsPath)
	cmd.Stdin = slave
	cmd.SysProcAttr = attr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	got := string(out)
	if !strings.Contains(got, "helper-tty=ok") {
		t.Fatalf("the helper has no controlling terminal, so the test proves nothing:\n%s", got)
	}
	want := []string{
		"child-tty=open /dev/tty: " + unix.ENXIO.Error(),
		"child-stdin=/dev/null",
		"child-sti-fd0=" + unix.ENOTTY.Error(),
		"child-sti-fd1=" + unix.ENOTTY.Error(),
		"child-sti-fd2=" + unix.ENOTTY.Error(),
		"child-tcgetpgrp=" + unix.ENOTTY.Error(),
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q:\n%s", w, got)
		}
	}
	t.Run("TIOCSTI", func(t *testing.T) {
		if !strings.Contains(got, "helper-sti=ok") {
			t.Skipf("this kernel refuses TIOCSTI even to the terminal's own session (dev.tty.legacy_tiocsti=0), so the command's refusal would prove nothing:\n%s", got)
		}
		if !strings.Contains(got, "child-pts-open=ok") {
			t.Skipf("the command could not open the terminal's device, so it could not try TIOCSTI through it:\n%s", got)
		}
		if !strings.Contains(got, "child-sti-pts=") {
			t.Fatalf("no TIOCSTI result for the terminal device:\n%s", got)
		}
		if strings.Contains(got, "child-sti-pts=ok") {
			t.Errorf("a command injected keystrokes into the terminal through its device:\n%s", got)
		}
	})
}

// procCopyExecutable copies the test binary where any user can run it.
func procCopyExecutable(t *testing.T, exe string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "myclaw-ctty-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	dst := dir + "/test.bin"
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

// shellQuote quotes s for bash.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// The Linux process layer through shell_run: setsid(1) is util-linux's.

func TestShellRunTimeoutKillsTree(t *testing.T) {
	tests := []struct {
		name    string
		command string
	}{
		{"background child", "sleep 1000 & echo $!; wait"},
		{"setsid child", "setsid sleep 1000 & echo $!; wait"},
		{"orphaned setsid grandchild", "(setsid sleep 1000 >/dev/null 2>&1 & echo $!); sleep 1000"},
		{"new process group", "set -m; sleep 1000 & echo $!; wait"},
		{"foreground", "echo $$; exec sleep 1000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, _ := shellTestTool(t, ShellOptions{})
			out, res := shellExec(t, tool, tt.command, 1)
			if !out.TimedOut {
				t.Errorf("timed_out = false; want true")
			}
			if !strings.Contains(out.Note, "timed out after 1 s") {
				t.Errorf("note = %q; want it to say the command timed out", out.Note)
			}
			pids := shellPIDs(t, res.Body)
			if len(pids) == 0 {
				t.Fatalf("the command printed no pid; body %q", res.Body)
			}
			shellAwaitGone(t, pids)
		})
	}
}

func TestShellRunCancelKillsTree(t *testing.T) {
	dir := t.TempDir()
	tool, _ := shellTestTool(t, ShellOptions{Dir: dir})
	ctx, cancel := context.WithCancel(context.Background())
	pidFile := filepath.Join(dir, "pids")
	errc := make(chan error, 1)
	go func() {
		_, err := tool.Execute(ctx, shellArgsJSON(t, "sleep 1000 & echo $! > pids; setsid sleep 1000 & echo $! >> pids; echo $$ >> pids; wait", 60))
		errc <- err
	}()
	var pids []int
	for deadline := time.Now().Add(20 * time.Second); len(pids) < 3 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(pidFile)
		pids = shellPIDs(t, string(b))
	}
	if len(pids) < 3 {
		cancel()
		t.Fatalf("the command did not start its processes: pids %v", pids)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Execute after cancel returned %v; want context.Canceled", err)
	}
	shellAwaitGone(t, pids)
}
