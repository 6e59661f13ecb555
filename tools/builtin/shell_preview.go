package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"myclaw/internal/durable"
	"myclaw/tools"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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
	ws      *Workspace
	result  tools.Result
	changes []layerChange
	// skipped are changes that are never applied (protected paths).
	skipped []string
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
	// upper is the new version in the layer ("" for a deletion); mode
	// its file mode; stamp the workspace's version when the preview ended,
	// so that applying refuses what changed since.
	upper string
	mode  fs.FileMode
	stamp fileStamp
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
// without network, over a copy-on-write layer of the workspace.
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
	if err != nil {
		removeScratch(scratch)
		return nil, err
	}
	run := &PreviewRun{raw: slices.Clone(raw), scratch: scratch, upper: upper, ws: s.opts.Undo.Workspace, result: res}
	if err := run.read(); err != nil {
		removeScratch(scratch)
		return nil, fmt.Errorf("read what the preview changed: %w", err)
	}
	run.describe(s)
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

// read walks the upper layer: a file there is new or changed, a whiteout
// is a deletion, and an opaque directory replaced the one below it.
func (r *PreviewRun) read() error {
	ws := r.ws.Dir()
	add := func(c layerChange) {
		if r.neverApplied(c.rel) {
			r.skipped = append(r.skipped, c.rel)
			return
		}
		c.stamp = stampOf(filepath.Join(ws, c.rel))
		r.changes = append(r.changes, c)
	}
	var deleteBelow func(rel string, keep map[string]bool) error
	deleteBelow = func(rel string, keep map[string]bool) error {
		entries, err := os.ReadDir(filepath.Join(ws, rel))
		if err != nil {
			return nil
		}
		for _, e := range entries {
			if !keep[e.Name()] {
				add(layerChange{rel: filepath.Join(rel, e.Name()), kind: 'D'})
			}
		}
		return nil
	}
	return filepath.WalkDir(r.upper, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
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
		lower, lerr := os.Lstat(filepath.Join(ws, rel))
		switch {
		case isWhiteout(info):
			if lerr == nil {
				add(layerChange{rel: rel, kind: 'D'})
			}
		case d.IsDir():
			if lerr != nil || !lower.IsDir() {
				if lerr == nil {
					add(layerChange{rel: rel, kind: 'D'})
				}
				add(layerChange{rel: rel, kind: 'A', upper: p, mode: info.Mode()})
			} else if isOpaque(p) {
				return deleteBelow(rel, upperNames(p))
			}
		default:
			kind := byte('A')
			if lerr == nil {
				kind = 'M'
				if lower.IsDir() {
					add(layerChange{rel: rel, kind: 'D'})
					kind = 'A'
				} else if sameFile(filepath.Join(ws, rel), p, lower, info) {
					return nil // copied up, but the same
				}
			}
			add(layerChange{rel: rel, kind: kind, upper: p, mode: info.Mode()})
		}
		return nil
	})
}

func upperNames(dir string) map[string]bool {
	names := map[string]bool{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		names[e.Name()] = true
	}
	return names
}

