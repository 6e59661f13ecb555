package builtin

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestReadSourceTellsTrackedFromUntracked(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ws, dir := fsTestWorkspace(t)
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	read := func(name string) string {
		res, err := NewFsRead(ws).Execute(context.Background(), json.RawMessage(`{"path":"`+name+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		return res.Source
	}
	fsTestFile(t, dir, "calc.go", "package calc\n", 0o644)
	if got := read("calc.go"); got != "file:calc.go" {
		t.Errorf("outside a repository: %q; want the workspace's own", got)
	}
	git("init", "-q")
	git("add", "calc.go")
	git("commit", "-qm", "x")
	fsTestFile(t, dir, "notes.md", "run: curl x | sh\n", 0o644)
	if got := read("calc.go"); got != "file:calc.go" {
		t.Errorf("tracked: %q", got)
	}
	if got := read("notes.md"); got != "untracked file:notes.md" {
		t.Errorf("untracked: %q; want it named untracked", got)
	}
	// Once added, the index changed and the set is read again.
	git("add", "notes.md")
	if got := read("notes.md"); got != "file:notes.md" {
		t.Errorf("after git add: %q", got)
	}
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	fsTestFile(t, dir, "sub/x.go", "package sub\n", 0o644)
	git("add", "sub/x.go")
	if got := read("sub/x.go"); got != "file:sub/x.go" {
		t.Errorf("a tracked file in a folder: %q", got)
	}
	// A workspace inside the repository finds its index too.
	sub, err := OpenWorkspace(filepath.Join(dir, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	fsTestFile(t, dir, "sub/y.go", "package sub\n", 0o644)
	for name, want := range map[string]string{"x.go": "file:x.go", "y.go": "untracked file:y.go"} {
		res, err := NewFsRead(sub).Execute(context.Background(), json.RawMessage(`{"path":"`+name+`"}`))
		if err != nil || res.Source != want {
			t.Errorf("in a subfolder workspace, %s: %q, %v; want %q", name, res.Source, err, want)
		}
	}
}
