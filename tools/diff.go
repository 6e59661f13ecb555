package tools

import (
	"bytes"
	"fmt"
	"strings"
)

// Limits of the unified diff used in write previews.
const (
	diffContext = 3
	// diffMaxEdits bounds the Myers search: the trace it keeps grows with
	// the square of the number of edits. Past it the differing middle is
	// shown as one replaced block, which is correct but not minimal.
	diffMaxEdits = 1000
	// diffMaxWork bounds (lines compared) x (edits explored) so that a
	// preview of a large, heavily changed file stays quick.
	diffMaxWork = 50_000_000
	// diffMaxBytes caps the preview text; the counts stay exact.
	diffMaxBytes = 256 << 10
)

// diffResult is the line diff of two texts: its counts, and the edit
// script that Text renders as a unified diff. Rendering is left to Text
// because a preview needs it and an execution only needs the counts.
type diffResult struct {
	Added   int  // lines only in the new text
	Removed int  // lines only in the old text
	Binary  bool // one side is not text; Text only says they differ

	oldName, newName string
	a, b             []string // the lines of both sides
	runs             []diffRun
}

// Text returns the unified diff with three lines of context, cut past
// diffMaxBytes with a note; "" when the texts are equal.
func (d diffResult) Text() string {
	switch {
	case d.Binary:
		return fmt.Sprintf("Binary files %s and %s differ\n", d.oldName, d.newName)
	case len(d.runs) == 0:
		return ""
	}
	return diffFormat(d.oldName, d.newName, d.a, d.b, d.runs)
}

type diffKind byte

const (
	diffEqual diffKind = iota
	diffDelete
	diffInsert
)

// diffRun is a run of n lines of one kind, starting at line a of the old
// text and line b of the new one (0-based).
type diffRun struct {
	kind diffKind
	a, b int
	n    int
}

// diffUnified diffs old against new, line by line, for a git-style unified
// diff (see diffResult.Text). oldName and newName are the header labels
// ("a/x", "b/x", or "/dev/null").
func diffUnified(oldName, newName string, old, new []byte) diffResult {
	if bytes.Equal(old, new) {
		return diffResult{}
	}
	res := diffResult{oldName: oldName, newName: newName}
	if fsLooksBinary(old) || fsLooksBinary(new) {
		res.Binary = true
		return res
	}
	res.a, res.b = diffSplitLines(string(old)), diffSplitLines(string(new))
	res.runs = diffLines(res.a, res.b)
	for _, r := range res.runs {
		switch r.kind {
		case diffDelete:
			res.Removed += r.n
		case diffInsert:
			res.Added += r.n
		}
	}
	return res
}

// diffSplitLines splits text after each '\n'; the last line may lack one.
func diffSplitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := make([]string, 0, strings.Count(s, "\n")+1)
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

// diffLines computes an edit script from a to b as runs, in order.
func diffLines(a, b []string) []diffRun {
	// Trim the common prefix and suffix: most edits touch a small middle.
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var runs []diffRun
	add := func(kind diffKind, ai, bi, n int) {
		if n == 0 {
			return
		}
		if k := len(runs) - 1; k >= 0 && runs[k].kind == kind {
			runs[k].n += n
			return
		}
		runs = append(runs, diffRun{kind, ai, bi, n})
	}
	add(diffEqual, 0, 0, pre)
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	for _, r := range diffMyers(ma, mb) {
		add(r.kind, r.a+pre, r.b+pre, r.n)
	}
	add(diffEqual, len(a)-suf, len(b)-suf, suf)
	return diffGroup(runs)
}

// diffGroup rewrites each block of changes between equal runs as its
// deletions followed by its insertions, the order diff -u shows them in.
// Empty runs are dropped.
func diffGroup(runs []diffRun) []diffRun {
	out := make([]diffRun, 0, len(runs))
	for i := 0; i < len(runs); {
		if runs[i].kind == diffEqual {
			out = append(out, runs[i])
			i++
			continue
		}
		del := diffRun{kind: diffDelete, a: runs[i].a, b: runs[i].b}
		ins := diffRun{kind: diffInsert}
		for ; i < len(runs) && runs[i].kind != diffEqual; i++ {
			if runs[i].kind == diffDelete {
				del.n += runs[i].n
			} else {
				ins.n += runs[i].n
			}
		}
		ins.a, ins.b = del.a+del.n, del.b
		for _, r := range []diffRun{del, ins} {
			if r.n > 0 {
				out = append(out, r)
			}
		}
	}
	return out
}

