package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestPreviewWritesLandInTheUpperLayer(t *testing.T) {
	root := t.TempDir()
	ws, upper, work := filepath.Join(root, "ws"), filepath.Join(root, "up"), filepath.Join(root, "work")
	for _, d := range []string{ws, upper, work} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "b.txt"), []byte("b\n"), 0o644)
	s := active(t, ws)
	cmd := exec.Command("bash", "-c", "sed -i s/a/A/ a.txt && rm b.txt && echo new > c.txt && cat a.txt")
	cmd.Dir = ws
	finish, err := s.ConfinePreview(cmd, upper, work)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	finish(string(out))
	if string(out) != "A\n" && err == nil {
		t.Fatalf("inside the preview the command saw %q", out)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(got) != "a\n" {
		t.Errorf("the workspace's a.txt changed to %q", got)
	}
	if !exists(filepath.Join(ws, "b.txt")) || exists(filepath.Join(ws, "c.txt")) {
		t.Error("the preview changed the workspace")
	}
	if got, _ := os.ReadFile(filepath.Join(upper, "a.txt")); string(got) != "A\n" {
		t.Errorf("the upper layer's a.txt is %q", got)
	}
	var st unix.Stat_t
	if err := unix.Lstat(filepath.Join(upper, "b.txt"), &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR || st.Rdev != 0 {
		t.Errorf("b.txt is not a whiteout in the upper layer (%v, mode %o)", err, st.Mode)
	}
}

// BenchmarkPreviewStart measures a `true` run as a preview: the launcher,
// the namespaces and the overlay mount (compare BenchmarkConfinedStart).
func BenchmarkPreviewStart(b *testing.B) {
	ws := b.TempDir()
	s := New(Options{Workspace: ws, Writable: DefaultWritable(), Executable: os.Getenv("MYCLAW_BIN")})
	if st := s.Check(b.Context()); !st.Active {
		b.Skip("no sandbox here: " + st.Why)
	}
	for b.Loop() {
		scratch := b.TempDir()
		upper, work := filepath.Join(scratch, "u"), filepath.Join(scratch, "w")
		os.Mkdir(upper, 0o700)
		os.Mkdir(work, 0o700)
		cmd := exec.Command("bash", "-c", "true")
		cmd.Dir = ws
		finish, err := s.ConfinePreview(cmd, upper, work)
		if err != nil {
			b.Fatal(err)
		}
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		finish("")
	}
}
