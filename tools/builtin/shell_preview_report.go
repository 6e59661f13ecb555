package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"myclaw/tools"
	"myclaw/tools/termtext"
	"os"
	"path/filepath"
	"strings"
)

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
	_ = json.Unmarshal(r.raw, &a) // validated before the run: the command is there
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
		fmt.Fprintf(b, "D %s (%s)\n", name, tools.FileKind(c.was.Mode()))
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
	return tools.FileKind(m)
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
