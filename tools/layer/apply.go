package layer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"myclaw/tools"
	"myclaw/tools/builtin"
)

// Apply writes the merge into the workspace as one journaled change:
// Revert of the Result's Undo takes it all back. Everything is checked first: when a path differs from what
// the merge read, or any conflict remains, nothing is written.
func (p *Merge) Apply(ctx context.Context) (tools.Result, error) {
	l := p.l
	switch {
	case p.discarded:
		return tools.Result{}, errors.New("the merge was discarded")
	case l.undo == nil:
		return tools.Result{}, tools.Errorf(tools.KindUnsupported, "Tell the user.", "undo of shell commands is off, so an applied merge could not be undone; nothing was applied")
	}
	if c := p.Conflicts(); len(c) > 0 {
		return tools.Result{}, tools.Errorf(tools.KindExternalError, "Resolve the conflicts in the workspace or discard the merge.",
			"nothing was applied: %s in conflict (%s)", fileCount(len(c)), strings.Join(c, ", "))
	}
	for _, c := range p.changes {
		if err := ctx.Err(); err != nil {
			return tools.Result{}, err
		}
		now, err := readVersion(l.ws.Root(), c.rel)
		if err != nil || !now.same(c.theirs) {
			return tools.Result{}, &ChangedSince{Path: filepath.ToSlash(c.rel), err: tools.Errorf(tools.KindExternalError, "Propose the merge again.",
				"nothing was applied: %s changed in the workspace after the merge was shown", name(c.rel))}
		}
	}
	w := &writer{l: l, blobs: l.undo.Blobs}
	err := w.write(p.changes)
	undo, uerr := w.encode()
	if uerr != nil {
		undo = nil
	}
	files := len(w.gone.undo) + len(w.made.undo) + len(w.gone.links) + len(w.made.links)
	n := files + len(w.notCovered)
	plan := fmt.Sprintf("Undo restores the %s the merge changed in the workspace", fileCount(files))
	if w.folders > 0 {
		plan += " and " + folderModes(w.folders)
	}
	if len(w.notCovered) > 0 {
		plan += "; not covered: " + strings.Join(w.notCovered, ", ")
	}
	res := tools.Result{Undo: undo, UndoPlan: plan, Output: map[string]any{"files": p.Files()}}
	if err != nil {
		return res, tools.Errorf(tools.KindExternalError, "Tell the user: the workspace may hold part of the merge; /undo reverts what was applied.",
			"applying the merge failed part way: %v", err)
	}
	what := fileCount(n)
	switch {
	case w.folders > 0 && n == 0:
		what = folderModes(w.folders)
	case w.folders > 0:
		what += ", " + folderModes(w.folders)
	}
	res.Summary = "Merged the edit agent's change: " + what
	if len(w.notCovered) > 0 {
		res.Summary += " (partly reversible)"
	}
	return res, nil
}

// ChangedSince is Apply's error when the workspace changed after the
// merge was computed: nothing was applied, and proposing the merge again
// (Layer.Propose) merges against the workspace as it is now.
type ChangedSince struct {
	Path string // the first path found changed
	err  *tools.Error
}

func (e *ChangedSince) Error() string { return e.err.Error() }

// Unwrap gives the error the model reads.
func (e *ChangedSince) Unwrap() error { return e.err }

// ChangedSinceShown marks the error for callers that know it only by
// this method (the agent package).
func (e *ChangedSince) ChangedSinceShown() bool { return true }

func fileCount(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}

// writer applies changes and records their undo, in two steps of
// shell_run's undo format: what was removed (or replaced), then what was
// made or written. Reverted in the other order, a path that changed kind
// (a file that became a folder) is freed before its old self returns.
type writer struct {
	l          *Layer
	blobs      tools.BlobStore
	gone, made undoSet
	modes      []folderMode
	folders    int // existing folders whose mode changed
	notCovered []string
}

// undoSet is one step's changes.
type undoSet struct {
	undo    []tools.FileUndo
	created []builtin.ShellUndoDir
	removed []builtin.ShellUndoDir
	links   []builtin.ShellUndoLink
}

func (s undoSet) empty() bool {
	return len(s.undo)+len(s.created)+len(s.removed)+len(s.links) == 0
}

