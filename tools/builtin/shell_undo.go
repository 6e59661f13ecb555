package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"myclaw/tools"
	"myclaw/tools/snapshot"
)

// ShellUndo makes shell_run's workspace changes undoable: each command is
// bracketed by two captures of the workspace, and what changed between them
// is journaled like a multi-file fs_write.
type ShellUndo struct {
	Workspace *Workspace
	Blobs     tools.BlobStore
	Tracker   *snapshot.Tracker
}

// NewShellUndo tracks ws for shell_run's undo. Prior contents are cached
// in a folder of its own under cacheRoot (removed by Close; folders left by
// a crash are removed once they are a week old). Folders named in exclude
// (absolute, e.g. myclaw's own state inside the workspace) are left out too.
func NewShellUndo(ws *Workspace, blobs tools.BlobStore, cacheRoot string, exclude ...string) (*ShellUndo, error) {
	if blobs == nil {
		return nil, errors.New("shell undo needs a blob store")
	}
	pruneShellCaches(cacheRoot, 7*24*time.Hour)
	if err := os.MkdirAll(cacheRoot, 0o700); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(cacheRoot, "run-")
	if err != nil {
		return nil, err
	}
	var skip []string
	for _, e := range exclude {
		if rel, ok := wsWithin(ws.Dir(), e); ok && rel != "." {
			skip = append(skip, filepath.ToSlash(rel))
		}
	}
	t := snapshot.New(snapshot.Options{Root: ws.Dir(), CacheDir: dir, Exclude: func(rel string) string {
		for _, s := range skip {
			if rel == s {
				return "myclaw's own files"
			}
		}
		return DefaultShellExclude(rel)
	}})
	return &ShellUndo{Workspace: ws, Blobs: blobs, Tracker: t}, nil
}

// Close removes the content cache.
func (u *ShellUndo) Close() error { return u.Tracker.Close() }

// pruneShellCaches removes cache folders that no running myclaw has used
// for maxAge: a live one touches its folder at every capture.
func pruneShellCaches(root string, maxAge time.Duration) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && e.IsDir() && strings.HasPrefix(e.Name(), "run-") && time.Since(info.ModTime()) > maxAge {
			os.RemoveAll(filepath.Join(root, e.Name()))
		}
	}
}

// shellCaptureTimeout bounds the capture after a command that was
// cancelled, when the call's own context is already done.
const shellCaptureTimeout = 30 * time.Second

// shellUndoNoted caps the paths listed in notes and the model's output.
const shellUndoNoted = 20

// DefaultShellExclude leaves out of the undo capture what is git's own
// state and the trees package managers regenerate.
func DefaultShellExclude(rel string) string {
	switch path.Base(rel) {
	case ".git":
		return "git's own state"
	case "node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache", ".pytest_cache", ".gradle":
		return "generated"
	}
	return ""
}

// shellDir is a folder a command created or removed.
type shellDir struct {
	Path string `json:"path"`
	Mode uint32 `json:"mode"`
}

// shellUndoData is shell_run's undo data. Like FileUndo it is symmetric:
// the redo data swaps the roles of each change and of the two folder lists.
type shellUndoData struct {
	Changes     []tools.FileUndo `json:"changes"`
	CreatedDirs []shellDir       `json:"created_dirs,omitempty"`
	RemovedDirs []shellDir       `json:"removed_dirs,omitempty"`
	// Links are the symbolic links the change made, replaced or removed.
	Links []ShellUndoLink `json:"links,omitempty"`
	// Nodes are the special files (named pipes...) it made or removed.
	Nodes []ShellUndoNode `json:"nodes,omitempty"`
	// NotCovered names what the command changed that undo cannot restore.
	NotCovered []string `json:"not_covered,omitempty"`
}

// shellUndoPlan is what the approval pane says before a command runs.
func (u *ShellUndo) plan() string {
	return "Undo restores the files this command creates, changes or deletes in the workspace" + u.exclusions() +
		"; network calls, other processes and changes outside the workspace cannot be undone"
}

