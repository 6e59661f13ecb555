package builtin

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// tempName matches the temporary files fsAtomicWrite leaves behind when
// myclaw dies mid-write: ".NAME.myclaw-<12 hex>.tmp".
var tempName = regexp.MustCompile(`^\..*\.myclaw-[0-9a-f]{12}\.tmp$`)

// maxTempScan bounds the walk of RemoveStaleTemps in a huge tree.
const maxTempScan = 200_000

// tempRecords maps a workspace's folder to the file recording the folders
// temporary files were put in (see RecordTemps). Writes reach it from the
// folder they write in, whichever root they went through.
var tempRecords struct {
	sync.Mutex
	byDir map[string]string
}

// RecordTemps makes every temporary file put in the workspace note its
// folder in the file at record (in the state directory, not the
// workspace), so that RemoveStaleTemps looks in those folders instead of
// walking the whole tree at every start.
func (w *Workspace) RecordTemps(record string) {
	tempRecords.Lock()
	defer tempRecords.Unlock()
	if tempRecords.byDir == nil {
		tempRecords.byDir = map[string]string{}
	}
	tempRecords.byDir[w.dir] = record
}

// tempRecordOf returns the record of the workspace holding dir, or "".
func tempRecordOf(dir string) string {
	tempRecords.Lock()
	defer tempRecords.Unlock()
	best, rec := "", ""
	for ws, r := range tempRecords.byDir {
		if (dir == ws || strings.HasPrefix(dir, ws+string(filepath.Separator))) && len(ws) > len(best) {
			best, rec = ws, r
		}
	}
	return rec
}

// noteTempDir records the folder dir of root before a temporary file is
// put there. Appends from several processes do not mix: each is one
// write of one line to a file opened for appending.
func noteTempDir(root *os.Root, dir string) {
	abs := filepath.Join(root.Name(), filepath.FromSlash(dir))
	rec := tempRecordOf(abs)
	if rec == "" {
		return
	}
	f, err := os.OpenFile(rec, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if errors.Is(err, fs.ErrNotExist) && os.MkdirAll(filepath.Dir(rec), 0o700) == nil {
		f, err = os.OpenFile(rec, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	}
	if err != nil {
		return
	}
	_, _ = f.WriteString(strconv.Quote(abs) + "\n")
	f.Close()
}

// RemoveStaleTemps removes the temporary files that writes interrupted by
// a crash left in the workspace, and returns their paths. A file changed
// less than minAge ago may belong to a write of another myclaw running
// now, and is left alone.
//
// With a record (RecordTemps) only the folders it names are looked in;
// compact then rewrites it to the folders that still hold a temporary
// file (pass it only when no other myclaw may be writing here, whose
// lines a rewrite could lose). Without one, or before the first record
// exists, the whole tree is walked, skipping .git and myclaw's own
// folders and stopping after maxTempScan entries.
func (w *Workspace) RemoveStaleTemps(minAge time.Duration, compact bool) []string {
	cutoff := time.Now().Add(-minAge)
	rec := tempRecordOf(w.dir)
	if rec == "" {
		removed := w.walkTemps(cutoff)
		return removed
	}
	data, err := os.ReadFile(rec)
	if errors.Is(err, fs.ErrNotExist) {
		removed := w.walkTemps(cutoff)
		if err := os.MkdirAll(filepath.Dir(rec), 0o700); err == nil {
			_ = os.WriteFile(rec, nil, 0o600)
		}
		return removed
	}
	if err != nil {
		return nil
	}
	var removed []string
	var keep bytes.Buffer
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		abs, err := strconv.Unquote(sc.Text())
		if err != nil || seen[abs] {
			continue
		}
		seen[abs] = true
		rel, err := filepath.Rel(w.dir, abs)
		if err != nil || !filepath.IsLocal(rel) {
			keep.WriteString(strconv.Quote(abs) + "\n") // another workspace's
			continue
		}
		gone, left := w.removeTempsIn(filepath.ToSlash(rel), cutoff)
		removed = append(removed, gone...)
		if left {
			keep.WriteString(strconv.Quote(abs) + "\n")
		}
	}
	if compact {
		_ = replaceFile(rec, keep.Bytes())
	}
	return removed
}

// removeTempsIn removes the stale temporary files in one folder; left
// reports whether a newer one is still there.
func (w *Workspace) removeTempsIn(dir string, cutoff time.Time) (removed []string, left bool) {
	if w.isProtected(dir) {
		return nil, false
	}
	entries, err := fs.ReadDir(w.root.FS(), dir)
	if err != nil {
		return nil, false
	}
	for _, d := range entries {
		if !d.Type().IsRegular() || !tempName.MatchString(d.Name()) {
			continue
		}
		p := path.Join(dir, d.Name())
		if fi, err := d.Info(); err != nil || fi.ModTime().After(cutoff) {
			left = true
			continue
		}
		if w.root.Remove(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed, left
}

// walkTemps removes the stale temporary files of the whole tree, up to
// maxTempScan entries.
func (w *Workspace) walkTemps(cutoff time.Time) (removed []string) {
	seen := 0
	_ = fs.WalkDir(w.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if seen++; seen > maxTempScan {
			return fs.SkipAll
		}
		if d.IsDir() {
			if p != "." && (d.Name() == ".git" || w.isProtected(p)) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !tempName.MatchString(d.Name()) {
			return nil
		}
		if fi, err := d.Info(); err != nil || fi.ModTime().After(cutoff) {
			return nil
		}
		if w.root.Remove(p) == nil {
			removed = append(removed, p)
		}
		return nil
	})
	return removed
}

// replaceFile writes data to name through a temporary file and a rename.
func replaceFile(name string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(name), filepath.Base(name)+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
