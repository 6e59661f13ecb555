//go:build unix

package builtin

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"myclaw/tools"
)

// outsideFile is a file outside the workspace a link may lead to.
func outsideFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(p, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func checkOutside(t *testing.T, p string) {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("the file outside the workspace is gone or replaced: %v %v", fi, err)
	}
	if data, _ := os.ReadFile(p); string(data) != "secret\n" {
		t.Fatalf("the file outside the workspace now holds %q", data)
	}
}

func kindOf(t *testing.T, p string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		return 0
	}
	return fi.Mode().Type() | 1 // 1: it exists
}

// A file a command replaced with a link out of the workspace is undone
// exactly, whether the command ran confined or not: the card covers it,
// the link goes (its target stays), the file is back, and redo makes the
// link again.
func TestShellUndoPutsBackAFileReplacedWithALink(t *testing.T) {
	for _, confined := range []bool{false, true} {
		s := newShellUndoTest(t)
		ctx := context.Background()
		if confined {
			s.tool.opts.Sandbox = &fakeSandbox{}
			ctx = tools.WithConfinement(ctx, tools.Confinement{Sandboxed: true})
		}
		secret := outsideFile(t)
		fsTestFile(t, s.dir, "main.go", "package main\n", 0o644)
		res, err := s.tool.Execute(ctx, shellArgsJSON(t, "rm main.go && ln -s "+secret+" main.go", 0))
		if err != nil {
			t.Fatal(err)
		}
		if confined && res.Output.(shellOutput).Sandbox == "" {
			t.Fatal("the command did not run confined")
		}
		if strings.Contains(res.UndoPlan, "not covered") || !strings.Contains(res.UndoPlan, "1 deleted") {
			t.Fatalf("confined=%v: undo plan %q; want the deletion covered", confined, res.UndoPlan)
		}
		redo, err := s.tool.Revert(context.Background(), res.Undo, false)
		if err != nil {
			t.Fatalf("confined=%v: undo: %v", confined, err)
		}
		if kindOf(t, filepath.Join(s.dir, "main.go")) != 1 || s.read("main.go") != "package main\n" {
			t.Fatalf("confined=%v: main.go is %q after undo", confined, s.read("main.go"))
		}
		checkOutside(t, secret)
		if _, err := s.tool.Revert(context.Background(), redo, false); err != nil {
			t.Fatalf("redo: %v", err)
		}
		if target, err := os.Readlink(filepath.Join(s.dir, "main.go")); err != nil || target != secret {
			t.Fatalf("after redo main.go links to %q (%v); want %q", target, err, secret)
		}
		checkOutside(t, secret)
	}
}

// The same for a named pipe: removed by name, never opened.
func TestShellUndoPutsBackAFileReplacedWithAPipe(t *testing.T) {
	s := newShellUndoTest(t)
	fsTestFile(t, s.dir, "one.txt", "one\n", 0o644)
	res := s.run("rm one.txt && mkfifo one.txt")
	if strings.Contains(res.UndoPlan, "not covered") {
		t.Fatalf("undo plan %q", res.UndoPlan)
	}
	redo, err := s.tool.Revert(context.Background(), res.Undo, false)
	if err != nil {
		t.Fatal(err)
	}
	if s.read("one.txt") != "one\n" {
		t.Fatalf("one.txt = %q", s.read("one.txt"))
	}
	if !canMakeFifo {
		return
	}
	if _, err := s.tool.Revert(context.Background(), redo, false); err != nil {
		t.Fatalf("redo: %v", err)
	}
	if kindOf(t, filepath.Join(s.dir, "one.txt")) != fs.ModeNamedPipe|1 {
		t.Fatal("redo did not make the pipe again")
	}
}