func (u *ShellUndo) exclusions() string {
	o := u.Tracker.Options()
	return fmt.Sprintf(" (not .git/, generated folders or files over %s)", tools.HumanSize(o.MaxFileBytes))
}

// shellRecorded is the outcome of the capture after a command.
type shellRecorded struct {
	undo    json.RawMessage
	summary string // ", changed 3 files", for the call's summary
	plan    string
	changed []string // "M path", "A path", "D path", bounded
	note    string
	// unchanged: the capture saw the command change nothing in the
	// workspace, so there is nothing to undo and nothing to warn about.
	unchanged bool
}

// record compares the capture taken before a command with the workspace
// now, keeps the contents undo and redo need in the durable store, and
// describes the result.
func (u *ShellUndo) record(ctx context.Context, before *snapshot.Snapshot) shellRecorded {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shellCaptureTimeout)
	defer cancel()
	after, err := u.Tracker.Capture(ctx)
	if err != nil {
		return shellRecorded{note: "its changes to the workspace could not be recorded, so it cannot be undone: " + err.Error()}
	}
	d := snapshot.Diff(before, after)
	var data shellUndoData
	var rec shellRecorded
	var counts [3]int // modified, created, deleted
	for _, c := range d.Files {
		if !c.Covered() {
			data.NotCovered = append(data.NotCovered, c.Path+" ("+uncoveredWhy(c)+")")
			continue
		}
		fc := tools.FileUndo{Path: c.Path}
		var kerr error
		if fc.Before, kerr = u.keep(c.Before); kerr == nil {
			fc.After, kerr = u.keep(c.After)
		}
		if kerr != nil {
			data.NotCovered = append(data.NotCovered, c.Path+" (its content could not be kept: "+kerr.Error()+")")
			continue
		}
		data.Changes = append(data.Changes, fc)
		tag := "M"
		switch {
		case c.Before == nil:
			tag = "A"
			counts[1]++
		case c.After == nil:
			tag = "D"
			counts[2]++
		default:
			counts[0]++
		}
		if len(rec.changed) < shellUndoNoted {
			rec.changed = append(rec.changed, tag+" "+c.Path)
		}
	}
	for _, p := range d.CreatedDirs {
		data.CreatedDirs = append(data.CreatedDirs, shellDir{Path: p, Mode: uint32(after.Dirs[p])})
	}
	for _, p := range d.RemovedDirs {
		data.RemovedDirs = append(data.RemovedDirs, shellDir{Path: p, Mode: uint32(d.DirModes[p])})
	}
	data.Links, data.Nodes, data.NotCovered = recordOther(d.Other, data.NotCovered)
	if after.Truncated {
		data.NotCovered = append(data.NotCovered, fmt.Sprintf("files past the first %d in the walk", u.Tracker.Options().MaxFiles))
	}
	if len(rec.changed) < len(data.Changes) {
		rec.changed = append(rec.changed, fmt.Sprintf("… and %d more", len(data.Changes)-len(rec.changed)))
	}
	n := len(data.Changes)
	others := len(data.Links) + len(data.Nodes)
	if n == 0 && len(data.CreatedDirs) == 0 && len(data.RemovedDirs) == 0 && others == 0 {
		if len(data.NotCovered) > 0 {
			rec.note = "it changed what undo cannot restore: " + listSome(data.NotCovered)
		} else {
			rec.unchanged, rec.summary = true, ", no changes in the workspace"
		}
		return rec
	}
	undo, err := json.Marshal(data)
	if err != nil {
		rec.note = "its changes could not be recorded: " + err.Error()
		return rec
	}
	rec.undo = undo
	switch {
	case n > 0:
		rec.summary = ", changed " + fsCount(n, "file")
	case others > 0:
		rec.summary = ", changed " + shellOthers(others)
	default:
		rec.summary = ", changed " + fsCount(len(data.CreatedDirs)+len(data.RemovedDirs), "folder")
	}
	what := fsCount(n, "file") + " in the workspace" + shellCounts(counts) + shellOtherCount(others)
	if n == 0 && others > 0 {
		what = shellOthers(others) + " in the workspace"
	}
	rec.plan = "Undo restores " + what + shellDirCounts(len(data.CreatedDirs), len(data.RemovedDirs)) +
		"; network calls and changes outside the workspace cannot be undone"
	if len(data.NotCovered) > 0 {
		rec.plan += "; not covered: " + listSome(data.NotCovered)
		rec.note = "partly reversible: undo cannot restore " + listSome(data.NotCovered)
		rec.summary += " (partly reversible)"
	}
	if ex := after.Excluded; len(ex) > 0 {
		rec.plan += "; not tracked: " + listSome(ex)
	}
	if trusted := trustedWrites(d); len(trusted) > 0 {
		// The pane could not tell from the command line (a script, say):
		// the card and the model hear it now, while /undo can take it back.
		note := "it wrote what later sessions trust: " + listSome(trusted) + "; review it (/diff) before a later session follows it, or /undo"
		rec.note = strings.TrimPrefix(rec.note+"; "+note, "; ")
		rec.summary += " (wrote " + fsCount(len(trusted), "file") + " later sessions trust)"
	}
	return rec
}

