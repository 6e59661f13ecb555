package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"myclaw/tools"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// PreviewSandbox is a Sandbox that can also run a command over a
// copy-on-write layer of the workspace (package sandbox, on Linux).
type PreviewSandbox interface {
	ConfinePreview(cmd *exec.Cmd, upper, work string) (finish func(stderr string) (confinement, note string), err error)
}

// PreviewRun is a call that ran in a scratch layer: what it printed, and
// what it would change in the workspace.
type PreviewRun struct {
	raw     json.RawMessage
	scratch string
	upper   string
	// layer is the upper layer opened as a root: what the command left
	// there is read through it, so no link it made leads out.
	layer   *os.Root
	ws      *Workspace
	result  tools.Result
	changes []layerChange
	// skipped are what is never applied, with why (protected paths,
	// special files).
	skipped []string
	// seen is what each path the preview looked at was in the workspace
	// (nil: missing, or behind something that is not a folder), every
	// folder on the way included: applying checks them all again.
	seen map[string]fs.FileInfo
	// summary and report are for the approval pane: one line, and the
	// output with the diff of every change.
	summary string
	report  string
	// command, exit and counts make the applied call's summary.
	command string
	exit    int
	counts  string
}

// layerChange is one path the command changed in the layer.
type layerChange struct {
	rel  string
	kind byte // 'A' created, 'M' modified, 'D' deleted
	// now is the layer's version (nil for a deletion), was the
	// workspace's when the preview ended (nil: there was none).
	now, was fs.FileInfo
	// target is the link now is, as shown.
	target string
}

// Summary implements Preview.
func (r *PreviewRun) Summary() string { return r.summary }

// Report implements Preview.
func (r *PreviewRun) Report() string { return r.report }

// previewedFrom returns the approved preview ctx carries for this call.
func previewedFrom(ctx context.Context, raw json.RawMessage) *PreviewRun {
	run, _ := tools.PreviewedFrom(ctx).(*PreviewRun)
	if run == nil || !bytes.Equal(run.raw, raw) {
		return nil
	}
	return run
}

// CanPreview implements Previewer.
func (s *shellRun) CanPreview(raw json.RawMessage) string {
	a, _, err := s.parse(raw)
	switch {
	case err != nil:
		return err.Error()
	case a.Background:
		return "a background job is not previewed: it runs until stopped"
	case s.opts.Undo == nil:
		return "undo of shell commands is off, so an applied preview could not be undone"
	}
	if _, ok := s.opts.Sandbox.(PreviewSandbox); !ok || s.opts.Sandbox == nil {
		return "there is no sandbox that can run a preview here"
	}
	return ""
}

// Preview implements Previewer: it runs the command once, confined and
// without network, over a copy-on-write layer of the workspace. Reading
// what it changed stops when ctx ends.
func (s *shellRun) Preview(ctx context.Context, raw json.RawMessage) (tools.Preview, error) {
	if why := s.CanPreview(raw); why != "" {
		return nil, tools.Errorf(tools.KindUnsupported, "Run it without a preview, or not at all.", "cannot preview: %s", why)
	}
	scratch, err := os.MkdirTemp("", "myclaw-preview-")
	if err != nil {
		return nil, fmt.Errorf("make the preview layer: %w", err)
	}
	upper, work := filepath.Join(scratch, "upper"), filepath.Join(scratch, "work")
	for _, d := range []string{upper, work} {
		if err := os.Mkdir(d, 0o700); err != nil {
			removeScratch(scratch)
			return nil, fmt.Errorf("make the preview layer: %w", err)
		}
	}
	layer := &previewLayer{sb: s.opts.Sandbox.(PreviewSandbox), upper: upper, work: work}
	res, err := s.execute(ctx, raw, layer)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		removeScratch(scratch)
		return nil, err
	}
	run := &PreviewRun{raw: slices.Clone(raw), scratch: scratch, upper: upper, ws: s.opts.Undo.Workspace, result: res, seen: map[string]fs.FileInfo{}}
	if run.layer, err = os.OpenRoot(upper); err == nil {
		err = run.read(ctx)
	}
	if err == nil {
		err = run.describe(ctx)
	}
	if err != nil {
		run.Discard()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("read what the preview changed: %w", err)
	}
	return run, nil
}

// previewLayer confines a preview run over the layer.
type previewLayer struct {
	sb          PreviewSandbox
	upper, work string
}

func (l *previewLayer) confine(cmd *exec.Cmd) (*confinedRun, error) {
	finish, err := l.sb.ConfinePreview(cmd, l.upper, l.work)
	if err != nil {
		return nil, tools.Errorf(tools.KindUnsupported, "Run it without a preview.", "the preview could not start: %v", err)
	}
	return &confinedRun{finish: finish}, nil
}