// write removes what goes (deepest first), makes the new folders
// (parents first), then writes files and links, and sets folders' modes
// last (a folder made read-only is filled first).
func (w *writer) write(changes []*change) error {
	byDepth := slices.Clone(changes)
	slices.SortStableFunc(byDepth, func(a, b *change) int {
		return strings.Count(b.rel, string(filepath.Separator)) - strings.Count(a.rel, string(filepath.Separator))
	})
	removedFile := map[string]bool{}
	for _, c := range byDepth {
		t, r := c.theirs, c.result
		if t.kind == 0 || r.kind == t.kind {
			continue
		}
		d, base, err := w.parent(c.rel)
		if err != nil {
			return err
		}
		switch t.kind {
		case 'd':
			if err := d.Remove(base); err != nil && !isNotEmpty(err) {
				d.Close()
				return err
			} else if err == nil {
				w.gone.removed = append(w.gone.removed, builtin.ShellUndoDir{Path: filepath.ToSlash(c.rel), Mode: uint32(t.mode.Perm())})
			}
		case 'f':
			before, err := w.state(t, c.rel)
			if err == nil {
				err = d.Remove(base)
			}
			if err != nil {
				d.Close()
				return err
			}
			if before != nil {
				w.gone.undo = append(w.gone.undo, tools.FileUndo{Path: filepath.ToSlash(c.rel), Before: *before})
			}
			removedFile[c.rel] = true
		case 'l':
			if err := d.Remove(base); err != nil {
				d.Close()
				return err
			}
			w.gone.links = append(w.gone.links, builtin.ShellUndoLink{Path: filepath.ToSlash(c.rel), Before: t.target})
		}
		d.Close()
	}
	var restrict []folderMode
	for _, c := range changes { // sorted: parents first
		if c.result.kind != 'd' || c.theirs.kind == 'd' {
			continue
		}
		d, base, err := w.parent(c.rel)
		if err != nil {
			return err
		}
		// Made open to its owner, so that what it holds can be written
		// (and, on undo, removed); its own mode is set last.
		perm := c.result.mode.Perm()
		err = d.Mkdir(base, perm|0o700)
		d.Close()
		if err != nil {
			return err
		}
		w.made.created = append(w.made.created, builtin.ShellUndoDir{Path: filepath.ToSlash(c.rel), Mode: uint32(perm | 0o700)})
		if perm != perm|0o700 {
			restrict = append(restrict, folderMode{Path: filepath.ToSlash(c.rel), Before: uint32(perm | 0o700), After: uint32(perm)})
		}
	}
	for _, c := range changes {
		r := c.result
		if r.kind != 'f' && r.kind != 'l' {
			continue
		}
		d, base, err := w.parent(c.rel)
		if err != nil {
			return err
		}
		if r.kind == 'l' {
			// A file it replaces was removed above, its undo recorded.
			err = builtin.ReplaceWithLink(d, base, r.target)
			d.Close()
			if err != nil {
				return err
			}
			link := builtin.ShellUndoLink{Path: filepath.ToSlash(c.rel), After: r.target}
			if c.theirs.kind == 'l' {
				link.Before = c.theirs.target
			}
			w.made.links = append(w.made.links, link)
			continue
		}
		fu := tools.FileUndo{Path: filepath.ToSlash(c.rel)}
		var before, after *tools.FileState
		if c.theirs.kind == 'f' && !removedFile[c.rel] {
			before, err = w.state(c.theirs, c.rel)
		} else {
			before = &tools.FileState{}
		}
		if err == nil {
			after, err = w.state(r, c.rel)
		}
		if err == nil {
			err = w.fill(d, base, c)
		}
		d.Close()
		if err != nil {
			return err
		}
		if before != nil && after != nil {
			fu.Before, fu.After = *before, *after
			w.made.undo = append(w.made.undo, fu)
		}
	}
	// Folders' modes, deepest first: a parent made read-only last.
	for _, c := range byDepth {
		if !c.modeChange() {
			continue
		}
		if err := w.chmod(c.rel, c.result.mode); err != nil {
			return err
		}
		w.modes = append(w.modes, folderMode{Path: filepath.ToSlash(c.rel), Before: uint32(c.theirs.mode), After: uint32(c.result.mode)})
		w.folders++
	}
	slices.Reverse(restrict) // made parents first: deepest first now
	for _, m := range restrict {
		if err := w.chmod(filepath.FromSlash(m.Path), fs.FileMode(m.After)); err != nil {
			return err
		}
		w.modes = append(w.modes, m)
	}
	return nil
}

