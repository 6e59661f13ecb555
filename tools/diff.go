package tools

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"
)

// SniffBytes is how much of a file decides whether it is text.
const SniffBytes = 8 << 10

// Limits of the unified diff used in write previews.
const (
	diffContext = 3
	// diffMaxBytes caps the preview text; the counts stay exact.
	diffMaxBytes = 256 << 10
)

// DiffResult is the line diff of two texts (by go-udiff): its counts, and
// the hunks that Text renders as a unified diff. Rendering is left to Text
// because a preview needs it and an execution only needs the counts.
type DiffResult struct {
	Added   int  // lines only in the new text
	Removed int  // lines only in the old text
	Binary  bool // one side is not text; Text only says they differ

	oldName, newName string
	hunks            []*udiff.Hunk
}

// Text returns the unified diff with three lines of context, cut past
// diffMaxBytes with a note; "" when the texts are equal.
func (d DiffResult) Text() string {
	switch {
	case d.Binary:
		return fmt.Sprintf("Binary files %s and %s differ\n", d.oldName, d.newName)
	case len(d.hunks) == 0:
		return ""
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", d.oldName, d.newName)
	omitted := 0
	for _, h := range d.hunks {
		var na, nb int
		for _, l := range h.Lines {
			if l.Kind != udiff.Insert {
				na++
			}
			if l.Kind != udiff.Delete {
				nb++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", diffRange(h.FromLine-1, na), diffRange(h.ToLine-1, nb))
		for _, l := range h.Lines {
			if out.Len() > diffMaxBytes {
				omitted++
				continue
			}
			out.WriteByte(" -+"[diffPrefix(l.Kind)])
			out.WriteString(l.Content)
			if !strings.HasSuffix(l.Content, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
	}
	if omitted > 0 {
		fmt.Fprintf(&out, "... diff cut: %d more lines not shown\n", omitted)
	}
	return out.String()
}

func diffPrefix(k udiff.OpKind) int {
	switch k {
	case udiff.Delete:
		return 1
	case udiff.Insert:
		return 2
	}
	return 0
}

// Diff diffs before against after, line by line, for a git-style unified
// diff (see DiffResult.Text). oldName and newName are the header labels
// ("a/x", "b/x", or "/dev/null").
func Diff(oldName, newName string, before, after []byte) DiffResult {
	if bytes.Equal(before, after) {
		return DiffResult{}
	}
	// A name that could pose as more diff lines or hide what it is comes
	// quoted, as git quotes it.
	oldName, newName = ShowPath(oldName), ShowPath(newName)
	res := DiffResult{oldName: oldName, newName: newName}
	if LooksBinary(before) || LooksBinary(after) {
		res.Binary = true
		return res
	}
	skip, a, b := diffTrim(string(before), string(after))
	u, err := udiff.ToUnifiedDiff(oldName, newName, a, udiff.Lines(a, b), diffContext)
	if err != nil {
		// Line edits of a's own text always apply; say so rather than guess.
		res.Binary = true
		return res
	}
	for _, h := range u.Hunks {
		h.FromLine += skip
		h.ToLine += skip
	}
	res.hunks = u.Hunks
	for _, h := range u.Hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Delete:
				res.Removed++
			case udiff.Insert:
				res.Added++
			}
		}
	}
	return res
}

// diffRange renders one side of a hunk header the way diff -u does: the
// count is left out when it is 1, and an empty side names the line before.
func diffRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// diffTrim drops the lines both texts share at the start and the end, but
// for diffContext lines of context, so that the diff works on the part that
// changed (most edits touch a small middle of a large file). skip is the
// number of lines dropped at the start.
func diffTrim(a, b string) (skip int, ta, tb string) {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	pre := strings.LastIndexByte(a[:i], '\n') + 1 // whole common lines
	for range diffContext {
		if pre == 0 {
			break
		}
		pre = strings.LastIndexByte(a[:pre-1], '\n') + 1
	}
	skip = strings.Count(a[:pre], "\n")
	a, b = a[pre:], b[pre:]
	j := 0
	for j < min(len(a), len(b)) && a[len(a)-1-j] == b[len(b)-1-j] {
		j++
	}
	// The common end starts after a newline in both texts: after the first
	// one inside it, unless it already starts a line in both.
	sa := len(a) - j
	if !(sa == 0 || a[sa-1] == '\n') || !(len(b)-j == 0 || b[len(b)-j-1] == '\n') {
		k := strings.IndexByte(a[sa:], '\n')
		if k < 0 {
			return skip, a, b
		}
		sa += k + 1
	}
	for range diffContext {
		k := strings.IndexByte(a[sa:], '\n')
		if k < 0 {
			return skip, a, b
		}
		sa += k + 1
	}
	cut := len(a) - sa
	return skip, a[:sa], b[:len(b)-cut]
}

// LooksBinary reports whether data is not text: a NUL byte or invalid
// UTF-8 in its first SniffBytes.
func LooksBinary(data []byte) bool {
	// A character split by the cut is not an encoding error.
	head := CutUTF8(data, SniffBytes)
	return bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(head)
}