// lower is what rel is in the workspace, reached one name at a time
// without following a link: nil when it is missing or a name on the way
// is not a folder. Every answer is kept in seen.
func (r *PreviewRun) lower(rel string) fs.FileInfo {
	return lowerStat(r.ws.Root(), rel, r.seen)
}

// lowerStat is lower with its own memo: applying walks the paths afresh.
func lowerStat(root *os.Root, rel string, memo map[string]fs.FileInfo) fs.FileInfo {
	if fi, ok := memo[rel]; ok {
		return fi
	}
	var fi fs.FileInfo
	if parent := filepath.Dir(rel); parent == "." || isFolder(lowerStat(root, parent, memo)) {
		fi, _ = root.Lstat(rel)
	}
	memo[rel] = fi
	return fi
}

func isFolder(fi fs.FileInfo) bool { return fi != nil && fi.IsDir() }

// read walks the upper layer: a file there is new or changed, a whiteout
// is a deletion, and an opaque directory replaced the one below it. It is
// not a listing of the workspace (tools/walk): every change counts, to
// files git ignores too.
func (r *PreviewRun) read(ctx context.Context) error {
	add := func(c layerChange) {
		if r.neverApplied(c) {
			r.skipped = append(r.skipped, previewName(c.rel)+" is protected")
			return
		}
		r.changes = append(r.changes, c)
	}
	deleteBelow := func(rel string, keep map[string]bool) error {
		var dir fs.FileInfo
		if rel == "." {
			dir, _ = r.ws.Root().Stat(".")
		} else {
			dir = r.lower(rel)
		}
		if !isFolder(dir) {
			return nil
		}
		entries, err := readFolder(r.ws.Root(), rel, dir)
		if err != nil {
			return nil // it is not there to delete from
		}
		for _, name := range entries {
			if err := ctx.Err(); err != nil {
				return err
			}
			if child := filepath.Join(rel, name); !keep[name] {
				add(layerChange{rel: child, kind: 'D', was: r.lower(child)})
			}
		}
		return nil
	}
	return filepath.WalkDir(r.upper, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(r.upper, p)
		if rel == "." {
			if isOpaque(p) {
				return deleteBelow(".", upperNames(p))
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		lower := r.lower(rel)
		switch mode := info.Mode(); {
		case isWhiteout(info):
			if lower != nil {
				add(layerChange{rel: rel, kind: 'D', was: lower})
			}
		case d.IsDir():
			if !isFolder(lower) {
				if lower != nil {
					add(layerChange{rel: rel, kind: 'D', was: lower})
				}
				add(layerChange{rel: rel, kind: 'A', now: info})
			} else if isOpaque(p) {
				return deleteBelow(rel, upperNames(p))
			}
		case mode.IsRegular() || mode&fs.ModeSymlink != 0:
			c := layerChange{rel: rel, kind: 'A', now: info}
			if mode&fs.ModeSymlink != 0 {
				if c.target, err = r.layer.Readlink(rel); err != nil {
					return err
				}
			}
			if lower != nil {
				if lower.IsDir() {
					add(layerChange{rel: rel, kind: 'D', was: lower})
				} else {
					c.kind, c.was = 'M', lower
					same, err := r.sameAsBelow(ctx, c)
					if err != nil {
						return err
					}
					if same {
						return nil // copied up, but the same
					}
				}
			}
			add(c)
		default:
			// A pipe, socket or device the command made: never read,
			// never applied.
			r.skipped = append(r.skipped, previewName(rel)+" is "+tools.FileKind(mode)+": only files, folders and links are applied")
		}
		return nil
	})
}

// readFolder lists the folder rel of root, which must still be want.
func readFolder(root *os.Root, rel string, want fs.FileInfo) ([]string, error) {
	f, err := root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !os.SameFile(fi, want) {
		return nil, fmt.Errorf("%s changed while it was read", rel)
	}
	return f.Readdirnames(-1)
}

func upperNames(dir string) map[string]bool {
	names := map[string]bool{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		names[e.Name()] = true
	}
	return names
}

// sameAsBelow reports whether the layer's version of a file is the
// workspace's: a file opened for writing is copied up even unchanged.
// Contents are compared a piece at a time, never held whole.
func (r *PreviewRun) sameAsBelow(ctx context.Context, c layerChange) (bool, error) {
	if c.was.Mode() != c.now.Mode() {
		return false, nil
	}
	if c.now.Mode()&fs.ModeSymlink != 0 {
		old, err := r.ws.Root().Readlink(c.rel)
		return err == nil && old == c.target, nil
	}
	if c.was.Size() != c.now.Size() {
		return false, nil
	}
	a, err := openRegular(r.ws.Root(), c.rel, c.was)
	if err != nil {
		return false, nil
	}
	defer a.Close()
	b, err := openRegular(r.layer, c.rel, c.now)
	if err != nil {
		return false, err
	}
	defer b.Close()
	x, y := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		n, errA := io.ReadFull(a, x)
		m, errB := io.ReadFull(b, y)
		if n != m || !bytes.Equal(x[:n], y[:m]) {
			return false, nil
		}
		if errA != nil || errB != nil {
			return errors.Is(errA, io.EOF) || errors.Is(errA, io.ErrUnexpectedEOF), nil
		}
	}
}

