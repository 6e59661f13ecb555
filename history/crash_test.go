package history

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The helper process is this test binary run again with these variables
// set; it does one thing to the journal, says "ready", and waits to be
// killed.
const (
	helperModeEnv    = "HISTORY_HELPER_MODE"
	helperWSEnv      = "HISTORY_HELPER_WORKSPACE"
	helperJournalEnv = "HISTORY_HELPER_JOURNAL"
	helperBlobsEnv   = "HISTORY_HELPER_BLOBS"
)

func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperModeEnv)
	if mode == "" {
		t.Skip("runs only as the helper process of the crash tests")
	}
	blobs := NewBlobs(os.Getenv(helperBlobsEnv))
	h := &harness{t: t, dir: os.Getenv(helperWSEnv), path: os.Getenv(helperJournalEnv), blobs: blobs, w: &testWriter{blobs: blobs}}
	h.j = h.open()
	waitForKill := func() {
		fmt.Println("ready")
		time.Sleep(2 * time.Minute)
		t.Fatal("the helper process was not killed")
	}
	switch mode {
	case "begin":
		h.begin("c2", "b.txt", "two")
		waitForKill()
	case "begin-write":
		path := h.begin("c2", "b.txt", "two")
		if err := os.WriteFile(path, []byte("two"), 0o644); err != nil {
			t.Fatal(err)
		}
		waitForKill()
	case "undo":
		h.w.hook = waitForKill
		h.undo(1, false)
		t.Fatal("undo returned without reverting anything")
	default:
		t.Fatalf("unknown helper mode %q", mode)
	}
}

// runHelper runs the helper process in mode on h's files and kills it with
// SIGKILL once it is ready.
func runHelper(t *testing.T, h *harness, mode string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(),
		helperModeEnv+"="+mode,
		helperWSEnv+"="+h.dir,
		helperJournalEnv+"="+h.path,
		helperBlobsEnv+"="+h.blobs.Dir(),
	)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := false
	sc := bufio.NewScanner(out)
	var said []string
	for sc.Scan() {
		if sc.Text() == "ready" {
			ready = true
			break
		}
		said = append(said, sc.Text())
	}
	if !ready {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper %s ended before it was ready:\n%s\n%s", mode, strings.Join(said, "\n"), stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("helper %s ended with %v; want killed by SIGKILL", mode, cmd.ProcessState)
	}
}

// TestKillBetweenJournalAndFileWrite kills a process that journaled a write
// before its result was recorded, with and without the file written.
func TestKillBetweenJournalAndFileWrite(t *testing.T) {
	for _, mode := range []string{"begin", "begin-write"} {
		t.Run(mode, func(t *testing.T) {
			h := newHarness(t)
			h.write("c1", "a.txt", "one")
			runHelper(t, h, mode)

			h.reopen()
			if w := h.j.Warnings(); len(w) != 0 {
				t.Fatalf("Warnings() = %q; want none", w)
			}
			if got, want := states(h.j.Entries()), "1:c1:applied 2:c2:pending"; got != want {
				t.Fatalf("entries = %q; want %q", got, want)
			}
			lines, err := h.j.Recover(context.Background(), h.resolve)
			if err != nil {
				t.Fatal(err)
			}
			want := "test_write: Write b.txt was interrupted before its result was recorded; /undo reverts it safely"
			if len(lines) != 1 || lines[0] != want {
				t.Fatalf("Recover = %q; want [%q]", lines, want)
			}
			wantOutcomes(t, h.undo(1, false), "done:c2")
			h.wantFiles(map[string]string{"a.txt": "one"})
			h.wantDepth(1, 1)
		})
	}
}

