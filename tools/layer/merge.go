package layer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"myclaw/tools"
	"myclaw/tools/builtin"
	"myclaw/tools/termtext"
)

// change is one path of the merge: its three versions and the outcome.
type change struct {
	rel                string
	base, ours, theirs version
	result             version
	conflict           string // why, "" when it merged
	text               []byte // a text conflict's file with its markers
}

// Proposal is a merge ready for approval. It is an alias of an unnamed
// interface, so that an interface of the same methods declared elsewhere
// (or an alias of one) is the same type.
type Proposal = interface {
	tools.Preview
	Files() []string
	Conflicts() []string
	Apply(ctx context.Context) (tools.Result, error)
}

// Merge is a layer's change merged against the workspace as it is now.
type Merge struct {
	l         *Layer
	changes   []*change // what applying writes or removes, conflicts included
	skipped   []string
	summary   string
	report    string
	discarded bool
}

// Propose merges the layer three-way: base (the workspace's version when
// the layer first changed a path), ours (the layer's) and theirs (the
// workspace's now). Only the paths the layer changed are read.
func (l *Layer) Propose(ctx context.Context) (Proposal, error) {
	return l.merge(ctx)
}

func (l *Layer) merge(ctx context.Context) (*Merge, error) {
	l.mu.Lock()
	discarded := l.discarded
	l.mu.Unlock()
	if discarded {
		return nil, errors.New("the edit layer was discarded")
	}
	if err := l.captureUpper(); err != nil {
		return nil, err
	}
	upper, err := os.OpenRoot(l.upper)
	if err != nil {
		return nil, err
	}
	defer upper.Close()
	p := &Merge{l: l}
	paths, err := l.changed(ctx)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	base := make(map[string]version, len(paths))
	for _, rel := range paths {
		base[rel] = l.base[rel]
	}
	l.mu.Unlock()
	for _, rel := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c := &change{rel: rel, base: base[rel]}
		if c.ours, err = readVersion(l.view.Root(), rel); err == nil {
			c.theirs, err = readVersion(l.ws.Root(), rel)
		}
		if err != nil {
			return nil, err
		}
		if _, ok := l.baseOf(rel); !ok {
			c.base = c.theirs // never captured: taken as unchanged
		}
		if c.ours.same(c.base) || c.ours.same(c.theirs) {
			continue // the layer changed nothing here, or the same
		}
		var info fs.FileInfo
		if c.ours.kind != 0 {
			info = c.ours.info
		}
		if builtin.NeverApplied(l.ws, upper, rel, info) {
			p.skipped = append(p.skipped, name(rel)+" is protected: never applied")
			continue
		}
		if c.ours.kind == 's' {
			p.skipped = append(p.skipped, name(rel)+" is a special file: only files, folders and links are applied")
			continue
		}
		c.decide()
		p.changes = append(p.changes, c)
	}
	p.describe()
	return p, nil
}

func (l *Layer) baseOf(rel string) (version, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.base[rel]
	return v, ok
}

