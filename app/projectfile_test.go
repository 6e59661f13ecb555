package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/internal/apptest"
	"myclaw/ui"
)

// A .myclaw.toml that is a folder opens the session with a warning, and
// /trust refuses to trust the folder over it rather than say it has none.
func TestProjectConfigFolderIsSkipped(t *testing.T) {
	e := apptest.NewEnv(t, apptest.WriteNote)
	e.Setenv(t)
	os.Mkdir(filepath.Join(e.WS, ".myclaw.toml"), 0o755)
	a, ag := openApp(t, e)
	if !strings.Contains(noticeText(a.notices), "Skipped the project config .myclaw.toml: it is a folder, not a regular file.") {
		t.Fatalf("notices %+v", a.notices)
	}
	b := &tuiBackend{Agent: ag, app: a, notices: make(chan ui.Notice, 4)}
	if out, err := b.TrustProject(context.Background()); err == nil || !strings.Contains(err.Error(), "Skipped the project config") {
		t.Fatalf("/trust: %q, %v", out, err)
	}
}

// A file too large to be a config is not read whole.
func TestOversizedProjectConfigIsSkipped(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, ".myclaw.toml"), make([]byte, maxProjectConfig+1), 0o644)
	root, err := os.OpenRoot(ws)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if src, skip := readProjectFile(root); src != nil || !strings.Contains(skip, "larger than 1 MiB") {
		t.Fatalf("readProjectFile = %d bytes, %q", len(src), skip)
	}
}
