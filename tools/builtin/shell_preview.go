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
	"myclaw/tools/termtext"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
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

type fileStamp struct {
	exists bool
	size   int64
	mod    time.Time
	mode   fs.FileMode
}

func stampOf(path string) fileStamp {
	fi, err := os.Lstat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{exists: true, size: fi.Size(), mod: fi.ModTime(), mode: fi.Mode()}
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
			r.skipped = append(r.skipped, previewName(rel)+" is "+fsKindName(mode)+": only files, folders and links are applied")
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
	rel := filepath.ToSlash(c.rel)
	return rel == ".myclaw.toml" || decidesWhatGitRuns(rel, c.now) || r.inBareGitDir(rel) || r.ws.isProtected(rel)
}

// inBareGitDir reports whether rel decides what git runs in a folder git
// would take for a git directory when run inside it (a bare repository:
// a HEAD, and refs or a commondir), before or after the command: the
// folder's config, config.worktree, commondir, gitdir, hooks or info; or
// its HEAD or refs, when they would make a folder with a config or hooks
// a repository. A folder named .git is decidesWhatGitRuns' (its refs are
// applied). Either view counts, to fail closed: what the command left in
// the layer, and what the workspace holds.
func (r *PreviewRun) inBareGitDir(rel string) bool {
	exists := func(p string) bool {
		if _, err := r.layer.Lstat(p); err == nil {
			return true
		}
		_, err := r.ws.Root().Lstat(p)
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

// Bounds of the report: each file is read for its diff up to
// previewFileBytes, all files together up to previewReadBytes; one file's
// diff text is cut at previewDiffBytes, and past previewReportBytes the
// changes are only named, up to previewNamed of them.
const (
	previewFileBytes   = 1 << 20
	previewReadBytes   = 64 << 20
	previewDiffBytes   = 16 << 10
	previewReportBytes = 1 << 20
	previewNamed       = 2000
)

// describe writes the pane's summary and report.
func (r *PreviewRun) describe(ctx context.Context) error {
	var a shellArgs
	json.Unmarshal(r.raw, &a)
	out, _ := r.result.Output.(shellOutput)
	counts := map[byte]int{}
	for _, c := range r.changes {
		if !isFolder(c.now) {
			counts[c.kind]++
		}
	}
	change := "changes nothing in the workspace"
	if n := counts['A'] + counts['M'] + counts['D']; n > 0 {
		r.counts = fsCount(n, "file") + shellCounts([3]int{counts['M'], counts['A'], counts['D']})
		change = "would change " + r.counts
	}
	r.command, r.exit = tools.ClipOneLine(a.Command, 60), out.ExitCode
	r.summary = fmt.Sprintf("Previewed `%s`: exit %d, %s", r.command, out.ExitCode, change)
	var b strings.Builder
	fmt.Fprintf(&b, "$ %s\nran once in a preview: no network, its writes in a scratch layer over the workspace\nexit %d in %d ms\n", tools.ClipOneLine(a.Command, 2000), out.ExitCode, out.DurationMS)
	if out.Note != "" {
		fmt.Fprintf(&b, "note: %s\n", out.Note)
	}
	if body := strings.TrimRight(r.result.Body, "\n"); body != "" {
		lines := strings.Split(body, "\n")
		if len(lines) > 30 {
			lines = append(lines[:12], append([]string{fmt.Sprintf("… %d lines …", len(lines)-24)}, lines[len(lines)-12:]...)...)
		}
		b.WriteString("\noutput:\n")
		for _, l := range lines {
			b.WriteString("  " + l + "\n")
		}
	}
	fmt.Fprintf(&b, "\nIt %s. Approve applies exactly that (journaled: /undo reverts it); deny discards it.\n", change)
	for _, s := range r.skipped {
		fmt.Fprintf(&b, "not applied: %s\n", s)
	}
	budget := int64(previewReadBytes)
	for i, c := range r.changes {
		if err := ctx.Err(); err != nil {
			return err
		}
		if i == previewNamed {
			fmt.Fprintf(&b, "\n… and %d more changes, not listed\n", len(r.changes)-i)
			break
		}
		if b.Len() > previewReportBytes {
			fmt.Fprintf(&b, "%c %s\n", c.kind, previewName(c.rel))
			continue
		}
		b.WriteString("\n")
		r.describeOne(&b, c, &budget)
	}
	r.report = strings.TrimRight(b.String(), "\n")
	return nil
}

// describeOne writes one change: what kind of thing it is, its mode when
// that changed or is notable, and the diff of its content.
func (r *PreviewRun) describeOne(b *strings.Builder, c layerChange, budget *int64) {
	name := previewName(c.rel)
	switch {
	case isFolder(c.now):
		fmt.Fprintf(b, "A %s/ (folder)\n", name)
		if m := c.now.Mode(); m&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0 {
			fmt.Fprintf(b, "mode %s\n", unixMode(m))
		}
		return
	case c.kind == 'D' && isFolder(c.was):
		fmt.Fprintf(b, "D %s/ (folder, with all it holds)\n", name)
		return
	case c.kind == 'D' && c.was.Mode()&fs.ModeSymlink != 0:
		old, _ := r.ws.Root().Readlink(c.rel)
		fmt.Fprintf(b, "D %s (link -> %s)\n", name, previewTarget(old))
		return
	case c.kind == 'D' && !c.was.Mode().IsRegular():
		fmt.Fprintf(b, "D %s (%s)\n", name, fsKindName(c.was.Mode()))
		return
	case c.now != nil && c.now.Mode()&fs.ModeSymlink != 0:
		fmt.Fprintf(b, "L %s -> %s", name, previewTarget(c.target))
		if c.was != nil {
			if c.was.Mode()&fs.ModeSymlink != 0 {
				old, _ := r.ws.Root().Readlink(c.rel)
				fmt.Fprintf(b, " (was -> %s)", previewTarget(old))
			} else {
				fmt.Fprintf(b, " (replaces %s of %d bytes)", describeKind(c.was.Mode()), c.was.Size())
			}
		}
		b.WriteString("\n")
		if linkLeadsOut(c.rel, c.target) {
			fmt.Fprintf(b, "⚠ %s: the link leads outside the workspace\n", name)
		}
		return
	}
	fmt.Fprintf(b, "%c %s\n", c.kind, name)
	if c.was != nil && !c.was.Mode().IsRegular() && c.kind != 'D' {
		fmt.Fprintf(b, "(replaces %s)\n", describeKind(c.was.Mode()))
	}
	if c.now != nil {
		newMode := c.now.Mode()
		switch {
		case c.was != nil && c.was.Mode().IsRegular() && c.was.Mode() != newMode:
			fmt.Fprintf(b, "mode %s → %s\n", unixMode(c.was.Mode()), unixMode(newMode))
		case c.was == nil && newMode.Perm() != 0o644, newMode&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0:
			fmt.Fprintf(b, "mode %s\n", unixMode(newMode))
		}
		if newMode&fs.ModeSetuid != 0 {
			fmt.Fprintf(b, "⚠ %s: setuid: it would run as its owner, whoever starts it\n", name)
		}
		if newMode&fs.ModeSetgid != 0 {
			fmt.Fprintf(b, "⚠ %s: setgid: it would run with its group's rights, whoever starts it\n", name)
		}
	}
	var old, now []byte
	oldName, newName := "a/"+filepath.ToSlash(name), "b/"+filepath.ToSlash(name)
	var big []string
	read := func(root *os.Root, fi fs.FileInfo, what string) []byte {
		if fi == nil || !fi.Mode().IsRegular() {
			return nil
		}
		if fi.Size() > previewFileBytes || fi.Size() > *budget {
			big = append(big, fmt.Sprintf("%s, %d bytes", what, fi.Size()))
			return nil
		}
		data, err := readBounded(root, c.rel, fi)
		*budget -= int64(len(data))
		if err != nil {
			fmt.Fprintf(b, "(%s version unreadable: %s)\n", what, wsStripRoot(err.Error(), r.ws.Dir()))
		}
		return data
	}
	switch c.kind {
	case 'A':
		oldName = "/dev/null"
		now = read(r.layer, c.now, "new")
	case 'D':
		newName = "/dev/null"
		old = read(r.ws.Root(), c.was, "deleted")
	default:
		old, now = read(r.ws.Root(), c.was, "old"), read(r.layer, c.now, "new")
	}
	if len(big) > 0 {
		verb := "changed"
		switch c.kind {
		case 'A':
			verb = "new"
		case 'D':
			verb = "deleted"
		}
		size := c.now
		if size == nil {
			size = c.was
		}
		fmt.Fprintf(b, "%s, %d bytes, too large to diff\n", verb, size.Size())
		return
	}
	if c.kind == 'A' && now == nil {
		now = []byte{}
	}
	d := tools.Diff(oldName, newName, old, now).Text()
	if len(d) > previewDiffBytes {
		d = tools.CutUTF8(d, previewDiffBytes) + "\n… (diff cut)\n"
	}
	b.WriteString(d)
}

func describeKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a link"
	case m.IsRegular():
		return "a file"
	}
	return fsKindName(m)
}