// chmod sets the mode of the folder rel, reached as parent reaches it.
func (w *writer) chmod(rel string, mode fs.FileMode) error {
	d, base, err := w.parent(rel)
	if err != nil {
		return err
	}
	defer d.Close()
	return chmodFolder(d, base, mode)
}

// encode is the undo data of what was written: the steps in the order
// they were taken (Revert takes them back last first).
func (w *writer) encode() (json.RawMessage, error) {
	// Revert makes removed folders again in this order: parents first.
	slices.SortStableFunc(w.gone.removed, func(a, b builtin.ShellUndoDir) int { return len(a.Path) - len(b.Path) })
	var u mergeUndo
	notCovered := w.notCovered
	for _, s := range []undoSet{w.gone, w.made} {
		if s.empty() && notCovered == nil {
			continue
		}
		raw, err := builtin.EncodeShellUndo(s.undo, s.created, s.removed, s.links, notCovered)
		if err != nil {
			return nil, err
		}
		notCovered = nil
		u.Steps = append(u.Steps, mergeStep{Shell: raw})
	}
	if len(w.modes) > 0 {
		u.Steps = append(u.Steps, mergeStep{Modes: w.modes})
	}
	return json.Marshal(u)
}

// state is v as undo data, its content kept in the blob store; nil
// (and the path noted) when the content is too large to keep.
func (w *writer) state(v version, rel string) (*tools.FileState, error) {
	if !v.kept {
		w.notCovered = append(w.notCovered, name(rel)+" (over "+tools.HumanSize(maxKept)+")")
		return nil, nil
	}
	sum, err := w.blobs.Put(v.data)
	if err != nil {
		return nil, err
	}
	return &tools.FileState{Exists: true, SHA256: sum, Mode: uint32(v.mode.Perm())}, nil
}

// fill writes the merged file: its content, or a large one copied from
// the layer (when it must still be the version merged).
func (w *writer) fill(d *os.Root, base string, c *change) error {
	r := c.result
	return builtin.AtomicFill(d, base, r.mode, func(out io.Writer) error {
		if r.kept {
			_, err := out.Write(r.data)
			return err
		}
		f, err := w.l.view.Root().OpenFile(c.rel, os.O_RDONLY, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		if fi, err := f.Stat(); err != nil || !os.SameFile(fi, c.ours.info) {
			return fmt.Errorf("the layer's %s changed after the merge was shown", name(c.rel))
		}
		_, err = io.Copy(out, f)
		return err
	})
}

// parent opens the folder that holds rel, one name at a time from the
// workspace root: each must be a folder, not a link, and the one opened
// must be the one looked at. Missing folders are made (and recorded).
func (w *writer) parent(rel string) (*os.Root, string, error) {
	segs := strings.Split(rel, string(filepath.Separator))
	cur, err := w.l.ws.Root().OpenRoot(".")
	if err != nil {
		return nil, "", err
	}
	for i, seg := range segs[:len(segs)-1] {
		fi, err := cur.Lstat(seg)
		if errors.Is(err, fs.ErrNotExist) {
			if err = cur.Mkdir(seg, 0o755); err == nil {
				w.made.created = append(w.made.created, builtin.ShellUndoDir{Path: strings.Join(segs[:i+1], "/"), Mode: 0o755})
				fi, err = cur.Lstat(seg)
			}
		}
		if err == nil && !fi.IsDir() {
			err = fmt.Errorf("%s is not a folder in the workspace any more", name(filepath.Join(segs[:i+1]...)))
		}
		var next *os.Root
		if err == nil {
			next, err = cur.OpenRoot(seg)
		}
		if err == nil {
			if st, serr := next.Stat("."); serr != nil || !os.SameFile(st, fi) {
				next.Close()
				err = fmt.Errorf("%s changed in the workspace while the merge was applied", name(filepath.Join(segs[:i+1]...)))
			}
		}
		cur.Close()
		if err != nil {
			return nil, "", err
		}
		cur = next
	}
	return cur, segs[len(segs)-1], nil
}

func isNotEmpty(err error) bool {
	return err != nil && (errors.Is(err, fs.ErrExist) || bytes.Contains([]byte(err.Error()), []byte("not empty")))
}
