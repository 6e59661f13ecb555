package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"myclaw/sandbox"
	"myclaw/tools"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// layerSandbox stands for the overlay: the command runs as it is (the
// tests run "true"), and fill writes into the upper layer what the
// command would have changed. finish runs when the command ended.
type layerSandbox struct {
	fill   func(upper string)
	finish func()
}

func (l *layerSandbox) Confine(*exec.Cmd, bool) (func(string) (string, string), error) {
	return nil, errors.New("a preview test runs nothing outside the layer")
}

func (l *layerSandbox) ConfinePreview(cmd *exec.Cmd, upper, work string) (func(string) (string, string), error) {
	if l.fill != nil {
		l.fill(upper)
	}
	return func(string) (string, string) {
		if l.finish != nil {
			l.finish()
		}
		return "sandbox: preview test", ""
	}, nil
}

// previewTest is shell_run with undo over a fresh workspace, previewing
// through sb.
func previewTest(t *testing.T, sb tools.Sandbox) (*shellRun, string) {
	t.Helper()
	ws, dir := fsTestWorkspace(t)
	u, err := NewShellUndo(ws, &fsTestBlobs{}, filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	return NewShellRun(ShellOptions{Dir: dir, OutputDir: t.TempDir(), Undo: u, Sandbox: sb}).(*shellRun), dir
}

func previewArgs(command string) json.RawMessage {
	raw, _ := json.Marshal(map[string]string{"command": command})
	return raw
}

// previewApply runs command in a preview, lets between change the
// workspace, then applies the preview.
func previewApply(t *testing.T, tool *shellRun, command string, between func()) (*PreviewRun, error) {
	t.Helper()
	p, err := tool.Preview(context.Background(), previewArgs(command))
	if err != nil {
		t.Fatalf("preview: %v", err)
	}
	run := p.(*PreviewRun)
	if between != nil {
		between()
	}
	_, err = tool.Execute(tools.WithPreviewed(context.Background(), run), previewArgs(command))
	return run, err
}

func mustWrite(t *testing.T, path, data string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// A folder swapped for a link (or for another folder) after the preview
// is not written through: nothing is applied, and the error names it.
func TestApplyWritesNothingThroughAFolderChangedAfterThePreview(t *testing.T) {
	for _, tt := range []struct {
		name string
		swap func(t *testing.T, dir, outside string)
		why  string
	}{
		{"a link out", func(t *testing.T, dir, outside string) {
			os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "old"))
			if err := os.Symlink(outside, filepath.Join(dir, "sub")); err != nil {
				t.Fatal(err)
			}
		}, "sub changed in the workspace after the preview (it was a folder, now it is a link)"},
		{"another folder", func(t *testing.T, dir, outside string) {
			os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "old"))
			os.Mkdir(filepath.Join(dir, "sub"), 0o755)
		}, "sub changed in the workspace after the preview (it was replaced)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			outside := t.TempDir()
			sb := &layerSandbox{fill: func(upper string) {
				mustWrite(t, filepath.Join(upper, "sub", "authorized_keys"), "ssh-ed25519 AAAA attacker\n", 0o600)
				mustWrite(t, filepath.Join(upper, "a.txt"), "new\n", 0o644)
			}}
			tool, dir := previewTest(t, sb)
			mustWrite(t, filepath.Join(dir, "sub", "keep"), "k\n", 0o644)
			mustWrite(t, filepath.Join(dir, "a.txt"), "old\n", 0o644)
			_, err := previewApply(t, tool, "true", func() { tt.swap(t, dir, outside) })
			if err == nil || !strings.Contains(err.Error(), "nothing was applied: "+tt.why) {
				t.Fatalf("apply: %v; want %q", err, tt.why)
			}
			if _, err := os.Lstat(filepath.Join(outside, "authorized_keys")); err == nil {
				t.Fatal("the preview's file was written outside the workspace")
			}
			if _, err := os.Lstat(filepath.Join(dir, "sub", "authorized_keys")); err == nil {
				t.Fatal("the preview's file was written into the new folder")
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "old\n" {
				t.Fatalf("a.txt is %q: part of the preview was applied", got)
			}
		})
	}
}

// The same through the real overlay, where the sandbox can make one.
func TestApplyWritesNothingThroughAFolderSwappedForALinkInTheOverlay(t *testing.T) {
	ws, dir := fsTestWorkspace(t)
	sb := sandbox.New(sandbox.Options{Workspace: dir})
	if st := sb.Check(context.Background()); !st.Active {
		t.Skip("no sandbox here: " + st.Why)
	}
	u, err := NewShellUndo(ws, &fsTestBlobs{}, filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	tool := NewShellRun(ShellOptions{Dir: dir, OutputDir: t.TempDir(), Undo: u, Sandbox: sb}).(*shellRun)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	outside := t.TempDir()
	run, err := previewApply(t, tool, "echo key > sub/f", func() {
		os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "old"))
		os.Symlink(outside, filepath.Join(dir, "sub"))
	})
	if !strings.Contains(run.Report(), "A sub/f") {
		t.Fatalf("the report does not show the write:\n%s", run.Report())
	}
	if err == nil || !strings.Contains(err.Error(), "nothing was applied: sub changed in the workspace after the preview") {
		t.Fatalf("apply: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(outside, "f")); err == nil {
		t.Fatal("the preview's file was written outside the workspace")
	}
}