// diffMyers is Myers' greedy O(ND) algorithm on interned lines, keeping the
// frontier of every step to walk the path back. When the distance exceeds
// the budget it gives up and replaces the whole block.
func diffMyers(a, b []string) []diffRun {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return []diffRun{{diffDelete, 0, 0, n}, {diffInsert, 0, 0, m}}
	}
	ids := make(map[string]int32, n+m)
	intern := func(lines []string) []int32 {
		out := make([]int32, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	x1, y1 := intern(a), intern(b)

	maxD := min(n+m, diffMaxEdits, max(diffMaxWork/(n+m), 16))
	off := maxD + 1
	v := make([]int32, 2*maxD+3)
	var trace [][]int32 // trace[d][k+d] = furthest x on diagonal k after step d
	for d := 0; d <= maxD; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = int(v[off+k+1])
			} else {
				x = int(v[off+k-1]) + 1
			}
			y := x - k
			for x < n && y < m && x1[x] == y1[y] {
				x++
				y++
			}
			v[off+k] = int32(x)
			if x >= n && y >= m {
				trace = append(trace, append([]int32(nil), v[off-d:off+d+1]...))
				return diffBacktrack(trace, n, m)
			}
		}
		trace = append(trace, append([]int32(nil), v[off-d:off+d+1]...))
	}
	return []diffRun{{diffDelete, 0, 0, n}, {diffInsert, 0, 0, m}}
}

// diffBacktrack walks the Myers trace from (n, m) back to (0, 0).
func diffBacktrack(trace [][]int32, n, m int) []diffRun {
	var rev []diffRun // runs in reverse order
	push := func(kind diffKind, a, b, cnt int) {
		if cnt == 0 {
			return
		}
		if k := len(rev) - 1; k >= 0 && rev[k].kind == kind {
			// Extending backwards: the run now starts earlier.
			rev[k].a, rev[k].b, rev[k].n = a, b, rev[k].n+cnt
			return
		}
		rev = append(rev, diffRun{kind, a, b, cnt})
	}
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		prev := trace[d-1] // index k+(d-1)
		k := x - y
		at := func(k int) int { return int(prev[k+d-1]) }
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1 // came down: an insertion
		} else {
			pk = k - 1 // came right: a deletion
		}
		px := at(pk)
		py := px - pk
		// The snake after the move is a run of equal lines.
		var sx, sy int
		if pk == k+1 {
			sx, sy = px, py+1
		} else {
			sx, sy = px+1, py
		}
		push(diffEqual, sx, sy, x-sx)
		if pk == k+1 {
			push(diffInsert, px, py, 1)
		} else {
			push(diffDelete, px, py, 1)
		}
		x, y = px, py
	}
	push(diffEqual, 0, 0, x)
	runs := make([]diffRun, len(rev))
	for i, r := range rev {
		runs[len(rev)-1-i] = r
	}
	return runs
}

// diffFormat renders runs as unified diff hunks.
func diffFormat(oldName, newName string, a, b []string, runs []diffRun) string {
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldName, newName)
	type hunk struct {
		a, b, na, nb int
		body         strings.Builder
	}
	var cur *hunk
	omitted := 0
	line := func(prefix byte, text string) {
		if out.Len()+cur.body.Len() > diffMaxBytes {
			omitted++
			return
		}
		cur.body.WriteByte(prefix)
		cur.body.WriteString(text)
		if !strings.HasSuffix(text, "\n") {
			cur.body.WriteString("\n\\ No newline at end of file\n")
		}
	}
	equal := func(ai, n int) {
		for i := ai; i < ai+n; i++ {
			line(' ', a[i])
		}
		cur.na += n
		cur.nb += n
	}
	flush := func() {
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", diffRange(cur.a, cur.na), diffRange(cur.b, cur.nb))
		out.WriteString(cur.body.String())
		cur = nil
	}
	for i, r := range runs {
		switch r.kind {
		case diffEqual:
			if cur == nil {
				continue // leading context is taken when the next change starts
			}
			if i < len(runs)-1 && r.n <= 2*diffContext {
				equal(r.a, r.n)
				continue
			}
			equal(r.a, min(r.n, diffContext))
			flush()
		default:
			if cur == nil {
				lead := 0
				if i > 0 && runs[i-1].kind == diffEqual {
					lead = min(runs[i-1].n, diffContext)
				}
				cur = &hunk{a: r.a - lead, b: r.b - lead}
				equal(r.a-lead, lead)
			}
			if r.kind == diffDelete {
				for j := r.a; j < r.a+r.n; j++ {
					line('-', a[j])
				}
				cur.na += r.n
			} else {
				for j := r.b; j < r.b+r.n; j++ {
					line('+', b[j])
				}
				cur.nb += r.n
			}
		}
	}
	if cur != nil {
		flush()
	}
	if omitted > 0 {
		fmt.Fprintf(&out, "... diff cut: %d more lines not shown\n", omitted)
	}
	return out.String()
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
