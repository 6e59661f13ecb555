package builtin

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWorkspaceCanonicalNames checks, on the Mac's default case- and
// normalisation-insensitive volume, that another spelling of an existing
// file comes back as the stored name (what capabilities, rules and the
// journal see), and that a new name is kept in NFC.
func TestWorkspaceCanonicalNames(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "Src", "cafe\u0301"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Src", "Main.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "src", "main.go")); err != nil {
		t.Skip("this volume is case-sensitive")
	}
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	tests := map[string]string{
		"src/main.go":           "Src/Main.go",
		"SRC/MAIN.GO":           "Src/Main.go",
		"Src/Main.go":           "Src/Main.go",
		"src/caf\u00e9/new.txt": "Src/cafe\u0301/new.txt",
		"src/NEW/cafe\u0301":    "Src/NEW/caf\u00e9",
		filepath.Join(ws.Dir(), "SRC", "main.go"): "Src/Main.go",
	}
	for in, want := range tests {
		if got, err := ws.Rel(in); err != nil || got != want {
			t.Errorf("Rel(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
