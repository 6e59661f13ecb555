package builtin

import (
	"context"
	"encoding/json"
	"myclaw/tools"
	"myclaw/tools/proc"
	"os"
	"strings"
	"testing"
	"time"
)

func jobsCall(t *testing.T, tool tools.Tool, args string) (tools.Result, error) {
	t.Helper()
	return tool.Execute(context.Background(), json.RawMessage(args))
}

func TestShellBackgroundJob(t *testing.T) {
	tag := procTestTag()
	jobs := NewShellJobs()
	t.Cleanup(jobs.StopAll)
	shell, dir := shellTestTool(t, ShellOptions{Env: append(os.Environ(), tag), Jobs: jobs})
	jt := NewShellJobsTool(jobs)

	res, err := shell.Execute(context.Background(), json.RawMessage(`{"command":"echo ready; setsid sleep 600 & while :; do if [ -f tick ]; then echo tick; rm tick; fi; sleep 0.05; done","background":true}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.Output)
	if !strings.Contains(string(b), `"id":"job1"`) || !strings.Contains(string(b), `"running":true`) {
		t.Fatalf("start output %s; want job1 running", b)
	}
	if !strings.Contains(res.Body, "ready") {
		t.Errorf("first output %q; want it to hold \"ready\"", res.Body)
	}

	res, err = jobsCall(t, jt, `{"action":"list"}`)
	if err != nil || !strings.Contains(res.Body, "job1  running") {
		t.Fatalf("list: %v %q; want job1 running", err, res.Body)
	}
	if res.Summary != "1 background job" {
		t.Errorf("list summary %q; want 1 background job", res.Summary)
	}
	if jobs.Running() != 1 {
		t.Errorf("Running() = %d; want 1", jobs.Running())
	}

	// Only new output is read.
	if err := os.WriteFile(dir+"/tick", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var body string
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(body, "tick") && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		res, err = jobsCall(t, jt, `{"action":"read","id":"job1"}`)
		if err != nil {
			t.Fatal(err)
		}
		body += res.Body
	}
	if !strings.Contains(body, "tick") || strings.Contains(body, "ready") {
		t.Errorf("read bodies %q; want the new line only", body)
	}

	if _, err := jobsCall(t, jt, `{"action":"read","id":"job9"}`); err == nil || !strings.Contains(err.Error(), "job1") {
		t.Errorf("read of an unknown job: %v; want an error naming the jobs there are", err)
	}

	res, err = jobsCall(t, jt, `{"action":"stop","id":"job1"}`)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(res.Output)
	if !strings.Contains(string(b), `"running":false`) || !strings.Contains(string(b), `"stopped":true`) {
		t.Errorf("stop output %s; want the job stopped", b)
	}
	if left := procTagged(tag, 0); len(left) > 0 {
		t.Errorf("after stop %d processes of the job run (pids %v); want none", len(left), left)
	}
	if jobs.Running() != 0 {
		t.Errorf("Running() = %d after stop; want 0", jobs.Running())
	}
}

func TestShellBackgroundJobsEndWithTheSession(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (waits for jobs to end): left out of the quick -short run")
	}
	for _, how := range []string{"StopAll", "KillProcesses"} {
		t.Run(how, func(t *testing.T) {
			tag := procTestTag()
			jobs := NewShellJobs()
			shell, _ := shellTestTool(t, ShellOptions{Env: append(os.Environ(), tag), Jobs: jobs})
			for i := 0; i < 2; i++ {
				if _, err := shell.Execute(context.Background(), json.RawMessage(`{"command":"(setsid sleep 600 &); sleep 600","background":true}`)); err != nil {
					t.Fatal(err)
				}
			}
			if n := len(procTagged(tag, 0)); n < 4 {
				t.Fatalf("%d processes of the jobs run; want 4", n)
			}
			if how == "StopAll" {
				jobs.StopAll()
			} else {
				proc.KillProcesses()
			}
			procAwaitNone(t, tag, 0)
		})
	}
}

func TestShellBackgroundJobThatEnds(t *testing.T) {
	jobs := NewShellJobs()
	shell, _ := shellTestTool(t, ShellOptions{Jobs: jobs})
	res, err := shell.Execute(context.Background(), json.RawMessage(`{"command":"echo done; exit 3","background":true}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.Output)
	if !strings.Contains(string(b), `"exit_code":3`) || !strings.Contains(res.Body, "done") {
		t.Errorf("output %s body %q; want exit 3 and its output", b, res.Body)
	}
}

func TestShellBackgroundUnavailable(t *testing.T) {
	shell, _ := shellTestTool(t, ShellOptions{})
	_, err := shell.Execute(context.Background(), json.RawMessage(`{"command":"sleep 1","background":true}`))
	if err == nil || !strings.Contains(err.Error(), "background jobs are not available") {
		t.Errorf("got %v; want background refused when no job table is configured", err)
	}
	if strings.Contains(string(shell.Meta().Schema), "background") {
		t.Errorf("schema offers background without a job table")
	}
}

// A job that ends by itself is reported; one that is stopped is not.
func TestShellJobOnEnd(t *testing.T) {
	jobs := NewShellJobs()
	t.Cleanup(jobs.StopAll)
	ended := make(chan tools.JobInfo, 4)
	jobs.OnEnd(func(in tools.JobInfo) { ended <- in })
	shell, dir := shellTestTool(t, ShellOptions{Env: append(os.Environ(), procTestTag()), Jobs: jobs})
	if _, err := shell.Execute(context.Background(), json.RawMessage(`{"command":"echo ready; while [ ! -f go ]; do sleep 0.05; done; exit 3","background":true}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := shell.Execute(context.Background(), json.RawMessage(`{"command":"echo ready; sleep 600","background":true}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := jobs.Stop("job2"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/go", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	in := <-ended
	if in.ID != "job1" || in.Running || in.ExitCode == nil || *in.ExitCode != 3 {
		t.Fatalf("ended %+v; want job1 exited 3", in)
	}
	select {
	case in := <-ended:
		t.Errorf("the stopped %s was reported as ended", in.ID)
	default:
	}
}