// changed lists what the layer holds: every path of the upper dir, and
// below a folder it removed or replaced, everything of the workspace's
// whose base was kept. Parents come before what they hold.
func (l *Layer) changed(ctx context.Context) ([]string, error) {
	set := map[string]bool{}
	err := filepath.WalkDir(l.upper, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if rel, _ := filepath.Rel(l.upper, p); rel != "." {
			set[rel] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	for rel := range l.base {
		if !set[rel] && l.hidden(rel) {
			set[rel] = true
		}
	}
	l.mu.Unlock()
	out := make([]string, 0, len(set))
	for rel := range set {
		out = append(out, rel)
	}
	slices.Sort(out)
	return out, nil
}

// hidden reports whether a folder on rel's way is a whiteout, anything
// but a folder, or opaque in the upper dir: the layer removed or replaced
// what rel was.
func (l *Layer) hidden(rel string) bool {
	for d := filepath.Dir(rel); ; d = filepath.Dir(d) {
		p := filepath.Join(l.upper, d)
		if fi, err := os.Lstat(p); err == nil && (!fi.IsDir() || builtin.IsOpaque(p)) {
			return true
		}
		if d == "." {
			return false
		}
	}
}

// decide merges one path: the side that changed it wins; both changed a
// text file, its lines merge; anything else both changed is a conflict.
func (c *change) decide() {
	switch {
	case c.theirs.kind == 's':
		c.conflict = "the workspace has a special file there (a pipe, socket or device), which a merge never replaces"
		return
	case c.theirs.same(c.base):
		c.result = c.ours
		return
	case c.ours.kind == 'd' && c.theirs.kind == 'd':
		// Two folders differ only in mode; the agent changed it (or it
		// would not be here), and so did the workspace.
		if c.base.kind != 'd' || c.theirs.mode == c.ours.mode {
			c.result = c.theirs
		} else {
			c.conflict = fmt.Sprintf("both changed its mode (%04o and %04o)", c.ours.mode, c.theirs.mode)
		}
		return
	case c.ours.kind != 'f' || c.theirs.kind != 'f' || c.base.kind != 'f' && c.base.kind != 0:
		c.conflict = fmt.Sprintf("the edit agent %s it and the workspace %s it since", verb(c.base, c.ours), verb(c.base, c.theirs))
		return
	case !c.ours.kept || !c.theirs.kept || c.base.kind == 'f' && !c.base.kept:
		c.conflict = "both changed it, and it is too large to merge by lines"
		return
	case binary(c.ours.data) || binary(c.theirs.data) || binary(c.base.data):
		c.conflict = "both changed it, and it is binary"
		return
	}
	mode := c.ours.mode
	if c.ours.mode == c.base.mode || c.base.kind == 0 {
		mode = c.theirs.mode
	} else if c.theirs.mode != c.base.mode && c.theirs.mode != c.ours.mode {
		c.conflict = fmt.Sprintf("both changed its mode (%04o and %04o)", c.ours.mode, c.theirs.mode)
		return
	}
	m := merge3(c.base.data, c.ours.data, c.theirs.data)
	if m.conflicts > 0 {
		c.text = m.text
		lines := make([]string, len(m.at))
		for i, n := range m.at {
			lines[i] = fmt.Sprint(n)
		}
		c.conflict = fmt.Sprintf("both changed the same lines (at line %s of the version the agent started from)", strings.Join(lines, ", "))
		return
	}
	c.result = version{kind: 'f', mode: mode, data: m.text, kept: true}
}

func verb(from, to version) string {
	switch {
	case to.kind == 0:
		return "deleted"
	case from.kind == 0:
		return "created"
	case from.kind != to.kind:
		return "replaced"
	}
	return "changed"
}

func binary(data []byte) bool { return bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 }

// name is a path as the report shows it: controls and line breaks
// escaped, so a name cannot make a line of its own.
func name(rel string) string {
	return strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(termtext.Visible(filepath.ToSlash(rel)))
}

// Files lists the workspace paths the merge changes, conflicts included.
func (p *Merge) Files() []string {
	var out []string
	for _, c := range p.changes {
		if c.ours.kind != 'd' || c.base.kind != 'd' || c.conflict != "" || c.modeChange() {
			out = append(out, filepath.ToSlash(c.rel))
		}
	}
	return out
}

// modeChange reports whether c changes only a folder's mode.
func (c *change) modeChange() bool {
	return c.conflict == "" && c.theirs.kind == 'd' && c.result.kind == 'd' && c.result.mode != c.theirs.mode
}

// Conflicts lists the paths both the layer and the workspace changed in a
// way that does not merge: Apply refuses while there is one.
func (p *Merge) Conflicts() []string {
	var out []string
	for _, c := range p.changes {
		if c.conflict != "" {
			out = append(out, filepath.ToSlash(c.rel))
		}
	}
	return out
}

// Summary implements tools.Preview.
func (p *Merge) Summary() string { return p.summary }

// Report implements tools.Preview: a diff per file from the workspace as
// it is to what applying leaves, each conflict named with its markers.
func (p *Merge) Report() string { return p.report }

// Discard implements tools.Preview: the proposal is dropped, the layer
// stays (Layer.Discard drops it).
func (p *Merge) Discard() { p.discarded = true }

func (p *Merge) describe() {
	files, folders, conflicts := 0, 0, len(p.Conflicts())
	var b strings.Builder
	for _, c := range p.changes {
		if c.ours.kind == 'd' && c.conflict == "" && !c.modeChange() {
			continue // a new folder shows through what it holds
		}
		if c.modeChange() {
			folders++
		} else {
			files++
		}
		if c.conflict != "" {
			fmt.Fprintf(&b, "CONFLICT %s: %s\n", name(c.rel), c.conflict)
			if c.text != nil {
				b.WriteString(clip(conflictRegions(c.text)))
			}
			continue
		}
		b.WriteString(clip(c.diff()))
	}
	for _, s := range p.skipped {
		fmt.Fprintf(&b, "skipped: %s\n", s)
	}
	// The pane's title puts the agent first ("Merge agent "x": …").
	p.summary = fileCount(files) + " changed"
	if folders > 0 {
		p.summary = strings.TrimPrefix(p.summary+", "+folderModes(folders), "0 files changed, ")
	}
	if conflicts > 0 {
		p.summary += fmt.Sprintf(", %d in conflict (%s)", conflicts, strings.Join(p.Conflicts(), ", "))
	}
	if files+folders == 0 {
		p.summary = "nothing to merge"
	}
	p.report = b.String()
}

// folderModes says how many folders' modes change.
func folderModes(n int) string {
	if n == 1 {
		return "1 folder's mode"
	}
	return fmt.Sprintf("%d folders' modes", n)
}

// diff is what applying c does to the workspace's file.
func (c *change) diff() string {
	t, r := c.theirs, c.result
	switch {
	case r.kind == 'l' || t.kind == 'l':
		from, to := "nothing", "nothing"
		if t.kind == 'l' {
			from = "a link to " + name(t.target)
		} else if t.kind != 0 {
			from = "a " + kindName(t.kind)
		}
		if r.kind == 'l' {
			to = "a link to " + name(r.target)
			if t := r.target; filepath.IsAbs(t) || strings.HasPrefix(filepath.Join(filepath.Dir(c.rel), t), "..") {
				to += " (outside the workspace)"
			}
		} else if r.kind != 0 {
			to = "a " + kindName(r.kind)
		}
		return fmt.Sprintf("%s: %s → %s\n", name(c.rel), from, to)
	case t.kind == 'f' && !t.kept || r.kind == 'f' && !r.kept:
		return fmt.Sprintf("%s: %s (too large to show)\n", name(c.rel), verb(t, r))
	case c.modeChange():
		return fmt.Sprintf("%s/: folder mode %04o → %04o\n", name(c.rel), t.mode, r.mode)
	case t.kind == 'd' || r.kind == 'd':
		return fmt.Sprintf("%s/: %s folder\n", name(c.rel), verb(t, r))
	}
	var before, after []byte
	if t.kind == 'f' {
		before = t.data
		if before == nil {
			before = []byte{}
		}
	}
	if r.kind == 'f' {
		after = r.data
		if after == nil {
			after = []byte{}
		}
	}
	if binary(before) || binary(after) {
		return fmt.Sprintf("%s: binary, %s\n", name(c.rel), verb(t, r))
	}
	return tools.FileModeDiff(filepath.ToSlash(c.rel), before, after, uint32(t.mode), uint32(r.mode))
}

func kindName(k byte) string {
	switch k {
	case 'f':
		return "file"
	case 'd':
		return "folder"
	case 'l':
		return "link"
	}
	return "special file"
}

// conflictRegions is the conflicted text's marked regions, with two lines
// around each.
func conflictRegions(text []byte) string {
	lines := splitLines(text)
	show := make([]bool, len(lines))
	in := false
	for i, l := range lines {
		if strings.HasPrefix(l, "<<<<<<< ") {
			in = true
			for k := max(0, i-2); k < i; k++ {
				show[k] = true
			}
		}
		if in {
			show[i] = true
		}
		if strings.HasPrefix(l, ">>>>>>> ") {
			in = false
			for k := i + 1; k < min(len(lines), i+3); k++ {
				show[k] = true
			}
		}
	}
	var b strings.Builder
	for i, l := range lines {
		if show[i] {
			b.WriteString("  " + strings.TrimRight(termtext.Visible(l), "\n") + "\n")
		} else if i > 0 && show[i-1] {
			b.WriteString("  …\n")
		}
	}
	return b.String()
}

func clip(s string) string {
	const most = 16 << 10
	if len(s) <= most {
		return s
	}
	return s[:most] + "\n… (cut)\n"
}
