package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// An edit agent through the binary, with the real layer: its file tool and
// its shell command change only its layer until the merge, which (at full
// autonomy, headless) applies as one journal entry that one `myclaw undo`
// takes back whole.
func TestHeadlessEditAgentMergesAndUndoesAsOneStep(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("edit agents' layers are made only on Linux")
	}
	e := newEnv(t, func(first string, round int) (string, []scriptCall) {
		if strings.Contains(first, "SUBTASK") {
			if round == 0 {
				return "", []scriptCall{
					{Name: "fs_write", Args: `{"path":"note.txt","content":"from the agent\n"}`},
					{Name: "shell_run", Args: `{"command":"echo made > shell.txt; rm keep.txt"}`},
				}
			}
			return "Wrote the note and ran the command.", nil
		}
		if round == 0 {
			return "", []scriptCall{{Name: "agent", Args: `{"mode":"edit","description":"write a note","prompt":"SUBTASK: write the note"}`}}
		}
		return "The agent is done.", nil
	})
	keep := filepath.Join(e.WS, "keep.txt")
	if err := os.WriteFile(keep, []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := e.myclaw(nil, "-p", "delegate", "--model", "test-model", "--autonomy", "full", "--output", "json")
	if code != 0 {
		t.Fatalf("code %d, stderr %q, stdout %q", code, errOut, out)
	}
	if strings.Contains(out, "copy-on-write layer") && !strings.Contains(out, "agent_result") {
		t.Skipf("no edit layer can be made here: %s", out)
	}
	for _, want := range []string{`"agent_start"`, `"agent_result"`, `Merged agent`} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %s in the output:\n%s", want, out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(e.WS, "note.txt")); err != nil || string(b) != "from the agent\n" {
		t.Fatalf("note.txt after the merge: %q, %v\n%s", b, err, out)
	}
	if b, err := os.ReadFile(filepath.Join(e.WS, "shell.txt")); err != nil || string(b) != "made\n" {
		t.Fatalf("shell.txt after the merge: %q, %v\n%s", b, err, out)
	}
	if _, err := os.Stat(keep); !os.IsNotExist(err) {
		t.Fatalf("keep.txt, removed by the agent's command, is still there after the merge: %v", err)
	}
	undo, _, code := e.myclaw(nil, "undo")
	if code != 0 {
		t.Fatalf("undo: code %d\n%s", code, undo)
	}
	for _, gone := range []string{"note.txt", "shell.txt"} {
		if _, err := os.Stat(filepath.Join(e.WS, gone)); !os.IsNotExist(err) {
			t.Fatalf("one undo left %s: %v\n%s", gone, err, undo)
		}
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "kept\n" {
		t.Fatalf("one undo did not bring keep.txt back: %q, %v\n%s", b, err, undo)
	}
}
