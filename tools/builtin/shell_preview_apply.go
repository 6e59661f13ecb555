package builtin

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"myclaw/tools"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Discard drops the scratch layer: nothing of the run reaches the workspace.
func (r *PreviewRun) Discard() {
	if r == nil {
		return
	}
	if r.layer != nil {
		r.layer.Close()
	}
	removeScratch(r.scratch)
}

// apply writes the preview's changes into the workspace, journaled like a
// command's own (the capture around it is what /undo reverts). Everything
// is checked first: when anything differs from what the preview showed,
// nothing is applied.
func (s *shellRun) apply(ctx context.Context, run *PreviewRun) (tools.Result, error) {
	defer run.Discard()
	if err := run.verify(); err != nil {
		return tools.Result{}, tools.Errorf(tools.KindExternalError, "Tell the user; run the command again to preview it afresh.",
			"nothing was applied: %v", err)
	}
	var notes []string
	before, err := s.captureBefore(ctx)
	if err != nil {
		notes = append(notes, err.Error())
	}
	if err := run.write(); err != nil {
		var rec shellRecorded
		if before != nil {
			rec = s.opts.Undo.record(ctx, before)
		}
		return tools.Result{Undo: rec.undo, UndoPlan: rec.plan}, tools.Errorf(tools.KindExternalError, "Tell the user: the workspace may hold part of the change; /undo reverts what was applied.", "applying the preview failed part way: %s", wsStripRoot(err.Error(), run.ws.Dir()))
	}
	res := run.result
	out, _ := res.Output.(shellOutput)
	var rec shellRecorded
	if before != nil {
		rec = s.opts.Undo.record(ctx, before)
		if rec.note != "" {
			notes = append(notes, rec.note)
		}
	}
	notes = append([]string{"the command ran once in a preview (no network, writes in a scratch layer); the user approved what it changed, which is now applied to the workspace"}, notes...)
	if out.Note != "" {
		notes = append(notes, out.Note)
	}
	out.Note = strings.Join(notes, ". ")
	out.FilesChanged = rec.changed
	res.Output = out
	res.Undo, res.UndoPlan = rec.undo, rec.plan
	res.Summary = fmt.Sprintf("Ran `%s` in a preview: exit %d", run.command, run.exit)
	if run.counts != "" {
		res.Summary += ", applied " + run.counts
	}
	return res, nil
}