// TestKillDuringUndo kills a process after Revert changed the file and
// before the undo was recorded as done; Recover completes it.
func TestKillDuringUndo(t *testing.T) {
	h := newHarness(t)
	h.write("c1", "a.txt", "one")
	h.write("c2", "b.txt", "two")
	runHelper(t, h, "undo")

	h.reopen()
	h.wantFiles(map[string]string{"a.txt": "one"})
	if got, want := states(h.j.Entries()), "1:c1:applied 2:c2:applied"; got != want {
		t.Fatalf("entries before Recover = %q; want %q", got, want)
	}
	lines, err := h.j.Recover(context.Background(), h.resolve)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Finished the interrupted undo of test_write: Write b.txt"; len(lines) != 1 || lines[0] != want {
		t.Fatalf("Recover = %q; want [%q]", lines, want)
	}
	h.reopen()
	if got, want := states(h.j.Entries()), "1:c1:applied 2:c2:undone"; got != want {
		t.Fatalf("entries after Recover = %q; want %q", got, want)
	}
	wantOutcomes(t, h.redo(1), "done:c2")
	h.wantFiles(map[string]string{"a.txt": "one", "b.txt": "two"})
}

// TestRecoverInterruptedRevert leaves a begin record without its end, as a
// crash would, in the states the files can be in.
func TestRecoverInterruptedRevert(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(h *harness) // after c1 and c2 were written
		op        string
		want      string
		states    string
		files     map[string]string
		redoDepth int
	}{
		{
			name:      "undo before the file changed",
			op:        opUndoBegin,
			want:      "Finished the interrupted undo of test_write: Write b.txt",
			states:    "1:c1:applied 2:c2:undone",
			files:     map[string]string{"a.txt": "one"},
			redoDepth: 1,
		},
		{
			name: "undo after the file changed",
			setup: func(h *harness) {
				if err := os.Remove(filepath.Join(h.dir, "b.txt")); err != nil {
					h.t.Fatal(err)
				}
			},
			op:        opUndoBegin,
			want:      "Finished the interrupted undo of test_write: Write b.txt",
			states:    "1:c1:applied 2:c2:undone",
			files:     map[string]string{"a.txt": "one"},
			redoDepth: 1,
		},
		{
			name: "undo of a file changed since",
			setup: func(h *harness) {
				if err := os.WriteFile(filepath.Join(h.dir, "b.txt"), []byte("edited"), 0o644); err != nil {
					h.t.Fatal(err)
				}
			},
			op:     opUndoBegin,
			want:   "Could not finish the interrupted undo of test_write: Write b.txt: b.txt changed since the call",
			states: "1:c1:applied 2:c2:applied",
			files:  map[string]string{"a.txt": "one", "b.txt": "edited"},
		},
		{
			name:      "redo",
			setup:     func(h *harness) { h.undo(1, false) },
			op:        opRedoBegin,
			want:      "Finished the interrupted redo of test_write: Write b.txt",
			states:    "1:c1:applied 2:c2:applied",
			files:     map[string]string{"a.txt": "one", "b.txt": "two"},
			redoDepth: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.write("c1", "a.txt", "one")
			h.write("c2", "b.txt", "two")
			if tt.setup != nil {
				tt.setup(h)
			}
			err := h.j.mutate(func() error { return h.j.append(record{Op: tt.op, Seq: 2, CallID: "c2"}) })
			if err != nil {
				t.Fatal(err)
			}
			h.reopen()
			lines, err := h.j.Recover(context.Background(), h.resolve)
			if err != nil {
				t.Fatal(err)
			}
			if len(lines) != 1 || !strings.HasPrefix(lines[0], tt.want) {
				t.Fatalf("Recover = %q; want one line starting with %q", lines, tt.want)
			}
			h.wantFiles(tt.files)
			h.reopen()
			if got := states(h.j.Entries()); got != tt.states {
				t.Fatalf("entries = %q; want %q", got, tt.states)
			}
			if got := h.j.RedoDepth(); got != tt.redoDepth {
				t.Fatalf("RedoDepth() = %d; want %d", got, tt.redoDepth)
			}
			if lines, err := h.j.Recover(context.Background(), h.resolve); err != nil || len(lines) != 0 {
				t.Fatalf("second Recover = %q, %v; want nothing left", lines, err)
			}
		})
	}
}