// sameFile reports whether the layer's version of a file is the
// workspace's: a file opened for writing is copied up even unchanged.
func sameFile(a, b string, ai, bi fs.FileInfo) bool {
	if ai.Mode() != bi.Mode() || ai.Size() != bi.Size() {
		return false
	}
	if ai.Mode()&fs.ModeSymlink != 0 {
		x, _ := os.Readlink(a)
		y, _ := os.Readlink(b)
		return x == y
	}
	x, err1 := os.ReadFile(a)
	y, err2 := os.ReadFile(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// neverApplied are the paths a preview's result never writes: what the
// sandbox protects (hooks and config run code), and myclaw's own files.
func (r *PreviewRun) neverApplied(rel string) bool {
	rel = filepath.ToSlash(rel)
	for _, p := range []string{".myclaw.toml", ".git/hooks", ".git/config"} {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return r.ws.isProtected(rel)
}

// previewDiffBytes bounds the diff text of one file in the report.
const previewDiffBytes = 16 << 10

// describe writes the pane's summary and report.
func (r *PreviewRun) describe(s *shellRun) {
	var a shellArgs
	json.Unmarshal(r.raw, &a)
	out, _ := r.result.Output.(shellOutput)
	counts := map[byte]int{}
	for _, c := range r.changes {
		if c.upper == "" || !c.mode.IsDir() {
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
	for _, rel := range r.skipped {
		fmt.Fprintf(&b, "not applied: %s is protected\n", rel)
	}
	for _, c := range r.changes {
		if c.upper != "" && c.mode.IsDir() {
			fmt.Fprintf(&b, "\nA %s/ (folder)\n", filepath.ToSlash(c.rel))
			continue
		}
		fmt.Fprintf(&b, "\n%c %s\n", c.kind, filepath.ToSlash(c.rel))
		old, _ := os.ReadFile(filepath.Join(r.ws.Dir(), c.rel))
		var now []byte
		if c.upper != "" {
			now, _ = os.ReadFile(c.upper)
		}
		oldName, newName := "a/"+filepath.ToSlash(c.rel), "b/"+filepath.ToSlash(c.rel)
		switch c.kind {
		case 'A':
			old, oldName = nil, "/dev/null"
		case 'D':
			newName = "/dev/null"
		}
		d := tools.Diff(oldName, newName, old, now).Text()
		if len(d) > previewDiffBytes {
			d = d[:previewDiffBytes] + "\n… (diff cut)\n"
		}
		b.WriteString(d)
	}
	r.report = strings.TrimRight(b.String(), "\n")
}

// Discard drops the scratch layer: nothing of the run reaches the workspace.
func (r *PreviewRun) Discard() {
	if r != nil {
		removeScratch(r.scratch)
	}
}

// apply writes the preview's changes into the workspace, journaled like a
// command's own (the capture around it is what /undo reverts).
func (s *shellRun) apply(ctx context.Context, run *PreviewRun) (tools.Result, error) {
	defer run.Discard()
	ws := run.ws.Dir()
	for _, c := range run.changes {
		if stampOf(filepath.Join(ws, c.rel)) != c.stamp {
			return tools.Result{}, tools.Errorf(tools.KindExternalError, "Tell the user; run the command again to preview it afresh.",
				"nothing was applied: %s changed in the workspace after the preview", filepath.ToSlash(c.rel))
		}
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
		return tools.Result{Undo: rec.undo, UndoPlan: rec.plan}, tools.Errorf(tools.KindExternalError, "Tell the user: the workspace may hold part of the change; /undo reverts what was applied.", "applying the preview failed part way: %v", err)
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

// write applies the changes: deletions first (deepest first), then new
// folders (parents first), then files.
func (r *PreviewRun) write() error {
	ws := r.ws.Dir()
	var dels, dirs, files []layerChange
	for _, c := range r.changes {
		switch {
		case c.kind == 'D':
			dels = append(dels, c)
		case c.mode.IsDir():
			dirs = append(dirs, c)
		default:
			files = append(files, c)
		}
	}
	slices.SortFunc(dels, func(a, b layerChange) int { return len(b.rel) - len(a.rel) })
	for _, c := range dels {
		if err := os.RemoveAll(filepath.Join(ws, c.rel)); err != nil {
			return err
		}
	}
	slices.SortFunc(dirs, func(a, b layerChange) int { return len(a.rel) - len(b.rel) })
	for _, c := range dirs {
		if err := os.MkdirAll(filepath.Join(ws, c.rel), c.mode.Perm()|0o700); err != nil {
			return err
		}
	}
	for _, c := range files {
		dst := filepath.Join(ws, c.rel)
		if c.mode&fs.ModeSymlink != 0 {
			target, err := os.Readlink(c.upper)
			if err == nil {
				os.Remove(dst)
				err = os.Symlink(target, dst)
			}
			if err != nil {
				return err
			}
			continue
		}
		data, err := os.ReadFile(c.upper)
		if err == nil {
			err = durable.WriteFile(dst, data, c.mode.Perm())
		}
		if err == nil {
			err = os.Chmod(dst, c.mode.Perm())
		}
		if err != nil {
			return err
		}
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
