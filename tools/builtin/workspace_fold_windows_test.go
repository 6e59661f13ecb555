package builtin

import (
	"myclaw/tools"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkspaceWindowsPaths: drive letters (in any case) and backslashes
// name files inside the workspace; another drive, a drive-relative path,
// a rooted path and a share are outside; another case of an existing
// name comes back as the stored name.
func TestWorkspaceWindowsPaths(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "Src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Src", "Main.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	vol := filepath.VolumeName(ws.Dir())
	inside := map[string]string{
		`src\main.go`:   "Src/Main.go",
		`SRC/MAIN.GO`:   "Src/Main.go",
		`Src\new\x.txt`: "Src/new/x.txt",
		filepath.Join(ws.Dir(), "src", "Main.go"):                   "Src/Main.go",
		strings.ToLower(vol) + ws.Dir()[len(vol):] + `\Src\Main.go`: "Src/Main.go",
	}
	for in, want := range inside {
		if got, err := ws.Rel(in); err != nil || got != want {
			t.Errorf("Rel(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	other := "D:"
	if strings.EqualFold(vol, "D:") {
		other = "E:"
	}
	for _, in := range []string{other + `\x.txt`, vol + `x.txt`, `\x.txt`, `\\server\share\x.txt`, `..\x.txt`} {
		if got, err := ws.Rel(in); err == nil || err.Kind != tools.KindPermissionDenied {
			t.Errorf("Rel(%q) = %q, %v; want permission_denied (outside)", in, got, err)
		}
	}
}
