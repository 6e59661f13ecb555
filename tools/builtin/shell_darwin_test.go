package builtin

import (
	"strings"
	"testing"
)

// darwinEscape runs a command in a session of its own (macOS has no
// setsid(1)); it prints its pid only once setsid succeeded, and lets go of
// the output pipes as an escaped daemon would.
const darwinEscape = `perl -MPOSIX -e 'POSIX::setsid() or die "setsid: $!"; print "$$\n"; close STDOUT; close STDERR; exec @ARGV' `

func TestDarwinShellRunTimeoutKillsTree(t *testing.T) {
	tests := []struct {
		name    string
		command string
	}{
		{"background child", "sleep 1000 & echo $!; wait"},
		{"setsid child", darwinEscape + "sleep 1000 & wait"},
		{"orphaned setsid grandchild", "(" + darwinEscape + "sleep 1000 &); sleep 1000"},
		{"new process group", "set -m; sleep 1000 & echo $!; wait"},
		{"foreground", "echo $$; exec sleep 1000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, _ := shellTestTool(t, ShellOptions{})
			out, res := shellExec(t, tool, tt.command, 2)
			if !out.TimedOut || !strings.Contains(out.Note, "timed out after 2 s") {
				t.Errorf("timed_out = %v, note %q; want a timeout", out.TimedOut, out.Note)
			}
			pids := shellPIDs(t, res.Body)
			if len(pids) == 0 {
				t.Fatalf("the command printed no pid; body %q", res.Body)
			}
			shellAwaitGone(t, pids)
		})
	}
}