// trustedWrites describes the files of d created or changed that later
// sessions trust (instructions, skills, commands, configuration): see
// tools.TrustedFile.
func trustedWrites(d snapshot.Delta) []string {
	var out []string
	for _, c := range d.Files {
		if c.After == nil {
			continue
		}
		if what := tools.TrustedFileByName(c.Path); what != "" {
			out = append(out, what)
		}
	}
	return out
}

func uncoveredWhy(c snapshot.Change) string {
	for _, f := range []*snapshot.File{c.Before, c.After} {
		if f != nil && f.SHA256 == "" {
			return f.Why
		}
	}
	return "not kept"
}

func shellCounts(c [3]int) string {
	var parts []string
	for i, name := range []string{"modified", "created", "deleted"} {
		if c[i] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c[i], name))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func shellDirCounts(created, removed int) string {
	var parts []string
	if created > 0 {
		parts = append(parts, "removes "+fsCount(created, "folder")+" it created")
	}
	if removed > 0 {
		parts = append(parts, "recreates "+fsCount(removed, "folder")+" it removed")
	}
	if len(parts) == 0 {
		return ""
	}
	return ", " + strings.Join(parts, ", ")
}

// shellSinceFiles bounds the files whose diff a refused undo of a command
// shows.
const shellSinceFiles = 3

func listSome(items []string) string {
	if len(items) <= 5 {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:5], ", ") + fmt.Sprintf(" and %d more", len(items)-5)
}

// keep copies a captured file's content from the cache into the durable
// store and returns its state for the undo data.
func (u *ShellUndo) keep(f *snapshot.File) (tools.FileState, error) {
	if f == nil {
		return tools.FileState{}, nil
	}
	data, err := u.Tracker.Content(f.SHA256)
	if err != nil {
		return tools.FileState{}, err
	}
	sum, err := u.Blobs.Put(data)
	if err != nil {
		return tools.FileState{}, err
	}
	return tools.FileState{Exists: true, SHA256: sum, Mode: uint32(f.Mode.Perm())}, nil
}

// Revert implements Reverter for shell_run: every change is checked first,
// so a conflict in one file leaves all of them as they are (unless force).
func (s *shellRun) Revert(ctx context.Context, undo json.RawMessage, force bool) (json.RawMessage, error) {
	u := s.opts.Undo
	if u == nil {
		return nil, errors.New("revert: shell commands are not tracked for undo in this configuration")
	}
	return u.revert(ctx, undo, force)
}

