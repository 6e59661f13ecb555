package builtin

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// treeState lists everything below dir but myclaw's own: each path with
// its type, permission bits and content or link target.
func treeState(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %v", filepath.ToSlash(rel), info.Mode())
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			line += " -> " + target
		case info.Mode().IsRegular():
			data, _ := os.ReadFile(p)
			line += fmt.Sprintf(" %q", data)
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// Every kind of change a command makes is found and undone, and redone:
// in a tree the capture trusts by its stat tuples (files older than the
// racy window) and in one just written (files read again).
func TestShellUndoFindsAndUndoesEveryKindOfChange(t *testing.T) {
	old := time.Now().Add(-48 * time.Hour)
	cases := []struct {
		name, command string
		// recorded: what the undo data must name. Where swapped says so,
		// undo refuses on its own (a path that changed type is not
		// overwritten): finding the change is what is asked there.
		recorded []string
		swapped  bool
	}{
		{"create", "echo new > new.txt; mkdir -p made/deep; echo n > made/deep/n.txt", []string{`"new.txt"`, `"made/deep/n.txt"`, `"made/deep"`}, false},
		{"modify", "echo changed >> a.txt", []string{`"a.txt"`}, false},
		// Same size, same inode, modification time put back to the
		// nanosecond (b.txt has a.txt's): only the change time tells.
		{"modify keeping size and mtime", "printf 'A1\\n' > a.txt; touch -r b.txt a.txt", []string{`"a.txt"`}, false},
		{"delete", "rm a.txt; rm -r sub", []string{`"a.txt"`, `"sub/c.txt"`, `"sub"`}, false},
		{"rename", "mv a.txt renamed.txt; mv sub moved", []string{`"a.txt"`, `"renamed.txt"`, `"moved/c.txt"`}, false},
		{"chmod", "chmod 600 a.txt", []string{`"a.txt"`}, false},
		{"file to folder", "rm a.txt; mkdir a.txt; echo in > a.txt/in", []string{`"a.txt"`, `"a.txt/in"`}, true},
		{"folder to file", "rm -r sub; echo flat > sub", []string{`"sub"`, `"sub/c.txt"`}, true},
		// A file replaced by a link or a named pipe: the very link or pipe
		// the command left is removed (not followed) and the file is back.
		{"symlink swap", "rm b.txt; ln -s a.txt b.txt", []string{`"b.txt"`, `"after":"a.txt"`}, false},
		{"symlink out of the workspace", "rm b.txt && ln -s /etc/passwd b.txt", []string{`"b.txt"`, `"after":"/etc/passwd"`}, false},
		{"fifo swap", "rm b.txt && mkfifo b.txt", []string{`"b.txt"`, `"nodes"`}, false},
		{"link and pipe made and removed", "ln -s sub/c.txt l; mkfifo p; rm a.txt; mkdir -p q; mkfifo q/p2", []string{`"l"`, `"p"`, `"q/p2"`}, false},
	}
	for _, aged := range []bool{true, false} {
		// One workspace per case, all made first so that one wait ages
		// them all past the window in which a stat tuple is not trusted.
		tests := make([]*shellUndoTest, len(cases))
		for i := range cases {
			s := newShellUndoTest(t)
			fsTestFile(t, s.dir, "a.txt", "a1\n", 0o644)
			fsTestFile(t, s.dir, "b.txt", "b1\n", 0o644)
			fsTestFile(t, s.dir, "sub/c.txt", "c1\n", 0o640)
			for _, p := range []string{"a.txt", "b.txt", "sub/c.txt"} {
				os.Chtimes(filepath.Join(s.dir, p), old, old)
			}
			s.run("true") // the capture the next one compares with
			tests[i] = s
		}
		if aged {
			time.Sleep(3100 * time.Millisecond)
		}
		for i, c := range cases {
			s := tests[i]
			t.Run(fmt.Sprintf("%s/aged=%v", c.name, aged), func(t *testing.T) {
				s.t = t
				if strings.Contains(c.command, "mkfifo") && !canMakeFifo {
					t.Skip("redo cannot make a named pipe again on this system")
				}
				s.run("true") // trusts every tuple when aged
				want := treeState(t, s.dir)
				res := s.run(c.command)
				changed := treeState(t, s.dir)
				if changed == want {
					t.Fatalf("%q changed nothing", c.command)
				}
				if len(res.Undo) == 0 {
					t.Fatalf("%q: no undo data; output %+v", c.command, res.Output)
				}
				for _, r := range c.recorded {
					if !strings.Contains(string(res.Undo), r) {
						t.Fatalf("the undo data does not name %s:\n%s", r, res.Undo)
					}
				}
				redo, err := s.tool.Revert(context.Background(), res.Undo, false)
				if c.swapped {
					if err == nil || !strings.Contains(err.Error(), "nothing was restored") && !strings.Contains(err.Error(), "cannot be created") {
						t.Fatalf("undo over a swapped path: %v", err)
					}
					if got := treeState(t, s.dir); got != changed {
						t.Fatalf("a refused undo changed the tree:\n%s\nwant:\n%s", got, changed)
					}
					return
				}
				if err != nil {
					t.Fatalf("undo: %v", err)
				}
				if got := treeState(t, s.dir); got != want {
					t.Fatalf("after undo:\n%s\nwant:\n%s", got, want)
				}
				if _, err := s.tool.Revert(context.Background(), redo, false); err != nil {
					t.Fatalf("redo: %v", err)
				}
				if got := treeState(t, s.dir); got != changed {
					t.Fatalf("after redo:\n%s\nwant:\n%s", got, changed)
				}
			})
		}
	}
}