// A file changed in the layer after it was shown is not applied either.
func TestApplyWritesNothingWhenTheLayerChangedAfterItWasShown(t *testing.T) {
	var upper string
	tool, dir := previewTest(t, &layerSandbox{fill: func(u string) {
		upper = u
		mustWrite(t, filepath.Join(u, "a.txt"), "shown\n", 0o644)
	}})
	_, err := previewApply(t, tool, "true", func() {
		mustWrite(t, filepath.Join(upper, "a.txt"), "not shown, longer\n", 0o644)
	})
	if err == nil || !strings.Contains(err.Error(), "nothing was applied: the preview's version of a.txt changed after it was shown") {
		t.Fatalf("apply: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "a.txt")); err == nil {
		t.Fatal("a.txt was applied")
	}
}

// The report reads only regular files of the layer and the workspace, and
// each only up to a bound: a link is not followed (to /proc, a terminal,
// a secret), a pipe is not opened, a large file is not read.
func TestPreviewDiffReadsOnlyBoundedRegularFiles(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	mustWrite(t, secret, "SECRET-OUTSIDE\n", 0o600)
	var fifo string
	wrote := make(chan struct{})
	big := strings.Repeat("a line of text\n", 2<<20/15+1)
	tool, dir := previewTest(t, &layerSandbox{fill: func(upper string) {
		if err := os.Symlink(secret, filepath.Join(upper, "tty")); err != nil {
			t.Fatal(err)
		}
		fifo = filepath.Join(upper, "pipe")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		// A reader of the pipe would get this, then the end.
		go func() {
			defer close(wrote)
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.WriteString("PIPE-DATA\n")
				f.Close()
			}
		}()
		mustWrite(t, filepath.Join(upper, "big.txt"), big, 0o644)
	}})
	mustWrite(t, filepath.Join(dir, "big.txt"), "small\n", 0o644)
	p, err := tool.Preview(context.Background(), previewArgs("true"))
	if err != nil {
		t.Fatal(err)
	}
	run := p.(*PreviewRun)
	// Let the writer go before the layer is removed.
	if f, err := os.OpenFile(fifo, os.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
		<-wrote
		f.Close()
	}
	defer run.Discard()
	rep := run.Report()
	for _, bad := range []string{"SECRET-OUTSIDE", "PIPE-DATA", "a line of text"} {
		if strings.Contains(rep, bad) {
			t.Errorf("the report read %q:\n%s", bad, rep)
		}
	}
	for _, want := range []string{
		"L tty -> " + secret,
		"not applied: pipe is a named pipe",
		"M big.txt\nchanged, " + strconv.Itoa(len(big)) + " bytes, too large to diff",
	} {
		if !strings.Contains(rep, want) {
			t.Errorf("the report lacks %q:\n%s", want, rep)
		}
	}
}

// A preview whose turn was cancelled once the command ended stops there:
// it does not go on reading the layer.
func TestPreviewHonoursCancellationAfterTheCommand(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var scratch string
	tool, _ := previewTest(t, &layerSandbox{
		fill: func(upper string) {
			scratch = filepath.Dir(upper)
			mustWrite(t, filepath.Join(upper, "a.txt"), "x\n", 0o644)
		},
		finish: cancel,
	})
	p, err := tool.Preview(ctx, previewArgs("true"))
	if p != nil {
		p.Discard()
	}
	if !errors.Is(err, context.Canceled) || p != nil {
		t.Fatalf("Preview = %v, %v; want it cancelled", p, err)
	}
	if _, err := os.Lstat(scratch); err == nil {
		t.Error("the cancelled preview's layer was left behind")
	}
}