func (u *ShellUndo) revert(ctx context.Context, undo json.RawMessage, force bool) (json.RawMessage, error) {
	ws := u.Workspace
	var data shellUndoData
	dec := json.NewDecoder(bytes.NewReader(undo))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&data); err != nil {
		return nil, fmt.Errorf("%w: %w", tools.ErrCorruptUndo, err)
	}
	for _, c := range data.Changes {
		raw, _ := json.Marshal(c)
		if _, err := fsParseChange(ws, raw); err != nil {
			return nil, err
		}
	}
	for _, d := range append(append([]shellDir(nil), data.CreatedDirs...), data.RemovedDirs...) {
		if rel, e := ws.Rel(d.Path); e != nil || rel != d.Path || rel == "." || d.Mode > 0o777 {
			return nil, fmt.Errorf("%w: folder %q is not a clean path inside the workspace", tools.ErrCorruptUndo, d.Path)
		}
	}
	if err := checkNoFolders(ws, data.Changes); err != nil {
		return nil, err
	}
	if err := checkLinks(ws, data.Links, force); err != nil {
		return nil, err
	}
	if err := checkNodes(ws, data.Nodes, force); err != nil {
		return nil, err
	}
	made := linksMade(data.Links) // checked by checkLinks and checkNodes
	for _, n := range data.Nodes {
		if n.After != nil {
			made[n.Path] = true
		}
	}
	if !force {
		var conflicts, diffs, hard []string
		what, hardWhat, undiffed := "", "", 0
		for _, c := range data.Changes {
			if made[c.Path] && !c.After.Exists {
				continue
			}
			cur, err := fsObserve(ctx, ws, c.Path)
			if err != nil {
				return nil, err
			}
			if cur.is(c.Before) || cur.is(c.After) {
				continue
			}
			if what == "" {
				what = c.Path
			}
			if why := cur.unforceable(); why != "" && cur.kind != "link" && cur.kind != "special" {
				// A forced undo would fail here too: not a Conflict, which
				// would offer --force (a link or special file it removes).
				hard = append(hard, c.Path+": "+cur.differs(c.After)+"; "+why)
				hardWhat = c.Path
				continue
			}
			since := fsSince(u.Blobs, c.Path, c.After, cur)
			switch {
			case since == "":
				conflicts = append(conflicts, c.Path+": "+cur.differs(c.After)+cur.sums(c.After))
			case len(diffs) < shellSinceFiles:
				conflicts = append(conflicts, c.Path+": "+cur.differs(c.After))
				diffs = append(diffs, since)
			default:
				conflicts = append(conflicts, c.Path+": "+cur.differs(c.After))
				undiffed++
			}
		}
		if len(hard) > 0 {
			if len(hard) > 1 {
				hardWhat = fsCount(len(hard), "file")
			}
			return nil, fmt.Errorf("%s changed since the call (%s); nothing was restored", hardWhat, listSome(hard))
		}
		if len(conflicts) > 0 {
			if len(conflicts) > 1 {
				what = fsCount(len(conflicts), "file")
			}
			if undiffed > 0 {
				diffs = append(diffs, fmt.Sprintf("… and what changed in %s more", fsCount(undiffed, "file")))
			}
			return nil, &tools.Conflict{What: what, Detail: listSome(conflicts) + "; nothing was restored", Diff: strings.Join(diffs, "\n")}
		}
	}
	for _, d := range data.RemovedDirs {
		if err := ws.root.Mkdir(d.Path, fs.FileMode(d.Mode)); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, ws.osError(d.Path, err)
		}
	}
	unlinked, err := removeLinks(ws, data.Links)
	if err != nil {
		return nil, err
	}
	unmade, err := removeNodes(ws, data.Nodes, force)
	if err != nil {
		return nil, err
	}
	redo := shellUndoData{CreatedDirs: data.RemovedDirs, RemovedDirs: data.CreatedDirs, NotCovered: data.NotCovered, Links: swapLinks(data.Links, unlinked)}
	// Later changes first, so a file is restored before its folder goes.
	for i := len(data.Changes) - 1; i >= 0; i-- {
		if force && !made[data.Changes[i].Path] {
			// A link or special file someone else left where the call's
			// file was: removed itself (never what it leads to), and made
			// again by redo.
			l, n, err := removeForeign(ws, data.Changes[i].Path)
			if err != nil {
				return nil, err
			}
			redo.Links, redo.Nodes = append(redo.Links, l...), append(redo.Nodes, n...)
		}
		raw, _ := json.Marshal(data.Changes[i])
		back, err := fsRevert(ctx, ws, u.Blobs, raw, force)
		if err != nil {
			return nil, err
		}
		var rc tools.FileUndo
		if err := json.Unmarshal(back, &rc); err != nil {
			return nil, err
		}
		redo.Changes = append(redo.Changes, rc)
	}
	if err := restoreLinks(ws, data.Links); err != nil {
		return nil, err
	}
	again, err := restoreNodes(ws, data.Nodes)
	if err != nil {
		return nil, err
	}
	redo.Nodes = append(redo.Nodes, nodesRedo(data.Nodes, unmade, again)...)
	for i := len(data.CreatedDirs) - 1; i >= 0; i-- {
		// A folder that holds something now (the user's) stays.
		_ = ws.root.Remove(data.CreatedDirs[i].Path)
	}
	for i, j := 0, len(redo.Changes)-1; i < j; i, j = i+1, j-1 {
		redo.Changes[i], redo.Changes[j] = redo.Changes[j], redo.Changes[i]
	}
	return json.Marshal(redo)
}