// verify checks that every path a change touches, and every folder on its
// way, is what the preview saw, reached without a link; and that the
// layer still holds what was shown. It names the first difference.
func (r *PreviewRun) verify() error {
	check := map[string]bool{} // path → whether it is changed itself
	for _, c := range r.changes {
		check[c.rel] = true
		for p := filepath.Dir(c.rel); p != "."; p = filepath.Dir(p) {
			if _, ok := check[p]; !ok {
				check[p] = false
			}
		}
	}
	paths := make([]string, 0, len(check))
	for p := range check {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	fresh := map[string]fs.FileInfo{}
	for _, p := range paths {
		was, ok := r.seen[p]
		if !ok {
			return fmt.Errorf("%s was not checked by the preview", previewName(p))
		}
		now := lowerStat(r.ws.Root(), p, fresh)
		if why := differs(was, now, check[p]); why != "" {
			return fmt.Errorf("%s changed in the workspace after the preview (%s)", previewName(p), why)
		}
	}
	for _, c := range r.changes {
		if c.now == nil {
			continue
		}
		fi, err := r.layer.Lstat(c.rel)
		if err != nil || differs(c.now, fi, true) != "" {
			return fmt.Errorf("the preview's version of %s changed after it was shown", previewName(c.rel))
		}
	}
	return nil
}

// differs says how now differs from was ("" when it does not): another
// kind of thing or another inode; for a changed path itself, also its
// size, time or mode.
func differs(was, now fs.FileInfo, itself bool) string {
	switch {
	case was == nil && now == nil:
		return ""
	case was == nil:
		return describeKind(now.Mode()) + " appeared"
	case now == nil:
		return "it is gone, or a folder on its way is not a folder any more"
	case was.Mode().Type() != now.Mode().Type():
		return "it was " + describeKind(was.Mode()) + ", now it is " + describeKind(now.Mode())
	case !os.SameFile(was, now):
		return "it was replaced"
	case itself && !was.IsDir() && (was.Size() != now.Size() || !was.ModTime().Equal(now.ModTime()) || changeTime(was) != changeTime(now)):
		return "its content changed"
	case itself && was.IsDir() && !was.ModTime().Equal(now.ModTime()):
		return "what it holds changed"
	case itself && was.Mode() != now.Mode():
		return "its mode changed"
	}
	return ""
}

// write applies the changes: deletions first (deepest first), then new
// folders (parents first), then files and links, then the new folders'
// modes. Each is done by name inside its folder, opened through the
// workspace root and checked to be the folder verify saw.
func (r *PreviewRun) write() error {
	a := &applier{root: r.ws.Root(), open: map[string]*os.Root{}, want: map[string]fs.FileInfo{}}
	defer a.close()
	for p, fi := range r.seen {
		if isFolder(fi) {
			a.want[p] = fi
		}
	}
	var dels, dirs, files []layerChange
	for _, c := range r.changes {
		switch {
		case c.kind == 'D':
			dels = append(dels, c)
		case isFolder(c.now):
			dirs = append(dirs, c)
		default:
			files = append(files, c)
		}
	}
	slices.SortFunc(dels, func(a, b layerChange) int { return len(b.rel) - len(a.rel) })
	for _, c := range dels {
		d, base, err := a.parent(c.rel)
		if err == nil {
			err = d.RemoveAll(base)
		}
		if err != nil {
			return err
		}
		a.forget(c.rel)
	}
	slices.SortFunc(dirs, func(a, b layerChange) int { return len(a.rel) - len(b.rel) })
	for _, c := range dirs {
		d, base, err := a.parent(c.rel)
		if err == nil {
			err = d.Mkdir(base, 0o700)
		}
		var fi fs.FileInfo
		if err == nil {
			fi, err = d.Lstat(base)
		}
		if err != nil {
			return err
		}
		a.want[c.rel] = fi
	}
	for _, c := range files {
		d, base, err := a.parent(c.rel)
		if err == nil {
			if c.now.Mode()&fs.ModeSymlink != 0 {
				err = replaceWithLink(d, base, c.target)
			} else {
				err = r.copyIn(d, base, c)
			}
		}
		if err != nil {
			return err
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		c := dirs[i]
		d, base, err := a.parent(c.rel)
		if err == nil {
			err = d.Chmod(base, c.now.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// applier opens the workspace's folders for write, each checked against
// what it must be.
type applier struct {
	root *os.Root
	open map[string]*os.Root
	want map[string]fs.FileInfo
}

// parent opens the folder that holds rel and returns it with rel's name.
func (a *applier) parent(rel string) (*os.Root, string, error) {
	dir, base := filepath.Dir(rel), filepath.Base(rel)
	if dir == "." {
		return a.root, base, nil
	}
	if d, ok := a.open[dir]; ok {
		return d, base, nil
	}
	want := a.want[dir]
	if want == nil {
		return nil, "", fmt.Errorf("%s: the folder is not one the preview saw", previewName(dir))
	}
	d, err := a.root.OpenRoot(dir)
	if err != nil {
		return nil, "", err
	}
	if fi, err := d.Stat("."); err != nil || !os.SameFile(fi, want) {
		d.Close()
		return nil, "", fmt.Errorf("%s changed in the workspace while the preview was applied", previewName(dir))
	}
	a.open[dir] = d
	return d, base, nil
}

// forget drops what is known of rel and below: it was removed.
func (a *applier) forget(rel string) {
	for p, d := range a.open {
		if p == rel || strings.HasPrefix(p, rel+string(filepath.Separator)) {
			d.Close()
			delete(a.open, p)
		}
	}
	for p := range a.want {
		if p == rel || strings.HasPrefix(p, rel+string(filepath.Separator)) {
			delete(a.want, p)
		}
	}
}

func (a *applier) close() {
	for _, d := range a.open {
		d.Close()
	}
}

// copyIn replaces base in d with the layer's version of c, the one shown:
// written to a temporary file, given its mode, synced, renamed over base.
func (r *PreviewRun) copyIn(d *os.Root, base string, c layerChange) error {
	src, err := openRegular(r.layer, c.rel, c.now)
	if err != nil {
		return err
	}
	defer src.Close()
	if fi, err := src.Stat(); err != nil || differs(c.now, fi, true) != "" {
		return fmt.Errorf("the preview's version of %s changed after it was shown", previewName(c.rel))
	}
	return fsAtomicFill(d, base, c.now.Mode()&(fs.ModePerm|fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky), func(w io.Writer) error {
		_, err := io.Copy(w, src)
		return err
	})
}

// replaceWithLink makes base in d the link to target, replacing what is
// there in one rename.
func replaceWithLink(d *os.Root, base, target string) error {
	tmp := tempBeside(base)
	if err := d.Symlink(target, tmp); err != nil {
		return err
	}
	if err := d.Rename(tmp, base); err != nil {
		_ = d.Remove(tmp)
		return err
	}
	return nil
}

// removeScratch removes a preview's scratch dir, whatever modes the
// command left in it.
func removeScratch(dir string) {
	if dir == "" {
		return
	}
	// Best effort: a folder left unreadable is what RemoveAll then names.
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(dir)
}
