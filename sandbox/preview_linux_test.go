package sandbox

import (
	"fmt"
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

// A layer held by one process is seen through /proc/PID/root by myclaw
// itself and joined by later commands: one overlay mount, shared.
func TestCommandsJoinAHeldLayer(t *testing.T) {
	if !launcherMakesNamespaces {
		t.Skip("joining a held layer needs the cgo launcher")
	}
	root := t.TempDir()
	ws, upper, work := filepath.Join(root, "ws"), filepath.Join(root, "up"), filepath.Join(root, "work")
	for _, d := range []string{ws, upper, work} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644)
	s := active(t, ws)
	// It says so once the layer is mounted, then waits for its input to end.
	holder := exec.Command("sh", "-c", "echo ready; exec cat")
	holder.Dir = ws
	in, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	ready, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	finish, err := s.ConfinePreview(holder, upper, work)
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); holder.Wait(); finish("") }()
	if n, _ := ready.Read(make([]byte, 6)); n != 6 {
		t.Fatal("the holder never started")
	}
	view := filepath.Join("/proc", fmt.Sprint(holder.Process.Pid), "root", ws)
	if err := os.WriteFile(filepath.Join(view, "b.txt"), []byte("from the view\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", "cat b.txt && echo A > a.txt && echo new > c.txt")
	cmd.Dir = ws
	done, err := s.ConfineInLayer(cmd, holder.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	done(string(out))
	if err != nil || string(out) != "from the view\n" {
		t.Fatalf("the joined command saw %q (%v)", out, err)
	}
	if got, _ := os.ReadFile(filepath.Join(view, "c.txt")); string(got) != "new\n" {
		t.Errorf("the view does not see the command's c.txt: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(got) != "a\n" || exists(filepath.Join(ws, "b.txt")) || exists(filepath.Join(ws, "c.txt")) {
		t.Error("the layer changed the workspace")
	}
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		if !exists(filepath.Join(upper, f)) {
			t.Errorf("%s is not in the upper layer", f)
		}
	}
}
