package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"myclaw/tools"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// shellUndoTest is shell_run with undo over a fresh workspace.
type shellUndoTest struct {
	t    *testing.T
	dir  string
	tool *shellRun
	undo *ShellUndo
}

func newShellUndoTest(t *testing.T) *shellUndoTest {
	t.Helper()
	ws, dir := fsTestWorkspace(t)
	u, err := NewShellUndo(ws, &fsTestBlobs{}, filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	tool := NewShellRun(ShellOptions{Dir: dir, OutputDir: t.TempDir(), Undo: u}).(*shellRun)
	return &shellUndoTest{t: t, dir: dir, tool: tool, undo: u}
}

func (s *shellUndoTest) run(command string) tools.Result {
	s.t.Helper()
	args, _ := json.Marshal(map[string]string{"command": command})
	res, err := s.tool.Execute(context.Background(), args)
	if err != nil {
		s.t.Fatalf("%s: %v", command, err)
	}
	return res
}

func (s *shellUndoTest) read(rel string) string {
	s.t.Helper()
	data, err := os.ReadFile(filepath.Join(s.dir, rel))
	if errors.Is(err, os.ErrNotExist) {
		return "<none>"
	}
	if err != nil {
		s.t.Fatal(err)
	}
	return string(data)
}

func TestShellUndoConflictRefusesWholeAndForceKeepsTheUsersVersion(t *testing.T) {
	s := newShellUndoTest(t)
	fsTestFile(t, s.dir, "a.txt", "a1\n", 0o644)
	fsTestFile(t, s.dir, "b.txt", "b1\n", 0o644)
	res := s.run("echo a2 > a.txt; echo b2 > b.txt; chmod 600 b.txt")
	if len(res.Undo) == 0 {
		t.Fatal("no undo data")
	}
	if got := res.Output.(shellOutput).FilesChanged; strings.Join(got, ",") != "M a.txt,M b.txt" {
		t.Fatalf("files_changed = %q", got)
	}
	// The user edits b.txt after the command.
	fsTestFile(t, s.dir, "b.txt", "mine\n", 0o644)

	_, err := s.tool.Revert(context.Background(), res.Undo, false)
	var c *tools.Conflict
	if !errors.As(err, &c) || !strings.Contains(c.Detail, "b.txt") {
		t.Fatalf("Revert: %v; want a conflict naming b.txt", err)
	}
	if s.read("a.txt") != "a2\n" {
		t.Fatalf("a refused undo changed a.txt to %q", s.read("a.txt"))
	}
	redo, err := s.tool.Revert(context.Background(), res.Undo, true)
	if err != nil {
		t.Fatalf("forced Revert: %v", err)
	}
	if s.read("a.txt") != "a1\n" || s.read("b.txt") != "b1\n" {
		t.Fatalf("after forced undo: a=%q b=%q", s.read("a.txt"), s.read("b.txt"))
	}
	if _, err := s.tool.Revert(context.Background(), redo, false); err != nil {
		t.Fatalf("redo: %v", err)
	}
	if s.read("a.txt") != "a2\n" || s.read("b.txt") != "mine\n" {
		t.Fatalf("redo after a forced undo: a=%q b=%q; want the user's b", s.read("a.txt"), s.read("b.txt"))
	}
}

func TestShellUndoRestoresModeAndRenames(t *testing.T) {
	s := newShellUndoTest(t)
	fsTestFile(t, s.dir, "run.sh", "#!/bin/sh\n", 0o644)
	fsTestFile(t, s.dir, "old/x.txt", "x\n", 0o644)
	res := s.run("chmod +x run.sh && mv old new")
	if _, err := s.tool.Revert(context.Background(), res.Undo, false); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(s.dir, "run.sh"))
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("run.sh mode %v, %v; want 0644", fi.Mode(), err)
	}
	if s.read("old/x.txt") != "x\n" || s.read("new/x.txt") != "<none>" {
		t.Fatalf("rename not undone: old=%q new=%q", s.read("old/x.txt"), s.read("new/x.txt"))
	}
	if _, err := os.Stat(filepath.Join(s.dir, "new")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the folder the rename created is still there: %v", err)
	}
}

func TestShellUndoSaysWhatItDoesNotCover(t *testing.T) {
	s := newShellUndoTest(t)
	fsTestFile(t, s.dir, ".git/HEAD", "ref: refs/heads/main\n", 0o644)
	big := strings.Repeat("x", int(s.undo.Tracker.Options().MaxFileBytes)+1)
	fsTestFile(t, s.dir, "big.bin", big, 0o644)
	res := s.run("echo y >> big.bin; echo z > .git/HEAD; echo ok > small.txt")
	for _, want := range []string{"Undo restores 1 file", "not covered: big.bin (over the 8 MB cap)", "not tracked: .git/ (git's own state)"} {
		if !strings.Contains(res.UndoPlan, want) {
			t.Errorf("undo plan %q lacks %q", res.UndoPlan, want)
		}
	}
	if note := res.Output.(shellOutput).Note; !strings.Contains(note, "partly reversible") {
		t.Errorf("note %q does not say the command is partly reversible", note)
	}
	if _, err := s.tool.Revert(context.Background(), res.Undo, false); err != nil {
		t.Fatal(err)
	}
	if s.read("small.txt") != "<none>" || s.read(".git/HEAD") != "z\n" {
		t.Fatalf("small=%q HEAD=%q", s.read("small.txt"), s.read(".git/HEAD"))
	}
}

