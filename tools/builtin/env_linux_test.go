package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"myclaw/tools/proc"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestHideEnvironHelper is the child process of TestHideEnviron; it does
// nothing in a normal run.
func TestHideEnvironHelper(t *testing.T) {
	if os.Getenv("MYCLAW_TEST_HIDE_ENVIRON") != "1" {
		t.Skip("helper process only")
	}
	if err := proc.HideEnviron("ENVTEST_API_KEY", "ENVTEST_ABSENT"); err != nil {
		fmt.Println("error:", err)
		return
	}
	dumpable, _ := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	fmt.Printf("getenv=%q dumpable=%d\n", os.Getenv("ENVTEST_API_KEY"), dumpable)
	// What a command started by this process could read about its parent.
	tool := NewShellRun(ShellOptions{Dir: t.TempDir()})
	res, err := tool.Execute(context.Background(), json.RawMessage(`{"command":"tr '\\0' '\\n' < /proc/$PPID/environ"}`))
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(res.Body)
}

func TestHideEnviron(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHideEnvironHelper$", "-test.v")
	cmd.Env = append(os.Environ(), "MYCLAW_TEST_HIDE_ENVIRON=1", "ENVTEST_API_KEY=sk-very-secret", "ENVTEST_KEEP=visible")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper failed: %v\n%s", err, out)
	}
	got := string(out)
	for _, want := range []string{`getenv="" dumpable=0`, "ENVTEST_KEEP=visible", "ENVTEST_API_KEY="} {
		if !strings.Contains(got, want) {
			t.Errorf("helper output lacks %q:\n%s", want, got)
		}
	}
	for _, bad := range []string{"sk-very-secret", "error:"} {
		if strings.Contains(got, bad) {
			t.Errorf("helper output contains %q:\n%s", bad, got)
		}
	}
}
