package walk

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
)

// The index is decoded once per version: asked again unchanged, the same
// answer comes back; after git rewrites it, the new one.
func TestIndexIsReadAgainOnlyWhenItChanges(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: no index to read")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(dir, "no-config"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	for _, name := range []string{"a.txt", "b.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("add", "a.txt")
	index := filepath.Join(dir, ".git", "index")
	first, bad := ReadIndexFile(index, ".")
	if bad || !first["a.txt"] || first["b.txt"] {
		t.Fatalf("first read %v (bad %v); want a.txt alone", first, bad)
	}
	again, _ := ReadIndexFile(index, ".")
	if reflect.ValueOf(again).Pointer() != reflect.ValueOf(first).Pointer() {
		t.Error("an unchanged index was decoded again")
	}
	git("add", "b.txt")
	after, _ := ReadIndexFile(index, ".")
	if !after["b.txt"] {
		t.Errorf("after git add: %v; want b.txt tracked", after)
	}
}
