package history

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"myclaw/tools"
)

// fileState is a file as the test reverter sees it: absent, or present with
// content stored as a blob.
type fileState struct {
	Exists bool   `json:"exists"`
	Blob   string `json:"blob,omitempty"`
}

// writeUndo is the undo data of "test_write": the change of one file from
// Before to After.
type writeUndo struct {
	Path   string    `json:"path"`
	Before fileState `json:"before"`
	After  fileState `json:"after"`
}

// testWriter is a file-backed Reverter following the tools.Reverter
// contract: restore when the file is as the change left it, do nothing when
// it already is as before, refuse with *tools.Conflict otherwise unless
// forced (then keep the current version as a blob so redo can bring it
// back).
type testWriter struct {
	blobs *Blobs
	// hook, if set, runs after a successful revert changed the file.
	hook func()
}

func (w *testWriter) current(path string) (fileState, []byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fileState{}, nil, nil
	}
	if err != nil {
		return fileState{}, nil, err
	}
	h := sha256.Sum256(data)
	return fileState{Exists: true, Blob: hex.EncodeToString(h[:])}, data, nil
}

func (w *testWriter) restore(path string, st fileState) error {
	if !st.Exists {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	data, err := w.blobs.Get(st.Blob)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

func (w *testWriter) Revert(ctx context.Context, undo json.RawMessage, force bool) (json.RawMessage, error) {
	var u writeUndo
	if err := json.Unmarshal(undo, &u); err != nil || u.Path == "" {
		return nil, tools.ErrCorruptUndo
	}
	cur, data, err := w.current(u.Path)
	if err != nil {
		return nil, err
	}
	redo := writeUndo{Path: u.Path, Before: u.After, After: u.Before}
	switch {
	case cur == u.After:
		if err := w.restore(u.Path, u.Before); err != nil {
			return nil, err
		}
		if w.hook != nil {
			w.hook()
		}
	case cur == u.Before:
	case !force:
		detail := "it was deleted"
		if cur.Exists {
			detail = fmt.Sprintf("contents differ (sha256 %s… now)", cur.Blob[:8])
		}
		return nil, &tools.Conflict{What: filepath.Base(u.Path), Detail: detail}
	default:
		if cur.Exists {
			if _, err := w.blobs.Put(data); err != nil {
				return nil, err
			}
		}
		if err := w.restore(u.Path, u.Before); err != nil {
			return nil, err
		}
		redo.Before = cur
	}
	return json.Marshal(redo)
}

// harness is a journal over a temp workspace with the test reverter.
type harness struct {
	t     *testing.T
	dir   string // workspace
	path  string // journal file
	blobs *Blobs
	w     *testWriter
	j     *Journal
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	root := t.TempDir()
	h := &harness{t: t, dir: filepath.Join(root, "ws"), path: filepath.Join(root, "state", "journal.jsonl"), blobs: NewBlobs(filepath.Join(root, "state", "blobs"))}
	if err := os.Mkdir(h.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	h.w = &testWriter{blobs: h.blobs}
	h.j = h.open()
	return h
}

func (h *harness) open() *Journal {
	h.t.Helper()
	j, err := OpenJournal(h.path)
	if err != nil {
		h.t.Fatalf("OpenJournal: %v", err)
	}
	h.t.Cleanup(func() { j.Close() })
	return j
}

// reopen closes the journal and loads it again from disk.
func (h *harness) reopen() {
	h.t.Helper()
	if err := h.j.Close(); err != nil {
		h.t.Fatal(err)
	}
	h.j = h.open()
}

func (h *harness) resolve(tool string) (tools.Reverter, bool) {
	if tool == "test_write" {
		return h.w, true
	}
	return nil, false
}

// plan returns the undo data of writing content to name.
func (h *harness) plan(name, content string) (json.RawMessage, string) {
	h.t.Helper()
	path := filepath.Join(h.dir, name)
	before, data, err := h.w.current(path)
	if err != nil {
		h.t.Fatal(err)
	}
	if before.Exists {
		if _, err := h.blobs.Put(data); err != nil {
			h.t.Fatal(err)
		}
	}
	sum, err := h.blobs.Put([]byte(content))
	if err != nil {
		h.t.Fatal(err)
	}
	undo, err := json.Marshal(writeUndo{Path: path, Before: before, After: fileState{Exists: true, Blob: sum}})
	if err != nil {
		h.t.Fatal(err)
	}
	return undo, path
}

// begin journals a write of content to name without running it.
func (h *harness) begin(id, name, content string) string {
	h.t.Helper()
	undo, path := h.plan(name, content)
	args, _ := json.Marshal(map[string]string{"path": name, "content": content})
	e := Entry{CallID: id, Tool: "test_write", Args: args, Summary: "Write " + name, Undo: undo}
	if err := h.j.Begin(e); err != nil {
		h.t.Fatalf("Begin %s: %v", id, err)
	}
	return path
}

// write journals, runs and commits a write of content to name.
func (h *harness) write(id, name, content string) {
	h.t.Helper()
	path := h.begin(id, name, content)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
	if err := h.j.Commit(id, nil); err != nil {
		h.t.Fatalf("Commit %s: %v", id, err)
	}
}

func (h *harness) shell(id, cmd string) {
	h.t.Helper()
	args, _ := json.Marshal(map[string]string{"command": cmd})
	if err := h.j.Irreversible(Entry{CallID: id, Tool: "shell_run", Args: args, Summary: "Ran `" + cmd + "`: exit 0"}); err != nil {
		h.t.Fatalf("Irreversible %s: %v", id, err)
	}
}

func (h *harness) undo(n int, force bool) []Outcome {
	h.t.Helper()
	outs, err := h.j.Undo(context.Background(), n, force, h.resolve)
	if err != nil {
		h.t.Fatalf("Undo(%d, %v): %v", n, force, err)
	}
	return outs
}

func (h *harness) redo(n int) []Outcome {
	h.t.Helper()
	outs, err := h.j.Redo(context.Background(), n, h.resolve)
	if err != nil {
		h.t.Fatalf("Redo(%d): %v", n, err)
	}
	return outs
}

// files returns the workspace as name → content.
func (h *harness) files() map[string]string {
	h.t.Helper()
	out := map[string]string{}
	des, err := os.ReadDir(h.dir)
	if err != nil {
		h.t.Fatal(err)
	}
	for _, d := range des {
		data, err := os.ReadFile(filepath.Join(h.dir, d.Name()))
		if err != nil {
			h.t.Fatal(err)
		}
		out[d.Name()] = string(data)
	}
	return out
}

func (h *harness) wantFiles(want map[string]string) {
	h.t.Helper()
	got := h.files()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		h.t.Fatalf("workspace = %v; want %v", got, want)
	}
}

func (h *harness) wantDepth(undo, redo int) {
	h.t.Helper()
	if got := h.j.Depth(); got != undo {
		h.t.Fatalf("Depth() = %d; want %d", got, undo)
	}
	if got := h.j.RedoDepth(); got != redo {
		h.t.Fatalf("RedoDepth() = %d; want %d", got, redo)
	}
}

// summary renders outcomes as "done:call", "skipped:call", "refused:call".
func summary(outs []Outcome) string {
	var parts []string
	for _, o := range outs {
		kind := "refused"
		switch {
		case o.Done:
			kind = "done"
		case o.Skipped:
			kind = "skipped"
		}
		parts = append(parts, kind+":"+o.Entry.CallID)
	}
	return strings.Join(parts, " ")
}

func wantOutcomes(t *testing.T, outs []Outcome, want string) {
	t.Helper()
	if got := summary(outs); got != want {
		t.Fatalf("outcomes = %q; want %q", got, want)
	}
}

func states(es []Entry) string {
	var parts []string
	for _, e := range es {
		parts = append(parts, fmt.Sprintf("%d:%s:%s", e.Seq, e.CallID, e.State))
	}
	return strings.Join(parts, " ")
}

func TestJournalRecordsCalls(t *testing.T) {
	h := newHarness(t)
	h.write("c1", "a.txt", "one")
	h.begin("c2", "b.txt", "two")
	if err := h.j.Fail("c2", "disk full"); err != nil {
		t.Fatal(err)
	}
	h.shell("c3", "make")
	h.begin("c4", "c.txt", "three")

	check := func(when string) {
		t.Helper()
		es := h.j.Entries()
		if got, want := states(es), "1:c1:applied 2:c2:failed 3:c3:irreversible 4:c4:pending"; got != want {
			t.Fatalf("%s: entries = %q; want %q", when, got, want)
		}
		if es[1].Reason != "disk full" {
			t.Errorf("%s: failed entry reason = %q; want %q", when, es[1].Reason, "disk full")
		}
		if es[2].Reversible || !es[0].Reversible {
			t.Errorf("%s: reversible flags = %v, %v; want true, false", when, es[0].Reversible, es[2].Reversible)
		}
		if es[0].Summary != "Write a.txt" || es[0].Tool != "test_write" || len(es[0].Undo) == 0 || es[0].Time.IsZero() {
			t.Errorf("%s: entry 1 = %+v; want its summary, tool, undo data and time kept", when, es[0])
		}
		var args map[string]string
		if err := json.Unmarshal(es[0].Args, &args); err != nil || args["content"] != "one" {
			t.Errorf("%s: entry 1 args = %s; want the call's args", when, es[0].Args)
		}
		h.wantDepth(2, 0)
	}
	check("in memory")
	before := h.j.Entries()
	h.reopen()
	check("reloaded")
	if w := h.j.Warnings(); len(w) != 0 {
		t.Fatalf("Warnings() = %q; want none", w)
	}
	after := h.j.Entries()
	for i := range before {
		b, _ := json.Marshal(before[i])
		a, _ := json.Marshal(after[i])
		if string(a) != string(b) {
			t.Fatalf("entry %d reloaded = %s; want %s", i+1, a, b)
		}
	}
	info, err := os.Stat(h.path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("journal mode = %v; want 0600", perm)
	}
}

func TestJournalRejectsBadInput(t *testing.T) {
	undo := json.RawMessage(`{"path":"x"}`)
	tests := []struct {
		name string
		do   func(j *Journal) error
		want string
	}{
		{"begin without call id", func(j *Journal) error {
			return j.Begin(Entry{Tool: "test_write", Undo: undo})
		}, "call id is empty"},
		{"begin without tool", func(j *Journal) error {
			return j.Begin(Entry{CallID: "c9", Undo: undo})
		}, "tool name is empty"},
		{"begin without undo data", func(j *Journal) error {
			return j.Begin(Entry{CallID: "c9", Tool: "test_write"})
		}, "no undo data"},
		{"begin with undo data that is not JSON", func(j *Journal) error {
			return j.Begin(Entry{CallID: "c9", Tool: "test_write", Undo: json.RawMessage(`{"path":`)})
		}, "undo data is not valid JSON"},
		{"begin with args that are not JSON", func(j *Journal) error {
			return j.Begin(Entry{CallID: "c9", Tool: "test_write", Undo: undo, Args: json.RawMessage(`{`)})
		}, "args are not valid JSON"},
		{"begin a call that is already pending", func(j *Journal) error {
			return j.Begin(Entry{CallID: "pending", Tool: "test_write", Undo: undo})
		}, `call "pending" is already journaled`},
		{"irreversible without call id", func(j *Journal) error {
			return j.Irreversible(Entry{Tool: "shell_run"})
		}, "call id is empty"},
		{"commit of an unknown call", func(j *Journal) error { return j.Commit("nope", nil) }, `no call "nope" is waiting`},
		{"commit of a committed call", func(j *Journal) error { return j.Commit("done", nil) }, `no call "done" is waiting`},
		{"commit with undo data that is not JSON", func(j *Journal) error {
			return j.Commit("pending", json.RawMessage(`nope`))
		}, "undo data is not valid JSON"},
		{"fail of an unknown call", func(j *Journal) error { return j.Fail("nope", "x") }, `no call "nope" is waiting`},
		{"undo of zero calls", func(j *Journal) error {
			_, err := j.Undo(context.Background(), 0, false, func(string) (tools.Reverter, bool) { return nil, false })
			return err
		}, "at least 1, got 0"},
		{"redo without resolver", func(j *Journal) error {
			_, err := j.Redo(context.Background(), 1, nil)
			return err
		}, "no resolver"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			h.write("done", "a.txt", "one")
			h.begin("pending", "b.txt", "two")
			before := states(h.j.Entries())
			size := fileSize(t, h.path)
			err := tt.do(h.j)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got error %v; want one containing %q", err, tt.want)
			}
			if got := states(h.j.Entries()); got != before {
				t.Errorf("entries after the error = %q; want %q", got, before)
			}
			if got := fileSize(t, h.path); got != size {
				t.Errorf("journal size after the error = %d; want %d", got, size)
			}
		})
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func TestUndoRedoSequences(t *testing.T) {
	h := newHarness(t)
	h.write("c1", "a.txt", "one")
	h.write("c2", "b.txt", "two")
	h.write("c3", "a.txt", "one, edited")
	h.wantDepth(3, 0)

	outs := h.undo(1, false)
	wantOutcomes(t, outs, "done:c3")
	if want := "Undid test_write: Write a.txt"; outs[0].Message != want {
		t.Errorf("message = %q; want %q", outs[0].Message, want)
	}
	if outs[0].Entry.State != StateUndone {
		t.Errorf("outcome entry state = %s; want %s", outs[0].Entry.State, StateUndone)
	}
	h.wantFiles(map[string]string{"a.txt": "one", "b.txt": "two"})
	h.wantDepth(2, 1)

	wantOutcomes(t, h.undo(5, false), "done:c2 done:c1")
	h.wantFiles(map[string]string{})
	h.wantDepth(0, 3)
	if _, err := h.j.Undo(context.Background(), 1, false, h.resolve); !errors.Is(err, ErrNothingToUndo) {
		t.Fatalf("Undo with nothing left: got %v; want ErrNothingToUndo", err)
	}

	// Redo brings back the most recently undone first, and survives a restart.
	wantOutcomes(t, h.redo(1), "done:c1")
	h.wantFiles(map[string]string{"a.txt": "one"})
	h.reopen()
	h.wantDepth(1, 2)
	outs = h.redo(5)
	wantOutcomes(t, outs, "done:c2 done:c3")
	if want := "Redid test_write: Write a.txt"; outs[1].Message != want {
		t.Errorf("message = %q; want %q", outs[1].Message, want)
	}
	h.wantFiles(map[string]string{"a.txt": "one, edited", "b.txt": "two"})
	h.wantDepth(3, 0)
	if _, err := h.j.Redo(context.Background(), 1, h.resolve); !errors.Is(err, ErrNothingToRedo) {
		t.Fatalf("Redo with nothing undone: got %v; want ErrNothingToRedo", err)
	}

	// A redone call can be undone again, and a new commit clears the redo
	// stack.
	wantOutcomes(t, h.undo(2, false), "done:c3 done:c2")
	h.wantDepth(1, 2)
	h.write("c4", "c.txt", "three")
	h.wantDepth(2, 0)
	if _, err := h.j.Redo(context.Background(), 1, h.resolve); !errors.Is(err, ErrNothingToRedo) {
		t.Fatalf("Redo after a new commit: got %v; want ErrNothingToRedo", err)
	}
	h.reopen()
	h.wantDepth(2, 0)
	if got, want := states(h.j.Entries()), "1:c1:applied 2:c2:undone 3:c3:undone 4:c4:applied"; got != want {
		t.Fatalf("entries = %q; want %q", got, want)
	}
	wantOutcomes(t, h.undo(2, false), "done:c4 done:c1")
	h.wantFiles(map[string]string{})
}

func TestUndoRefusesChangedFile(t *testing.T) {
	h := newHarness(t)
	h.write("c1", "a.txt", "one")
	h.write("c2", "b.txt", "two")
	h.write("c3", "c.txt", "three")
	if err := os.WriteFile(filepath.Join(h.dir, "b.txt"), []byte("the user's version"), 0o644); err != nil {
		t.Fatal(err)
	}

	// c3 is reverted, c2 refuses, and c1 behind it is left alone.
	outs := h.undo(3, false)
	wantOutcomes(t, outs, "done:c3 refused:c2")
	var c *tools.Conflict
	if !errors.As(outs[1].Err, &c) || c.What != "b.txt" {
		t.Fatalf("refusal error = %v; want a *tools.Conflict about b.txt", outs[1].Err)
	}
	for _, want := range []string{"Refused: b.txt changed since the call (contents differ", "Use --force (or /undo --force)", "/redo can bring it back"} {
		if !strings.Contains(outs[1].Message, want) {
			t.Errorf("message = %q; want it to contain %q", outs[1].Message, want)
		}
	}
	h.wantFiles(map[string]string{"a.txt": "one", "b.txt": "the user's version"})
	h.wantDepth(2, 1)
	if got, want := states(h.j.Entries()), "1:c1:applied 2:c2:applied 3:c3:undone"; got != want {
		t.Fatalf("entries = %q; want %q", got, want)
	}

	// Refused again after a restart: the refusal left no undo half-begun.
	h.reopen()
	wantOutcomes(t, h.undo(1, false), "refused:c2")
	if lines, err := h.j.Recover(context.Background(), h.resolve); err != nil || len(lines) != 0 {
		t.Fatalf("Recover after a refusal = %q, %v; want nothing to recover", lines, err)
	}

	// Forced, the file goes back to before the call; redo brings back the
	// user's version, not the call's.
	outs = h.undo(1, true)
	wantOutcomes(t, outs, "done:c2")
	if want := "Undid test_write: Write b.txt (forced)"; outs[0].Message != want {
		t.Errorf("message = %q; want %q", outs[0].Message, want)
	}
	h.wantFiles(map[string]string{"a.txt": "one"})
	h.wantDepth(1, 2)
	wantOutcomes(t, h.redo(1), "done:c2")
	h.wantFiles(map[string]string{"a.txt": "one", "b.txt": "the user's version"})
}

func TestRedoRefusesChangedFile(t *testing.T) {
	h := newHarness(t)
	h.write("c1", "a.txt", "one")
	h.undo(1, false)
	if err := os.WriteFile(filepath.Join(h.dir, "a.txt"), []byte("made meanwhile"), 0o644); err != nil {
		t.Fatal(err)
	}
	outs := h.redo(1)
	wantOutcomes(t, outs, "refused:c1")
	if want := "Refused to redo test_write: Write a.txt: a.txt changed since the undo"; !strings.HasPrefix(outs[0].Message, want) {
		t.Errorf("message = %q; want it to start with %q", outs[0].Message, want)
	}
	h.wantFiles(map[string]string{"a.txt": "made meanwhile"})
	h.wantDepth(0, 1)
	h.reopen()
	h.wantDepth(0, 1)
	if err := os.Remove(filepath.Join(h.dir, "a.txt")); err != nil {
		t.Fatal(err)
	}
	wantOutcomes(t, h.redo(1), "done:c1")
	h.wantFiles(map[string]string{"a.txt": "one"})
}

func TestUndoPassesIrreversibleCall(t *testing.T) {
	h := newHarness(t)
	h.write("c1", "a.txt", "one")
	h.shell("sh", "make")
	h.write("c2", "b.txt", "two")
	h.wantDepth(2, 0)

	// Undo steps over the shell command, says so once, and goes on.
	wantOutcomes(t, h.undo(1, false), "done:c2")
	outs := h.undo(1, false)
	wantOutcomes(t, outs, "skipped:sh done:c1")
	if want := "skipped shell_run `make`: its effects stay"; outs[0].Message != want {
		t.Errorf("message = %q; want %q", outs[0].Message, want)
	}
	h.wantFiles(map[string]string{})
	if _, err := h.j.Undo(context.Background(), 1, false, h.resolve); !errors.Is(err, ErrNothingToUndo) {
		t.Fatalf("Undo with nothing left: got %v; want ErrNothingToUndo", err)
	}

	// Redoing past the shell command and undoing again says it again,
	// also after a restart.
	wantOutcomes(t, h.redo(2), "done:c1 done:c2")
	h.reopen()
	wantOutcomes(t, h.undo(5, false), "done:c2 skipped:sh done:c1")
	h.wantFiles(map[string]string{})
}

func TestUndoIrreversibleNewest(t *testing.T) {
	h := newHarness(t)
	h.write("c1", "a.txt", "one")
	h.shell("sh", "rm -rf build")
	h.wantDepth(1, 0)
	wantOutcomes(t, h.undo(1, false), "skipped:sh done:c1")
	h.wantFiles(map[string]string{})
}

func TestUndoOnlyIrreversibleLeft(t *testing.T) {
	h := newHarness(t)
	h.shell("sh", "go test ./...")
	outs, err := h.j.Undo(context.Background(), 1, false, h.resolve)
	if !errors.Is(err, ErrNothingToUndo) {
		t.Fatalf("Undo: got %v; want ErrNothingToUndo", err)
	}
	wantOutcomes(t, outs, "skipped:sh")
	// Nothing was passed: the next attempt says the same.
	outs, _ = h.j.Undo(context.Background(), 1, false, h.resolve)
	wantOutcomes(t, outs, "skipped:sh")
}

func TestUndoWithoutReverter(t *testing.T) {
	h := newHarness(t)
	h.write("c1", "a.txt", "one")
	outs, err := h.j.Undo(context.Background(), 1, false, func(string) (tools.Reverter, bool) { return nil, false })
	if err != nil {
		t.Fatal(err)
	}
	wantOutcomes(t, outs, "refused:c1")
	if want := "Could not undo test_write: Write a.txt: the tool test_write is not available"; !strings.HasPrefix(outs[0].Message, want) {
		t.Errorf("message = %q; want it to start with %q", outs[0].Message, want)
	}
	h.wantFiles(map[string]string{"a.txt": "one"})
	h.wantDepth(1, 0)
}

func TestUndoPendingCallIsSafe(t *testing.T) {
	h := newHarness(t)
	h.write("c1", "a.txt", "one")
	h.begin("c2", "a.txt", "never written")
	h.wantDepth(2, 0)
	wantOutcomes(t, h.undo(1, false), "done:c2")
	h.wantFiles(map[string]string{"a.txt": "one"})
	wantOutcomes(t, h.undo(1, false), "done:c1")
	h.wantFiles(map[string]string{})
}

func TestUndoCancelled(t *testing.T) {
	h := newHarness(t)
	h.write("c1", "a.txt", "one")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.j.Undo(ctx, 1, false, h.resolve); !errors.Is(err, context.Canceled) {
		t.Fatalf("Undo with a cancelled context: got %v; want context.Canceled", err)
	}
	h.wantFiles(map[string]string{"a.txt": "one"})
	h.wantDepth(1, 0)
}

// TestJournalConcurrentUse runs writers in goroutines and through a second
// handle on the same file, as a second process would.
func TestJournalConcurrentUse(t *testing.T) {
	h := newHarness(t)
	other := h.open()
	undo := json.RawMessage(`{"path":"x"}`)
	var wg sync.WaitGroup
	for g, j := range []*Journal{h.j, other, h.j, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				id := fmt.Sprintf("g%d-%d", g, i)
				if err := j.Begin(Entry{CallID: id, Tool: "test_write", Undo: undo}); err != nil {
					t.Error(err)
					return
				}
				if err := j.Commit(id, nil); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	// Each handle catches up with the other before writing.
	h.shell("last", "true")
	if got := len(h.j.Entries()); got != 41 {
		t.Fatalf("entries seen by the first handle = %d; want 41", got)
	}
	h.reopen()
	es := h.j.Entries()
	if len(es) != 41 || len(h.j.Warnings()) != 0 {
		t.Fatalf("reloaded %d entries with warnings %q; want 41 and none", len(es), h.j.Warnings())
	}
	for i, e := range es {
		if e.Seq != i+1 || (i < 40 && e.State != StateApplied) {
			t.Fatalf("entry %d = seq %d state %s; want seq %d applied", i, e.Seq, e.State, i+1)
		}
	}
}

func TestRegistryResolver(t *testing.T) {
	reg := tools.NewRegistry()
	reg.MustRegister(revertingTool{w: &testWriter{}})
	reg.MustRegister(tools.Func{M: tools.Meta{Name: "plain", ReadOnly: true, Schema: json.RawMessage(`{"type":"object"}`)}})
	resolve := RegistryResolver(reg)
	tests := []struct {
		tool string
		want bool
	}{
		{"test_write", true},
		{"plain", false},
		{"missing", false},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			r, ok := resolve(tt.tool)
			if ok != tt.want || (r != nil) != tt.want {
				t.Fatalf("resolve(%q) = %v, %v; want ok %v", tt.tool, r, ok, tt.want)
			}
		})
	}
}

// revertingTool is a registered tool whose Reverter is the test writer.
type revertingTool struct {
	tools.Func
	w *testWriter
}

func (r revertingTool) Meta() tools.Meta {
	return tools.Meta{Name: "test_write", Schema: json.RawMessage(`{"type":"object"}`)}
}

func (r revertingTool) Revert(ctx context.Context, undo json.RawMessage, force bool) (json.RawMessage, error) {
	return r.w.Revert(ctx, undo, force)
}
