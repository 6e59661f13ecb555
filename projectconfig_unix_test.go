//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A .myclaw.toml that is not a regular file inside the workspace (a
// symlink out of it, a folder, a FIFO that would block the read) is
// skipped with a warning naming it and why, in -p and in myclaw mcp alike;
// mcp add --project still refuses to write through a symlink.
func TestHostileProjectConfigIsSkipped(t *testing.T) {
	e := newEnv(t, writeNote)
	p := filepath.Join(e.WS, ".myclaw.toml")
	target := filepath.Join(t.TempDir(), "outside.toml")
	os.WriteFile(target, []byte("[[tools]]\nname = \"x/y\"\ncommand = [\"true\"]\n"), 0o644)
	cases := []struct {
		name, why string
		make      func() error
	}{
		{"symlink out", "it is a symbolic link that leads outside the workspace", func() error { return os.Symlink(target, p) }},
		{"folder", "it is a folder, not a regular file", func() error { return os.Mkdir(p, 0o755) }},
		{"fifo", "it is a named pipe (FIFO), not a regular file", func() error { return syscall.Mkfifo(p, 0o644) }},
	}
	for _, c := range cases {
		os.RemoveAll(p)
		if err := c.make(); err != nil {
			t.Fatal(err)
		}
		want := "Skipped the project config .myclaw.toml: " + c.why + "."
		out, errOut, code := e.myclaw(nil, "-p", "say hello", "--model", "test-model")
		if code != 0 || !strings.Contains(out, "Hello there.") || !strings.Contains(errOut, want) {
			t.Fatalf("%s: -p: code %d, stdout %q, stderr %q; want a warning %q", c.name, code, out, errOut, want)
		}
		out, errOut, code = e.myclaw(nil, "mcp", "list")
		if code != 0 || !strings.Contains(errOut, "warning: "+want) {
			t.Fatalf("%s: mcp list: code %d, stdout %q, stderr %q", c.name, code, out, errOut)
		}
	}
	os.RemoveAll(p)
	os.Symlink(target, p)
	if _, errOut, code := e.myclaw(nil, "mcp", "add", "--project", "p", "--", "/bin/true"); code == 0 || !strings.Contains(errOut, "is a symlink") {
		t.Fatalf("mcp add --project through a symlink: code %d, stderr %q", code, errOut)
	}
	if b, _ := os.ReadFile(target); strings.Contains(string(b), "mcp") {
		t.Fatalf("mcp add wrote through the symlink: %q", b)
	}
}