// notUndoable says why undo could not restore what a command changes at
// these paths (as the parse wrote them: relative to the workspace, or
// absolute inside it, globs included): a file over the size the journal
// keeps, a folder the capture leaves out (.git, node_modules), more files
// or bytes than one capture holds. The walk stops at the capture's own
// bounds. "" when undo could restore them all, or they do not exist yet.
func (u *ShellUndo) notUndoable(changes []string) string {
	o := u.Tracker.Options()
	root := u.Workspace.Dir()
	files, total := 0, int64(0)
	excluded := func(rel string) string {
		segs := strings.Split(rel, "/")
		for i := range segs {
			if why := o.Exclude(strings.Join(segs[:i+1], "/")); why != "" {
				return fmt.Sprintf("%s is in %s/, which undo leaves out (%s)", rel, strings.Join(segs[:i+1], "/"), why)
			}
		}
		return ""
	}
	if o.Exclude == nil {
		excluded = func(string) string { return "" }
	}
	for _, ch := range changes {
		if strings.ContainsAny(ch, "$`~") {
			continue // rated high by the parse already
		}
		p := ch
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		matches := []string{p}
		if strings.ContainsAny(ch, "*?[") {
			matches, _ = filepath.Glob(p)
		}
		for _, m := range matches {
			if _, ok := wsWithin(root, m); !ok {
				continue
			}
			var why string
			err := filepath.WalkDir(m, func(at string, d fs.DirEntry, err error) error {
				if err != nil {
					return nil // gone or unreadable: the capture says so after
				}
				r, _ := wsWithin(root, at)
				r = filepath.ToSlash(r)
				if d.IsDir() {
					if why = excluded(r); why != "" {
						return fs.SkipAll
					}
					return nil
				}
				if !d.Type().IsRegular() {
					return nil
				}
				info, err := d.Info()
				if err != nil {
					return nil
				}
				files++
				total += info.Size()
				switch {
				case info.Size() > o.MaxFileBytes:
					why = fmt.Sprintf("%s is over the %s undo keeps per file", r, tools.HumanSize(o.MaxFileBytes))
				case files > o.MaxFiles || total > o.MaxTotalBytes:
					why = fmt.Sprintf("it changes more than undo captures at once (over %d files or %s)", o.MaxFiles, tools.HumanSize(o.MaxTotalBytes))
				}
				if why != "" {
					return fs.SkipAll
				}
				return nil
			})
			if why == "" && err == nil {
				if r, _ := wsWithin(root, m); r != "." {
					why = excluded(filepath.ToSlash(r))
				}
			}
			if why != "" {
				return why
			}
		}
	}
	return ""
}