func TestShellUndoNothingChangedIsNotReversible(t *testing.T) {
	s := newShellUndoTest(t)
	fsTestFile(t, s.dir, "a.txt", "a\n", 0o644)
	if res := s.run("cat a.txt; touch a.txt"); len(res.Undo) != 0 || res.UndoPlan != "" {
		t.Fatalf("undo %s plan %q; want none for a command that changed no content", res.Undo, res.UndoPlan)
	}
}

func TestShellUndoKeepsWhatACancelledCommandChanged(t *testing.T) {
	s := newShellUndoTest(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for i := 0; i < 500; i++ {
			if _, err := os.Stat(filepath.Join(s.dir, "started")); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	res, err := s.tool.Execute(ctx, json.RawMessage(`{"command":"echo 1 > started; sleep 60"}`))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want cancelled", err)
	}
	if len(res.Undo) == 0 {
		t.Fatal("a cancelled command's change was not recorded")
	}
	if _, err := s.tool.Revert(context.Background(), res.Undo, false); err != nil {
		t.Fatal(err)
	}
	if s.read("started") != "<none>" {
		t.Fatal("undo left the file the cancelled command wrote")
	}
}

func TestShellUndoRefusesCorruptData(t *testing.T) {
	s := newShellUndoTest(t)
	for _, undo := range []string{
		`{"changes":[{"path":"../x","before":{"exists":false},"after":{"exists":false}}]}`,
		`{"changes":[],"created_dirs":[{"path":"/etc","mode":493}]}`,
		`{"changes":[],"extra":1}`,
	} {
		if _, err := s.tool.Revert(context.Background(), json.RawMessage(undo), false); !errors.Is(err, tools.ErrCorruptUndo) {
			t.Errorf("Revert(%s) = %v; want ErrCorruptUndo", undo, err)
		}
	}
}

func TestShellUndoLeavesMyclawsOwnFilesOut(t *testing.T) {
	ws, dir := fsTestWorkspace(t)
	state := filepath.Join(dir, "state")
	u, err := NewShellUndo(ws, &fsTestBlobs{}, filepath.Join(state, "shell-cache"), state)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	snap, err := u.Tracker.Capture(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for p := range snap.Files {
		if strings.HasPrefix(p, "state/") {
			t.Fatalf("the capture holds myclaw's own file %s", p)
		}
	}
	if len(snap.Excluded) != 1 || !strings.HasPrefix(snap.Excluded[0], "state/") {
		t.Fatalf("excluded = %q", snap.Excluded)
	}
}

// A background job's changes are not recorded (it runs on after the call),
// so its dry run promises no undo; a command in the foreground does.
func TestShellBackgroundJobPromisesNoUndo(t *testing.T) {
	s := newShellUndoTest(t)
	s.tool.opts.Jobs = NewShellJobs()
	t.Cleanup(s.tool.opts.Jobs.StopAll)
	fg, err := s.tool.DryRun(context.Background(), json.RawMessage(`{"command":"touch a.txt"}`))
	if err != nil || fg.UndoPlan == "" {
		t.Fatalf("foreground dry run: %v, undo plan %q; want a plan", err, fg.UndoPlan)
	}
	bg, err := s.tool.DryRun(context.Background(), json.RawMessage(`{"command":"touch a.txt","background":true}`))
	if err != nil {
		t.Fatal(err)
	}
	if bg.UndoPlan != "" || !strings.Contains(bg.Preview, "/undo cannot walk back what it changes") {
		t.Fatalf("background dry run: undo plan %q, preview %q; want no plan and the preview saying so", bg.UndoPlan, bg.Preview)
	}
}

// A command whose line names no trusted file (a script) but writes one
// that later sessions follow says so after the run: in its summary, and
// to the model with every file named.
func TestShellRunSaysItWroteWhatLaterSessionsTrust(t *testing.T) {
	s := newShellUndoTest(t)
	fsTestFile(t, s.dir, "s.sh", "mkdir -p .claude/skills/y .myclaw/commands\necho x > .claude/skills/y/SKILL.md\necho y > .myclaw/commands/z.md\necho z >> AGENTS.md\necho fine > notes.txt\n", 0o644)
	res := s.run("sh s.sh")
	if !strings.Contains(res.Summary, "(wrote 3 files later sessions trust)") {
		t.Errorf("summary %q; want it to count the files later sessions trust", res.Summary)
	}
	out := res.Output.(shellOutput).Note
	for _, want := range []string{"it wrote what later sessions trust: ", ".claude/skills/y/SKILL.md, a skill file", ".myclaw/commands/z.md, inside .myclaw", "AGENTS.md, which later sessions follow as instructions"} {
		if !strings.Contains(out, want) {
			t.Errorf("the result lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "notes.txt, ") {
		t.Errorf("an ordinary file is named as trusted:\n%s", out)
	}
	if res := s.run("echo more >> notes.txt"); strings.Contains(res.Summary, "trust") {
		t.Errorf("an ordinary write: %q", res.Summary)
	}
}