// openRegular opens rel in root for reading only when it is the regular
// file want describes (the same inode, not a link, pipe or device), never
// waiting on it.
func openRegular(root *os.Root, rel string, want fs.FileInfo) (*os.File, error) {
	if want == nil || !want.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && (!fi.Mode().IsRegular() || !os.SameFile(fi, want)) {
		err = fmt.Errorf("%s changed while it was read", rel)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// neverApplied are the paths a preview's result never writes: what the
// sandbox protects (hooks and config run code), and myclaw's own files.
func (r *PreviewRun) neverApplied(c layerChange) bool {
	return NeverApplied(r.ws, r.layer, c.rel, c.now)
}

// NeverApplied reports whether rel (from a copy-on-write layer over ws, open
// as layer; now is its version there, nil for a deletion) is a path no
// layer's change may write to ws: myclaw's own files, the workspace's
// config, and what decides what git runs.
func NeverApplied(ws *Workspace, layer *os.Root, rel string, now fs.FileInfo) bool {
	rel = filepath.ToSlash(rel)
	return rel == ".myclaw.toml" || decidesWhatGitRuns(rel, now) || inBareGitDir(ws, layer, rel) || ws.isProtected(rel)
}

// inBareGitDir reports whether rel decides what git runs in a folder git
// would take for a git directory when run inside it (a bare repository:
// a HEAD, and refs or a commondir), before or after the command: the
// folder's config, config.worktree, commondir, gitdir, hooks or info; or
// its HEAD or refs, when they would make a folder with a config or hooks
// a repository. A folder named .git is decidesWhatGitRuns' (its refs are
// applied). Either view counts, to fail closed: what the command left in
// the layer, and what the workspace holds.
func inBareGitDir(ws *Workspace, layer *os.Root, rel string) bool {
	exists := func(p string) bool {
		if _, err := layer.Lstat(p); err == nil {
			return true
		}
		_, err := ws.Root().Lstat(p)
		return err == nil
	}
	gitDir := func(d string) bool {
		return exists(path.Join(d, "HEAD")) && (exists(path.Join(d, "refs")) || exists(path.Join(d, "commondir")))
	}
	segs := strings.Split(rel, "/")
	for i, seg := range segs {
		d := path.Join(append([]string{"."}, segs[:i]...)...)
		if strings.EqualFold(path.Base(d), ".git") {
			continue
		}
		switch strings.ToLower(seg) {
		case "config", "config.worktree", "commondir", "gitdir", "hooks", "info":
			if gitDir(d) {
				return true
			}
		case "head", "refs":
			if gitDir(d) && (exists(path.Join(d, "config")) || exists(path.Join(d, "config.worktree")) || exists(path.Join(d, "hooks"))) {
				return true
			}
		}
	}
	return false
}

// decidesWhatGitRuns reports whether rel, in any repository of the
// workspace (nested ones and ones the command made too), is a file git
// reads for what to run or where its directory is: below a .git folder,
// its config, config.worktree, commondir, gitdir, hooks and info (also of
// modules and worktrees); and a .git that is not a folder (a gitdir
// pointer). Applying one would let a confined command choose what git
// runs later with the user's rights. A ref of the same name is left out
// too: failing closed costs nothing there.
func decidesWhatGitRuns(rel string, now fs.FileInfo) bool {
	segs := strings.Split(rel, "/")
	for i, seg := range segs {
		if !strings.EqualFold(seg, ".git") {
			continue
		}
		if i == len(segs)-1 {
			return !isFolder(now)
		}
		for _, s := range segs[i+1:] {
			switch strings.ToLower(s) {
			case "config", "config.worktree", "commondir", "gitdir", "hooks", "info":
				return true
			}
		}
	}
	return false
}
