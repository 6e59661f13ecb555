package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// taggedProcs lists the live processes (zombies aside) other than skip
// whose environment holds tag.
func taggedProcs(tag string, skip int) []int {
	names, _ := filepath.Glob("/proc/[0-9]*")
	var out []int
	for _, dir := range names {
		pid, err := strconv.Atoi(filepath.Base(dir))
		if err != nil || pid == skip {
			continue
		}
		env, err := os.ReadFile(dir + "/environ")
		if err != nil || !bytes.Contains(append([]byte{0}, env...), []byte("\x00"+tag+"\x00")) {
			continue
		}
		stat, err := os.ReadFile(dir + "/stat")
		if i := bytes.LastIndexByte(stat, ')'); err == nil && i > 0 && i+2 < len(stat) && stat[i+2] != 'Z' && stat[i+2] != 'X' {
			out = append(out, pid)
		}
	}
	return out
}

// TestNothingOutlivesMyclaw: a signal while a command runs (with a child
// that left its session) and an MCP server runs (with a child of its own
// that did the same) leaves no process of theirs behind.
func TestNothingOutlivesMyclaw(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			b := make([]byte, 6)
			_, _ = rand.Read(b)
			tag := "MYCLAW_TEST_TAG_" + hex.EncodeToString(b) + "=1"
			e := newEnv(t, func(first string, round int) (string, []scriptCall) {
				if round == 0 {
					return "", []scriptCall{{Name: "shell_run", Args: `{"command":"setsid sleep 600 >/dev/null 2>&1 & echo $$ > started; sleep 600","timeout_s":600}`}}
				}
				return "done", nil
			})
			dir := filepath.Join(e.Config, "myclaw")
			os.MkdirAll(dir, 0o700)
			cfg := fmt.Sprintf("[mcp.servers.t]\ncommand = \"bash\"\nargs = [\"-c\", \"setsid sleep 600 >/dev/null 2>&1 & exec \\\"$0\\\"\", %q]\nenv = { MYCLAW_TEST_MCP_SERVER = \"1\" }\ntimeout_s = 20\n", os.Args[0])
			if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-p", "go", "--model", "test-model", "--autonomy", "full")
			cmd.Env = append(append(e.Vars(), "MYCLAW_TEST_AS_MAIN=1"), tag)
			cmd.Dir = e.WS
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			// The command's sleep (bash execs it) and its setsid sleep, the
			// MCP server and its setsid sleep.
			deadline := time.Now().Add(60 * time.Second)
			started := filepath.Join(e.WS, "started")
			for (len(taggedProcs(tag, cmd.Process.Pid)) < 4 || !fileExists(started)) && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			if _, err := os.Stat(filepath.Join(e.WS, "started")); err != nil {
				cmd.Process.Kill()
				t.Fatalf("the command did not start: %v; stderr %s", err, stderr.String())
			}
			if n := len(taggedProcs(tag, cmd.Process.Pid)); n < 4 {
				cmd.Process.Kill()
				t.Fatalf("only %d processes of the command and the MCP server started; want 4", n)
			}
			cmd.Process.Signal(sig)
			select {
			case <-exited:
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("myclaw did not exit after %v; stderr %s", sig, stderr.String())
			}
			if left := taggedProcs(tag, 0); len(left) > 0 {
				t.Errorf("after myclaw exited on %v, %d of its processes still run (pids %v); want none\nstderr %s", sig, len(left), left, stderr.String())
				for _, pid := range left {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			if strings.Contains(stderr.String(), "panic") {
				t.Errorf("stderr: %s", stderr.String())
			}
		})
	}
}

// TestBackgroundJobThroughHeadless: the model starts a job, reads it, and
// the job is gone once myclaw exits.
func TestBackgroundJobThroughHeadless(t *testing.T) {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	tag := "MYCLAW_TEST_TAG_" + hex.EncodeToString(b) + "=1"
	e := newEnv(t, func(first string, round int) (string, []scriptCall) {
		switch round {
		case 0:
			return "", []scriptCall{{Name: "shell_run", Args: `{"command":"echo serving; sleep 600","background":true}`}}
		case 1:
			return "", []scriptCall{{Name: "shell_jobs", Args: `{"action":"list"}`}}
		}
		return "done", nil
	})
	stdout, stderr, code := e.myclaw([]string{tag}, "-p", "serve", "--model", "test-model", "--autonomy", "full")
	if code != 0 {
		t.Fatalf("code %d, stdout %s, stderr %s", code, stdout, stderr)
	}
	results := e.Srv.ToolResults()
	if len(results) != 2 || !strings.Contains(results[0], `"id":"job1"`) || !strings.Contains(results[0], "serving") || !strings.Contains(results[0], "<untrusted") {
		t.Fatalf("tool results %q; want job1 started with its first output, fenced", results)
	}
	if !strings.Contains(results[1], "job1  running") {
		t.Errorf("list result %q; want job1 running", results[1])
	}
	if left := taggedProcs(tag, 0); len(left) > 0 {
		t.Errorf("after myclaw exited %d processes of the job run (pids %v); want none", len(left), left)
		for _, pid := range left {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestSecretValuesRedacted: an API key myclaw holds, printed by a tool,
// reaches neither the model, nor the transcript, nor the log.
func TestSecretValuesRedacted(t *testing.T) {
	const key = "sk-live-redaction-check-42"
	e := newEnv(t, func(first string, round int) (string, []scriptCall) {
		if round == 0 {
			return "", []scriptCall{{Name: "fs_read", Args: `{"path":"leak.txt"}`}}
		}
		return "done", nil
	})
	if err := os.WriteFile(filepath.Join(e.WS, "leak.txt"), []byte("token="+key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := e.myclaw([]string{"OPENAI_API_KEY=" + key}, "-p", "read", "--model", "test-model"); code != 0 {
		t.Fatalf("code %d: %s", code, stderr)
	}
	results := e.Srv.ToolResults()
	if len(results) != 1 || strings.Contains(results[0], key) || !strings.Contains(results[0], "[redacted]") {
		t.Errorf("tool results %q; want the key redacted", results)
	}
	filepath.Walk(e.State, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(key)) {
				t.Errorf("%s holds the key: %s", p, b)
			}
		}
		return nil
	})
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