// A link or pipe changed after the call is refused by a plain undo (the
// tree untouched) and replaced by a forced one: the entry itself is
// removed, not what it leads to, and redo brings back what was there.
func TestShellUndoOfALinkOrPipeChangedSince(t *testing.T) {
	secret, other := outsideFile(t), outsideFile(t)
	cases := []struct {
		name, command string
		tamper        func(p string)
		refusal       string
		check         func(t *testing.T, p string)
	}{
		{"link retargeted", "rm main.go && ln -s " + secret + " main.go", func(p string) {
			os.Remove(p)
			os.Symlink(other, p)
		}, "no longer the link to " + secret, func(t *testing.T, p string) {
			if target, _ := os.Readlink(p); target != other {
				t.Fatalf("redo made the link to %q; want the one the undo removed, %q", target, other)
			}
		}},
		{"pipe made again", "rm main.go && mkfifo main.go", func(p string) {
			// Made before the old one goes, so it has another inode.
			syscall.Mkfifo(p+".new", 0o600)
			os.Rename(p+".new", p)
		}, "it was made again since", func(t *testing.T, p string) {
			if canMakeFifo && kindOf(t, p) != fs.ModeNamedPipe|1 {
				t.Fatal("redo did not make the pipe again")
			}
		}},
		{"link where the call left nothing", "rm main.go", func(p string) {
			os.Symlink(secret, p)
		}, "it is now a symbolic link", func(t *testing.T, p string) {
			if target, _ := os.Readlink(p); target != secret {
				t.Fatalf("redo made the link to %q; want %q", target, secret)
			}
		}},
		{"pipe where the call left nothing", "rm main.go", func(p string) {
			syscall.Mkfifo(p, 0o600)
		}, "it is now a named pipe (FIFO)", func(t *testing.T, p string) {
			if canMakeFifo && kindOf(t, p) != fs.ModeNamedPipe|1 {
				t.Fatal("redo did not make the pipe again")
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newShellUndoTest(t)
			fsTestFile(t, s.dir, "main.go", "package main\n", 0o644)
			res := s.run(c.command)
			p := filepath.Join(s.dir, "main.go")
			c.tamper(p)
			want := treeState(t, s.dir)
			_, err := s.tool.Revert(context.Background(), res.Undo, false)
			var conflict *tools.Conflict
			if !errors.As(err, &conflict) || !strings.Contains(err.Error(), c.refusal) {
				t.Fatalf("plain undo: %v; want a conflict saying %q", err, c.refusal)
			}
			if got := treeState(t, s.dir); got != want {
				t.Fatalf("a refused undo changed the tree:\n%s\nwant:\n%s", got, want)
			}
			redo, err := s.tool.Revert(context.Background(), res.Undo, true)
			if err != nil {
				t.Fatalf("forced undo: %v", err)
			}
			if kindOf(t, p) != 1 || s.read("main.go") != "package main\n" {
				t.Fatalf("main.go after a forced undo: %q", s.read("main.go"))
			}
			checkOutside(t, secret)
			checkOutside(t, other)
			if _, err := s.tool.Revert(context.Background(), redo, false); err != nil {
				t.Fatalf("redo: %v", err)
			}
			c.check(t, p)
		})
	}
}

// What even a forced undo does not replace is refused without offering
// --force again: it is not a Conflict, and says what to do instead.
func TestShellForcedUndoRefusalDoesNotOfferForce(t *testing.T) {
	s := newShellUndoTest(t)
	fsTestFile(t, s.dir, "a.txt", "a\n", 0o644)
	res := s.run("rm a.txt")
	fsTestFile(t, s.dir, "a.txt/in.txt", "mine\n", 0o644)
	// And where the call left a link or a pipe (its own check comes first
	// otherwise, and would offer --force).
	fsTestFile(t, s.dir, "b.txt", "b\n", 0o644)
	fsTestFile(t, s.dir, "c.txt", "c\n", 0o644)
	pipe := s.run("rm b.txt && mkfifo b.txt && rm c.txt && ln -s a.txt c.txt")
	for _, p := range []string{"b.txt", "c.txt"} {
		os.Remove(filepath.Join(s.dir, p))
		os.Mkdir(filepath.Join(s.dir, p), 0o755)
	}
	for _, force := range []bool{false, true} {
		_, err := s.tool.Revert(context.Background(), pipe.Undo, force)
		var c *tools.Conflict
		if err == nil || errors.As(err, &c) || strings.Contains(err.Error(), "--force") || !strings.Contains(err.Error(), "b.txt, c.txt are folders now; even a forced undo does not replace them") {
			t.Fatalf("undo (force=%v) of a pipe and a link now folders: %v", force, err)
		}
	}
	for _, force := range []bool{false, true} {
		_, err := s.tool.Revert(context.Background(), res.Undo, force)
		var c *tools.Conflict
		if err == nil || errors.As(err, &c) {
			t.Fatalf("undo (force=%v) over a folder: %v; want an error that is not a Conflict", force, err)
		}
		if msg := err.Error(); strings.Contains(msg, "--force") || !strings.HasPrefix(msg, "a.txt changed since the call") || !strings.Contains(msg, "it is now a folder; even a forced undo does not replace it") {
			t.Fatalf("refusal (force=%v) %q", force, msg)
		}
	}
	if s.read("a.txt/in.txt") != "mine\n" {
		t.Fatal("the refused undo touched the folder")
	}
}

// A folder on the path swapped for a link out of the workspace after the
// call does not lead undo out: neither a plain nor a forced undo removes
// or writes anything there.
func TestShellUndoDoesNotFollowAFolderSwappedForALink(t *testing.T) {
	for _, command := range []string{"rm sub/main.go && ln -s ../x sub/main.go", "rm sub/main.go && mkfifo sub/main.go"} {
		s := newShellUndoTest(t)
		fsTestFile(t, s.dir, "sub/main.go", "package main\n", 0o644)
		res := s.run(command)
		// The same entry, outside: were the swapped folder followed, the
		// link or pipe there would pass for the call's.
		out := t.TempDir()
		if err := os.Rename(filepath.Join(s.dir, "sub"), filepath.Join(out, "sub")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(out, "sub"), filepath.Join(s.dir, "sub")); err != nil {
			t.Fatal(err)
		}
		outside := treeState(t, out)
		for _, force := range []bool{false, true} {
			if _, err := s.tool.Revert(context.Background(), res.Undo, force); err == nil {
				t.Fatalf("%q: undo (force=%v) through a swapped folder succeeded", command, force)
			}
			if got := treeState(t, out); got != outside {
				t.Fatalf("%q: undo (force=%v) changed what is outside the workspace:\n%s\nwant:\n%s", command, force, got, outside)
			}
		}
	}
}

// The card says what undo restores, links included, and covers them.
func TestShellUndoPlanNamesLinks(t *testing.T) {
	s := newShellUndoTest(t)
	fsTestFile(t, s.dir, "main.go", "package main\n", 0o644)
	for command, want := range map[string]string{
		"rm main.go && ln -s /etc/passwd main.go": "Undo restores 1 file in the workspace (1 deleted) and 1 link or special file;",
		"ln -s a l1; ln -s b l2":                  "Undo restores 2 links or special files in the workspace;",
	} {
		res := s.run(command)
		if !strings.HasPrefix(res.UndoPlan, want) || strings.Contains(res.UndoPlan, "not covered") {
			t.Errorf("%q: plan %q; want it to begin %q", command, res.UndoPlan, want)
		}
	}
}