// Links show as links, mode changes as modes, setuid and setgid with a
// warning; and applying gives exactly those.
func TestPreviewShowsLinksAsLinksAndModesAsModes(t *testing.T) {
	tool, dir := previewTest(t, &layerSandbox{fill: func(upper string) {
		mustWrite(t, filepath.Join(upper, "run.sh"), "echo hi\n", 0o755|fs.ModeSetuid)
		mustWrite(t, filepath.Join(upper, "new.sh"), "echo new\n", 0o755)
		os.Symlink("run.sh", filepath.Join(upper, "ln"))
		os.Symlink("../../x\x1b[31m\nM fake", filepath.Join(upper, "out"))
		os.Symlink("new-target", filepath.Join(upper, "old"))
	}})
	mustWrite(t, filepath.Join(dir, "run.sh"), "echo hi\n", 0o644)
	mustWrite(t, filepath.Join(dir, "ln"), "a file\n", 0o644)
	os.Symlink("old-target", filepath.Join(dir, "old"))
	run, err := previewApply(t, tool, "true", nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := run.Report()
	for _, want := range []string{
		"M run.sh\nmode 0644 → 4755\n⚠ run.sh: setuid",
		"A new.sh\nmode 0755\n",
		"L ln -> run.sh (replaces a file of 7 bytes)",
		`L out -> ../../x\e[31m\nM fake` + "\n⚠ out: the link leads outside the workspace",
		"L old -> new-target (was -> old-target)",
	} {
		if !strings.Contains(rep, want) {
			t.Errorf("the report lacks %q:\n%s", want, rep)
		}
	}
	if strings.Contains(rep, "a file\n") || strings.Contains(rep, "+echo hi") {
		t.Errorf("the report shows a link's target's content, or a content that did not change:\n%s", rep)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "run.sh")); err != nil || fi.Mode()&fs.ModeSetuid == 0 || fi.Mode().Perm() != 0o755 {
		t.Errorf("run.sh applied as %v, %v; want setuid 0755", fi.Mode(), err)
	}
	for name, want := range map[string]string{"ln": "run.sh", "out": "../../x\x1b[31m\nM fake", "old": "new-target"} {
		if got, err := os.Readlink(filepath.Join(dir, name)); err != nil || got != want {
			t.Errorf("%s applied as a link to %q (%v); want %q", name, got, err, want)
		}
	}
}

// A preview never applies what decides what git runs, in a repository the
// command made or a nested one: its config and hooks, a worktree's
// pointers, a .git file pointing elsewhere. The rest of the change is.
func TestPreviewNeverAppliesWhatGitRuns(t *testing.T) {
	tool, dir := previewTest(t, &layerSandbox{fill: func(upper string) {
		mustWrite(t, filepath.Join(upper, "sub/.git/config"), "[core]\n\tfsmonitor = touch /tmp/pwned\n", 0o644)
		mustWrite(t, filepath.Join(upper, "sub/.git/hooks/post-checkout"), "#!/bin/sh\n", 0o755)
		mustWrite(t, filepath.Join(upper, "sub/.git/HEAD"), "ref: refs/heads/main\n", 0o644)
		mustWrite(t, filepath.Join(upper, "sub/.git/modules/m/config"), "[core]\n", 0o644)
		mustWrite(t, filepath.Join(upper, "sub/.git/info/attributes"), "* filter=x\n", 0o644)
		mustWrite(t, filepath.Join(upper, "other/.git"), "gitdir: ../evil\n", 0o644)
		mustWrite(t, filepath.Join(upper, "sub/main.go"), "package main\n", 0o644)
	}})
	run, err := previewApply(t, tool, "true", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"sub/.git/config", "sub/.git/hooks/post-checkout", "sub/.git/modules/m/config", "sub/.git/info/attributes", "other/.git"} {
		if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s was applied", p)
		}
		if !strings.Contains(run.Report(), p+" is protected") {
			t.Errorf("the report does not say %s was left out:\n%s", p, run.Report())
		}
	}
	for _, p := range []string{"sub/main.go", "sub/.git/HEAD"} {
		if _, err := os.Lstat(filepath.Join(dir, p)); err != nil {
			t.Errorf("%s was not applied: %v", p, err)
		}
	}
}

// git takes any folder with a HEAD and refs for a (bare) repository when
// run inside it: a preview never applies such a folder's config, hooks or
// pointers, nor the HEAD or refs that would make a folder of the user's,
// holding a file named config, a repository.
func TestPreviewNeverAppliesWhatGitRunsInABareRepository(t *testing.T) {
	tool, dir := previewTest(t, &layerSandbox{fill: func(upper string) {
		mustWrite(t, filepath.Join(upper, "bare/HEAD"), "ref: refs/heads/main\n", 0o644)
		mustWrite(t, filepath.Join(upper, "bare/refs/heads/.keep"), "", 0o644)
		mustWrite(t, filepath.Join(upper, "bare/config"), "[core]\n\tpager = touch /tmp/pwned\n", 0o644)
		mustWrite(t, filepath.Join(upper, "bare/hooks/pre-receive"), "#!/bin/sh\n", 0o755)
		mustWrite(t, filepath.Join(upper, "deploy/HEAD"), "ref: refs/heads/main\n", 0o644)
		mustWrite(t, filepath.Join(upper, "deploy/refs/heads/main"), "0000000000000000000000000000000000000000\n", 0o644)
		mustWrite(t, filepath.Join(upper, "bare/notes.txt"), "kept\n", 0o644)
	}})
	mustWrite(t, filepath.Join(dir, "deploy/config"), "[core]\n\tpager = touch /tmp/pwned\n", 0o644)
	run, err := previewApply(t, tool, "true", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"bare/config", "bare/hooks/pre-receive", "deploy/HEAD"} {
		if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s was applied", p)
		}
		if !strings.Contains(run.Report(), p+" is protected") {
			t.Errorf("the report does not say %s was left out:\n%s", p, run.Report())
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "bare/notes.txt")); err != nil {
		t.Errorf("bare/notes.txt was not applied: %v", err)
	}
}
