package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/charmbracelet/x/exp/golden"
)

// slash types "/" into an empty prompt and runs the rescan it starts.
func slash(t *testing.T, m Model) Model {
	t.Helper()
	m.input.setValue("")
	m, cmd := updateCmd(m, keyMsg("/"))
	return runCmd(t, m, cmd)
}

// A command file added, changed or removed while myclaw runs is seen the
// next time "/" is typed, without a restart.
func TestCustomCommandsFolderIsRescanned(t *testing.T) {
	dir := t.TempDir()
	d := CommandDir{Path: dir, Scope: "user", Trusted: true}
	m := New(newFake(), Options{Workspace: "/work/project", Files: fstest.MapFS{},
		Commands:      func() ([]CustomCommand, []string) { return LoadCommands(d) },
		CommandsStamp: func() string { return CommandsStamp(d) },
	})
	m = update(m, sizeMsg(testWidth, testHeight))
	m = runCmd(t, m, loadCommandsStamped(m.loadCommands, m.commandsStamp))
	if len(m.c.custom) != 0 {
		t.Fatalf("custom commands %v in an empty folder", m.c.custom)
	}

	writeCmd(t, dir, "deploy.md", "---\ndescription: Ship the build\n---\nDeploy it.")
	m = slash(t, m)
	m = typeText(m, "dep")
	golden.RequireEqual(t, []byte(screen(m)))

	// Changed in place, with the same size: the time tells.
	path := filepath.Join(dir, "deploy.md")
	writeCmd(t, dir, "deploy.md", "---\ndescription: Ship the docs\n---\nDeploy it.")
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	m = slash(t, m)
	if got := m.c.custom["deploy"].Desc; got != "Ship the docs" {
		t.Errorf("description %q after the file changed; want Ship the docs", got)
	}

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	m = slash(t, m)
	if _, ok := m.c.custom["deploy"]; ok {
		t.Error("a removed command file is still a command")
	}
}

// Nothing changed: typing "/" reads no file, and a notice about a file
// that cannot be used is not repeated by a rescan.
func TestCustomCommandsRescanIsCheapAndQuiet(t *testing.T) {
	dir := t.TempDir()
	writeCmd(t, dir, "bad name.md", "x")
	d := CommandDir{Path: dir, Scope: "user", Trusted: true}
	loads := 0
	m := New(newFake(), Options{Workspace: "/work/project", Files: fstest.MapFS{},
		Commands:      func() ([]CustomCommand, []string) { loads++; return LoadCommands(d) },
		CommandsStamp: func() string { return CommandsStamp(d) },
	})
	m = update(m, sizeMsg(testWidth, testHeight))
	m = runCmd(t, m, loadCommandsStamped(m.loadCommands, m.commandsStamp))
	m = slash(t, m)
	if loads != 1 {
		t.Fatalf("loaded %d times; want the unchanged folder not read again", loads)
	}
	writeCmd(t, dir, "ok.md", "Do it.")
	m = slash(t, m)
	if loads != 2 {
		t.Fatalf("loaded %d times; want a second load after a file was added", loads)
	}
	if n := strings.Count(screen(m), "Ignored"); n != 1 {
		t.Errorf("the notice about the bad file shows %d times; want once:\n%s", n, screen(m))
	}
}
