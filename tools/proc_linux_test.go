package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The Linux process layer, through shell_run: setsid(1) is util-linux's.

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
