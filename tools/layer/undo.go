package layer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"myclaw/tools"
	"myclaw/tools/builtin"
)

// mergeUndo is an applied merge's undo data: its steps in the order they
// were taken, each taken back last first.
type mergeUndo struct {
	Steps []mergeStep `json:"merge_steps"`
}

// mergeStep is one step: changes in shell_run's undo format, or folders'
// modes.
type mergeStep struct {
	Shell json.RawMessage `json:"shell,omitempty"`
	Modes []folderMode    `json:"folder_modes,omitempty"`
}

// folderMode is a folder's mode before and after the merge (fs.FileMode
// permission bits, setuid, setgid and sticky included).
type folderMode struct {
	Path   string `json:"path"`
	Before uint32 `json:"before"`
	After  uint32 `json:"after"`
}

// Revert takes back an applied merge from its undo data (Apply's
// Result.Undo), with u, the undo of shell commands it was applied with;
// the redo data it returns is of the same format. The merge's steps are
// taken back last first. When one cannot be, the steps already taken back
// are done again, so that the workspace is left as it was, and the error
// says why. Undo data in shell_run's own format (merges applied before
// folder modes were kept) goes to u as it is.
func Revert(u *builtin.ShellUndo) func(ctx context.Context, undo json.RawMessage, force bool) (json.RawMessage, error) {
	return func(ctx context.Context, undo json.RawMessage, force bool) (json.RawMessage, error) {
		if u == nil {
			return nil, errors.New("revert: shell commands are not tracked for undo in this configuration")
		}
		var probe map[string]json.RawMessage
		if err := json.Unmarshal(undo, &probe); err != nil {
			return nil, fmt.Errorf("%w: %w", tools.ErrCorruptUndo, err)
		}
		if _, ok := probe["merge_steps"]; !ok {
			return u.Revert(ctx, undo, force)
		}
		var m mergeUndo
		dec := json.NewDecoder(bytes.NewReader(undo))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&m); err != nil {
			return nil, fmt.Errorf("%w: %w", tools.ErrCorruptUndo, err)
		}
		r := reverter{u: u}
		if err := r.check(m); err != nil {
			return nil, err
		}
		redo := mergeUndo{Steps: make([]mergeStep, 0, len(m.Steps))}
		for i := len(m.Steps) - 1; i >= 0; i-- {
			back, err := r.step(ctx, m.Steps[i], force)
			if err != nil {
				return nil, r.putBack(ctx, redo.Steps, err)
			}
			redo.Steps = append(redo.Steps, back)
		}
		return json.Marshal(redo)
	}
}

type reverter struct{ u *builtin.ShellUndo }

// check refuses undo data naming a folder that is not a clean path in the
// workspace, or a mode beyond permission bits.
func (r reverter) check(m mergeUndo) error {
	const modeBits = uint32(fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	for _, s := range m.Steps {
		if (len(s.Shell) == 0) == (len(s.Modes) == 0) {
			return fmt.Errorf("%w: a merge step holds neither changes nor folder modes, or both", tools.ErrCorruptUndo)
		}
		for _, f := range s.Modes {
			if rel, err := r.u.Workspace.Rel(f.Path); err != nil || rel != f.Path || rel == "." || f.Before&^modeBits != 0 || f.After&^modeBits != 0 {
				return fmt.Errorf("%w: folder %q is not a clean path inside the workspace, or its mode is not a mode", tools.ErrCorruptUndo, f.Path)
			}
		}
	}
	return nil
}

// step takes one step back and returns its redo.
func (r reverter) step(ctx context.Context, s mergeStep, force bool) (mergeStep, error) {
	if len(s.Shell) > 0 {
		back, err := r.u.Revert(ctx, s.Shell, force)
		return mergeStep{Shell: back}, err
	}
	root := r.u.Workspace.Root()
	if !force {
		for _, f := range s.Modes {
			fi, err := root.Lstat(filepath.FromSlash(f.Path))
			switch {
			case err != nil:
				return mergeStep{}, &tools.Conflict{What: f.Path, Detail: "the folder whose mode the merge set is gone; nothing was restored"}
			case !fi.IsDir():
				return mergeStep{}, &tools.Conflict{What: f.Path, Detail: "it is no longer a folder; nothing was restored"}
			case uint32(perm(fi.Mode())) != f.After && uint32(perm(fi.Mode())) != f.Before:
				return mergeStep{}, &tools.Conflict{What: f.Path, Detail: fmt.Sprintf("its mode is now %04o, not the %04o the merge set; nothing was restored", perm(fi.Mode()), fs.FileMode(f.After))}
			}
		}
	}
	back := mergeStep{Modes: make([]folderMode, 0, len(s.Modes))}
	for i := len(s.Modes) - 1; i >= 0; i-- {
		f := s.Modes[i]
		if err := chmodFolder(root, filepath.FromSlash(f.Path), fs.FileMode(f.Before)); err != nil {
			return back, fmt.Errorf("restore the mode of %s: %w", name(f.Path), err)
		}
		back.Modes = append(back.Modes, folderMode{Path: f.Path, Before: f.After, After: f.Before})
	}
	return back, nil
}

// putBack does again the steps taken back before one failed (done, in the
// order they were taken back), so the workspace is as it was; the error
// says what failed and that nothing changed, or, if putting back failed
// too, that the workspace holds part of the undo.
func (r reverter) putBack(ctx context.Context, done []mergeStep, failed error) error {
	for i := len(done) - 1; i >= 0; i-- {
		if _, err := r.step(ctx, done[i], false); err != nil {
			return fmt.Errorf("taking back the merge failed part way (%w), and what was taken back could not be put back (%w): the workspace holds part of the undo", failed, err)
		}
	}
	if len(done) == 0 {
		return failed
	}
	const kept = "; what was taken back was put back, so the workspace is as it was"
	var c *tools.Conflict
	if errors.As(failed, &c) {
		cc := *c
		cc.Detail = strings.TrimSuffix(cc.Detail, "; nothing was restored") + kept
		return &cc
	}
	return fmt.Errorf("%w%s", failed, kept)
}