// TestTornLastRecord damages the end of the journal as a crash mid-write
// would: the damage is ignored with a warning and cut off by the next write.
func TestTornLastRecord(t *testing.T) {
	tests := []struct {
		name   string
		damage func(data []byte) []byte
		states string
	}{
		{"cut mid-line", func(d []byte) []byte { return d[:len(d)-20] }, "1:c1:applied 2:c2:pending"},
		{"no newline", func(d []byte) []byte { return d[:len(d)-1] }, "1:c1:applied 2:c2:pending"},
		{"bad checksum", func(d []byte) []byte {
			i := bytes.LastIndex(d, []byte(`"op":"commit"`))
			return append(append(d[:i:i], `"op":"commiT"`...), d[i+len(`"op":"commit"`):]...)
		}, "1:c1:applied 2:c2:pending"},
		{"half a line after the last record", func(d []byte) []byte { return append(d, `{"rec":{"op":"beg`...) }, "1:c1:applied 2:c2:applied"},
		{"garbage lines", func(d []byte) []byte { return append(d, "\x00\x00\n{}\n"...) }, "1:c1:applied 2:c2:applied"},
		{"torn tail longer than the next record", func(d []byte) []byte {
			return append(d, `{"rec":{"op":"begin","entry":{"summary":"`+strings.Repeat("x", 8000)...)
		}, "1:c1:applied 2:c2:applied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.write("c1", "a.txt", "one")
			h.write("c2", "b.txt", "two")
			h.j.Close()
			data, err := os.ReadFile(h.path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(h.path, tt.damage(data), 0o600); err != nil {
				t.Fatal(err)
			}

			h.j = h.open()
			w := h.j.Warnings()
			if want := "ignored a torn record at the end of " + h.path; len(w) != 1 || !strings.HasPrefix(w[0], want) {
				t.Fatalf("Warnings() = %q; want one starting with %q", w, want)
			}
			if got := states(h.j.Entries()); got != tt.states {
				t.Fatalf("entries = %q; want %q", got, tt.states)
			}

			h.write("c3", "c.txt", "three")
			h.reopen()
			if w := h.j.Warnings(); len(w) != 0 {
				t.Fatalf("Warnings() after the next write = %q; want none", w)
			}
			if got, want := states(h.j.Entries()), tt.states+" 3:c3:applied"; got != want {
				t.Fatalf("entries after the next write = %q; want %q", got, want)
			}
			checkEveryLine(t, h.path)
		})
	}
}

// checkEveryLine fails unless every line of the journal is a valid record.
func checkEveryLine(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		t.Fatalf("journal does not end with a newline")
	}
	for i, line := range bytes.SplitAfter(data[:len(data)-1], []byte("\n")) {
		if _, err := decodeRecord(line); err != nil {
			t.Fatalf("line %d of the journal: %v", i+1, err)
		}
	}
}

func TestCorruptRecordInMiddle(t *testing.T) {
	h := newHarness(t)
	h.write("c1", "a.txt", "one")
	h.write("c2", "b.txt", "two")
	h.write("c3", "c.txt", "three")
	h.j.Close()
	data, err := os.ReadFile(h.path)
	if err != nil {
		t.Fatal(err)
	}
	// Same length, still JSON, wrong checksum: bit rot in line 3 (begin c2).
	damaged := bytes.Replace(data, []byte("Write b.txt"), []byte("Write b.tXt"), 1)
	if bytes.Equal(damaged, data) {
		t.Fatal("the damage did not apply")
	}
	if err := os.WriteFile(h.path, damaged, 0o600); err != nil {
		t.Fatal(err)
	}

	h.j = h.open()
	want := []string{
		"skipped a corrupt record at line 3 of " + h.path + ": checksum mismatch",
		"skipped record at line 4 of " + h.path + ": commit record of unknown seq 2",
	}
	w := h.j.Warnings()
	if len(w) != len(want) {
		t.Fatalf("Warnings() = %q; want %d warnings", w, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(w[i], want[i]) {
			t.Errorf("warning %d = %q; want it to start with %q", i, w[i], want[i])
		}
	}
	if got, want := states(h.j.Entries()), "1:c1:applied 3:c3:applied"; got != want {
		t.Fatalf("entries = %q; want %q", got, want)
	}
	wantOutcomes(t, h.undo(2, false), "done:c3 done:c1")
	h.wantFiles(map[string]string{"b.txt": "two"})
	h.reopen()
	if got, want := states(h.j.Entries()), "1:c1:undone 3:c3:undone"; got != want {
		t.Fatalf("entries after undo = %q; want %q", got, want)
	}
}
