//go:build linux || darwin

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A read-only command reads the workspace and writes its temp dir, but a
// write to the workspace fails, and the note says plan mode is why.
func TestConfineReadOnlyBlocksWorkspaceWrites(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "kept.txt"), []byte("kept\n"), 0o644)
	s := active(t, ws)
	cmd := exec.Command("bash", "-c", `cat kept.txt && echo t > "$TMPDIR/t" && echo tmp ok; echo x > made.txt`)
	cmd.Dir = ws
	finish, err := s.ConfineReadOnly(cmd)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := cmd.CombinedOutput()
	conf, note := finish(string(out))
	if exists(filepath.Join(ws, "made.txt")) {
		t.Fatalf("a read-only command wrote the workspace (output %q)", out)
	}
	if !strings.Contains(string(out), "kept") || !strings.Contains(string(out), "tmp ok") {
		t.Errorf("output %q; want the file read and the temp dir written", out)
	}
	if conf != ReadOnlyLine {
		t.Errorf("confinement = %q; want %q", conf, ReadOnlyLine)
	}
	if !strings.Contains(note, "blocked access to made.txt") || !strings.Contains(note, "Plan mode runs commands read-only") {
		t.Errorf("note = %q", note)
	}
}
