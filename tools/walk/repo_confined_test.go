package walk

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A repository's config and files are the workspace's word: the excludes
// file its config names is read only inside its work tree, and a link
// cannot make the listing read a file elsewhere. The user's own excludes
// stand in its place.
func TestRepositoryExcludesFileStaysInside(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("*.go\nb.txt\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{secret, "~/secret", "../" + filepath.Base(outside) + "/secret"} {
		t.Run(name, func(t *testing.T) {
			top := t.TempDir()
			write := func(p, s string) {
				t.Helper()
				full := filepath.Join(top, filepath.FromSlash(p))
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(".git/HEAD", "ref: refs/heads/main\n")
			write(".git/config", "[core]\n\texcludesFile = "+name+"\n")
			if err := os.MkdirAll(filepath.Join(top, ".git", "objects"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(top, ".git", "refs"), 0o755); err != nil {
				t.Fatal(err)
			}
			write("ws/a.go", "")
			write("ws/b.txt", "")
			write("ws/c.user", "")
			// The .gitignore above the workspace is a link out of the tree.
			if err := os.Symlink(secret, filepath.Join(top, ".gitignore")); err != nil {
				t.Skipf("cannot make a link here: %v", err)
			}
			t.Setenv("HOME", outside)
			repo := OpenRepo(filepath.Join(top, "ws"), []string{"*.user"})
			if repo == nil {
				t.Fatal("no repository found")
			}
			fsys, _ := testTreeAt(t, filepath.Join(top, "ws"))
			got, _ := testFiles(t, fsys, Options{Repo: repo})
			if !slices.Contains(got, "a.go") || !slices.Contains(got, "b.txt") {
				t.Errorf("listed %q; a file outside the work tree must not become ignore rules", got)
			}
			if slices.Contains(got, "c.user") {
				t.Errorf("listed %q; the user's own excludes stand when the repository's file is not read", got)
			}
		})
	}
}

// testTreeAt opens an existing folder as the tools open the workspace.
func testTreeAt(t *testing.T, dir string) (fs.FS, string) {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root.FS(), dir
}
