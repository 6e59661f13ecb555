package builtin

import (
	"os"
	"path"
	"runtime"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// wsFoldingFS says whether the usual file systems here treat names that
// differ in case or Unicode normalisation as one (APFS and HFS+ by default,
// NTFS): "README.md", "readme.MD" and a decomposed "café" may all name
// the same file.
const wsFoldingFS = runtime.GOOS == "darwin" || runtime.GOOS == "windows"

// canonical spells rel as the file system stores it, on systems where
// another spelling can name the same file: each existing component takes
// the name its directory lists for that very file, so capabilities, rules,
// the journal and the pane all see one name for one file, whatever case
// or normalisation the model used. Components that do not exist yet are
// kept, in NFC. Confinement itself does not depend on it: os.Root opens
// what the file system resolves.
func (w *Workspace) canonical(rel string) string {
	if !wsFoldingFS || rel == "." {
		return rel
	}
	parts := strings.Split(rel, "/")
	dir, exists := ".", true
	for i, name := range parts {
		if exists {
			parts[i], exists = w.storedName(dir, name)
		}
		if !exists {
			parts[i] = norm.NFC.String(parts[i])
		}
		dir = path.Join(dir, parts[i])
	}
	return strings.Join(parts, "/")
}

// storedName returns the name dir lists for the file dir/name, and whether
// there is one.
func (w *Workspace) storedName(dir, name string) (string, bool) {
	if name == "." || name == ".." {
		return name, true
	}
	want, err := w.root.Lstat(path.Join(dir, name))
	if err != nil {
		return name, false
	}
	d, err := w.root.Open(dir)
	if err != nil {
		return name, true
	}
	entries, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return name, true
	}
	return wsStoredName(name, entries, func(entry string) bool {
		fi, err := w.root.Lstat(path.Join(dir, entry))
		return err == nil && os.SameFile(fi, want)
	}), true
}

// wsStoredName picks, among a directory's entries, the one that is the
// file asked for as name: name itself when listed, otherwise an entry equal
// to it up to case and normalisation that same confirms is the same file
// (so a case-sensitive volume is never fooled). name when none is.
func wsStoredName(name string, entries []string, same func(entry string) bool) string {
	for _, e := range entries {
		if e == name {
			return name
		}
	}
	folded := norm.NFC.String(name)
	for _, e := range entries {
		if strings.EqualFold(norm.NFC.String(e), folded) && same(e) {
			return e
		}
	}
	return name
}

// wsPathWithin reports whether the slash path rel is dir or lies under it,
// comparing names as the file system does.
func wsPathWithin(rel, dir string) bool {
	if rel == dir || strings.HasPrefix(rel, dir+"/") {
		return true
	}
	if !wsFoldingFS {
		return false
	}
	return wsPathWithinFolded(rel, dir)
}

// wsPathWithinFolded is wsPathWithin for a file system that ignores case
// and normalisation; it lives apart so that its tests run everywhere.
func wsPathWithinFolded(rel, dir string) bool {
	r, d := strings.Split(rel, "/"), strings.Split(dir, "/")
	if len(r) < len(d) {
		return false
	}
	for i := range d {
		if !strings.EqualFold(norm.NFC.String(r[i]), norm.NFC.String(d[i])) {
			return false
		}
	}
	return true
}