// readBounded reads the regular file rel of root that fi describes, up to
// previewFileBytes.
func readBounded(root *os.Root, rel string, fi fs.FileInfo) ([]byte, error) {
	f, err := openRegular(root, rel, fi)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, previewFileBytes))
	return data, err
}

// previewName is a path as the report shows it: every control and
// invisible character escaped, a line break and a tab too, so that a
// name cannot make a line of its own.
func previewName(rel string) string {
	return strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(termtext.Visible(filepath.ToSlash(rel)))
}

// previewTarget is a link's target as the report shows it.
func previewTarget(t string) string { return tools.Clip(previewName(t), 300) }

// linkLeadsOut reports whether the link rel, pointing at target, leads
// out of the workspace (an absolute target, or one that climbs out).
func linkLeadsOut(rel, target string) bool {
	if filepath.IsAbs(target) {
		return true
	}
	t := filepath.Join(filepath.Dir(rel), target)
	return t == ".." || strings.HasPrefix(t, ".."+string(filepath.Separator))
}

// unixMode is the permission bits with setuid, setgid and sticky, in the
// octal chmod takes (4755).
func unixMode(m fs.FileMode) string {
	n := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		n |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		n |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		n |= 0o1000
	}
	return fmt.Sprintf("%04o", n)
}

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
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	os.RemoveAll(dir)
}
