package builtin

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"myclaw/tools"
)

// slowSweepSandbox takes its time to clean up after a command, as the
// real one does when it looks for repositories a command made.
type slowSweepSandbox struct{ swept atomic.Bool }

func (s *slowSweepSandbox) Confine(cmd *exec.Cmd, network bool) (func(string) (string, string), error) {
	return func(string) (string, string) {
		time.Sleep(300 * time.Millisecond)
		s.swept.Store(true)
		return "sandbox: test", "permission_denied: the command created /ws/.git/commondir, which is protected; the sandbox removed it"
	}, nil
}

// A session ending waits for the sandbox to clean up after its background
// jobs, and what it undid is told: a plant must not outlive myclaw.
func TestStopAllWaitsForTheSandboxToCleanUpAfterAJob(t *testing.T) {
	sb := &slowSweepSandbox{}
	jobs := NewShellJobs()
	t.Cleanup(jobs.StopAll)
	shell, _ := shellTestTool(t, ShellOptions{Sandbox: sb, Jobs: jobs})
	ctx := tools.WithConfinement(context.Background(), tools.Confinement{Sandboxed: true})
	if _, err := shell.Execute(ctx, json.RawMessage(`{"command":"sleep 600","background":true}`)); err != nil {
		t.Fatal(err)
	}
	jobs.StopAll()
	if !sb.swept.Load() {
		t.Fatal("StopAll returned before the sandbox cleaned up after the job")
	}
	in := jobs.List()[0]
	if !strings.Contains(in.SandboxNote, ".git/commondir") {
		t.Fatalf("job %+v; want the sandbox's note on what it removed", in)
	}
	res, err := NewShellJobsTool(jobs).Execute(context.Background(), json.RawMessage(`{"action":"read","id":"job1"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.Output)
	if !strings.Contains(string(b), "commondir") || !strings.Contains(res.Summary, "the sandbox undid what it left") {
		t.Fatalf("read: %s, %q; want the note told to the model", b, res.Summary)
	}
}
