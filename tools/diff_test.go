package tools

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestDiffUnified(t *testing.T) {
	tests := []struct {
		name           string
		oldName, old   string
		new            string
		want           string
		added, removed int
		binary         bool
	}{
		{
			name: "equal", oldName: "a/x", old: "a\nb\n", new: "a\nb\n",
			want: "",
		},
		{
			name: "new file", oldName: "/dev/null", old: "", new: "one\ntwo\n",
			want:  "--- /dev/null\n+++ b/x\n@@ -0,0 +1,2 @@\n+one\n+two\n",
			added: 2,
		},
		{
			name: "emptied", oldName: "a/x", old: "one\n", new: "",
			want:    "--- a/x\n+++ b/x\n@@ -1 +0,0 @@\n-one\n",
			removed: 1,
		},
		{
			name: "one line changed in the middle", oldName: "a/x",
			old:   "1\n2\n3\n4\n5\n6\n7\n8\n9\n",
			new:   "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n",
			want:  "--- a/x\n+++ b/x\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n",
			added: 1, removed: 1,
		},
		{
			name: "two distant changes make two hunks", oldName: "a/x",
			old:   "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n",
			new:   "ONE\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\nTWELVE\n",
			want:  "--- a/x\n+++ b/x\n@@ -1,4 +1,4 @@\n-1\n+ONE\n 2\n 3\n 4\n@@ -9,4 +9,4 @@\n 9\n 10\n 11\n-12\n+TWELVE\n",
			added: 2, removed: 2,
		},
		{
			name: "close changes share a hunk", oldName: "a/x",
			old:   "1\n2\n3\n4\n5\n6\n7\n8\n",
			new:   "ONE\n2\n3\n4\n5\n6\n7\nEIGHT\n",
			want:  "--- a/x\n+++ b/x\n@@ -1,8 +1,8 @@\n-1\n+ONE\n 2\n 3\n 4\n 5\n 6\n 7\n-8\n+EIGHT\n",
			added: 2, removed: 2,
		},
		{
			name: "insertion", oldName: "a/x",
			old:   "a\nb\n",
			new:   "a\nnew\nb\n",
			want:  "--- a/x\n+++ b/x\n@@ -1,2 +1,3 @@\n a\n+new\n b\n",
			added: 1,
		},
		{
			name: "missing final newline", oldName: "a/x",
			old:   "a\nb",
			new:   "a\nb\n",
			want:  "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
			added: 1, removed: 1,
		},
		{
			name: "binary", oldName: "a/x", old: "a\x00b", new: "text\n",
			want:   "Binary files a/x and b/x differ\n",
			binary: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Diff(tt.oldName, "b/x", []byte(tt.old), []byte(tt.new))
			if got.Text() != tt.want {
				t.Errorf("got diff\n%s\nwant\n%s", got.Text(), tt.want)
			}
			if got.Added != tt.added || got.Removed != tt.removed || got.Binary != tt.binary {
				t.Errorf("got +%d -%d binary=%v; want +%d -%d binary=%v", got.Added, got.Removed, got.Binary, tt.added, tt.removed, tt.binary)
			}
		})
	}
}

// TestDiffRoundTrip applies generated diffs back to the old text: whatever
// the edit, the hunks must rebuild the new text exactly.
func TestDiffRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func(n int) string {
		var b strings.Builder
		for range n {
			fmt.Fprintf(&b, "l%d\n", rng.IntN(6))
		}
		s := b.String()
		if rng.IntN(4) == 0 {
			s = strings.TrimSuffix(s, "\n")
		}
		return s
	}
	for i := range 300 {
		old, after := gen(rng.IntN(30)), gen(rng.IntN(30))
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			t.Parallel()
			d := Diff("a/x", "b/x", []byte(old), []byte(after))
			got, err := fsTestApplyDiff(old, d.Text())
			if err != nil {
				t.Fatalf("apply: %v\nold %q\nnew %q\ndiff\n%s", err, old, after, d.Text())
			}
			if got != after {
				t.Fatalf("got %q; want %q\ndiff\n%s", got, after, d.Text())
			}
			a, b := slices.Collect(strings.Lines(old)), slices.Collect(strings.Lines(after))
			if want := len(a) + len(b) - 2*fsTestLCS(a, b); d.Added+d.Removed != want {
				t.Fatalf("got +%d -%d; want %d changed lines in all (a minimal diff)", d.Added, d.Removed, want)
			}
		})
	}
}

// TestDiffLargeFallback drives the diff past its edit budget: the middle is
// shown as one replaced block, still exact.
func TestDiffLargeFallback(t *testing.T) {
	var a, b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&a, "old %d\n", i)
		fmt.Fprintf(&b, "new %d\n", i)
	}
	d := Diff("a/x", "b/x", []byte(a.String()), []byte(b.String()))
	if d.Added != 3000 || d.Removed != 3000 {
		t.Errorf("got +%d -%d; want +3000 -3000", d.Added, d.Removed)
	}
	if !strings.Contains(d.Text(), "@@ -1,3000 +1,3000 @@\n") {
		t.Errorf("got header %q; want one hunk @@ -1,3000 +1,3000 @@", strings.SplitN(d.Text(), "\n", 4)[2])
	}
	got, err := fsTestApplyDiff(a.String(), d.Text())
	if err != nil || got != b.String() {
		t.Errorf("applying the diff gave %d bytes, err %v; want the new text", len(got), err)
	}
}

// TestDiffMinimalOnLargeFile checks that one changed line in a long file
// counts as one line, not as the whole file.
func TestDiffMinimalOnLargeFile(t *testing.T) {
	var a strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&a, "line %d\n", i%50)
	}
	old := a.String()
	after := strings.Replace(old, "line 7\n", "line seven\nline 7b\n", 1)
	d := Diff("a/x", "b/x", []byte(old), []byte(after))
	if d.Added != 2 || d.Removed != 1 {
		t.Errorf("got +%d -%d; want +2 -1", d.Added, d.Removed)
	}
}

func TestDiffCutsHugePreview(t *testing.T) {
	var b strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&b, "a fairly long line of new content number %d\n", i)
	}
	d := Diff("/dev/null", "b/x", nil, []byte(b.String()))
	if d.Added != 40000 {
		t.Errorf("got +%d; want +40000", d.Added)
	}
	if len(d.Text()) > diffMaxBytes+4096 || !strings.Contains(d.Text(), "more lines not shown") {
		t.Errorf("got a %d-byte preview; want it cut near %d bytes with a note", len(d.Text()), diffMaxBytes)
	}
}

// fsTestApplyDiff applies a unified diff produced by diffUnified to old.
func fsTestApplyDiff(old, diff string) (string, error) {
	if diff == "" {
		return old, nil
	}
	src := slices.Collect(strings.Lines(old))
	lines := slices.Collect(strings.Lines(diff))
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		return "", fmt.Errorf("bad header")
	}
	var out []string
	pos := 0 // next line of src to copy
	for i := 2; i < len(lines); {
		var as, an, bs, bn int
		h := lines[i]
		if _, err := fmt.Sscanf(fsTestNormHeader(h), "@@ -%d,%d +%d,%d @@", &as, &an, &bs, &bn); err != nil {
			return "", fmt.Errorf("bad hunk header %q: %w", h, err)
		}
		start := as - 1
		if an == 0 {
			start = as
		}
		if start < pos {
			return "", fmt.Errorf("hunk %q goes backwards", h)
		}
		out = append(out, src[pos:start]...)
		pos = start
		i++
		for i < len(lines) && !strings.HasPrefix(lines[i], "@@") {
			l := lines[i]
			i++
			noNL := i < len(lines) && lines[i] == "\\ No newline at end of file\n"
			text := l[1:]
			if noNL {
				text = strings.TrimSuffix(text, "\n")
				i++
			}
			switch l[0] {
			case ' ', '-':
				if pos >= len(src) || src[pos] != text {
					return "", fmt.Errorf("line %d: got %q in the text; diff says %q", pos+1, fsTestAt(src, pos), text)
				}
				if l[0] == ' ' {
					out = append(out, text)
				}
				pos++
			case '+':
				out = append(out, text)
			default:
				return "", fmt.Errorf("bad line %q", l)
			}
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, ""), nil
}

// fsTestLCS is the length of the longest common subsequence of a and b.
func fsTestLCS(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func fsTestAt(src []string, i int) string {
	if i < len(src) {
		return src[i]
	}
	return "<end>"
}

// fsTestNormHeader writes the implicit ",1" counts out.
func fsTestNormHeader(h string) string {
	f := strings.Fields(h)
	if len(f) != 4 {
		return h
	}
	for _, i := range []int{1, 2} {
		if !strings.Contains(f[i], ",") {
			f[i] += ",1"
		}
	}
	return strings.Join(f, " ")
}

// TestDiffTrimKeepsLineNumbersAndContext changes the middle of texts that
// share long starts and ends (which the diff skips), with and without a
// final newline: the hunks must still apply and number lines as in the file.
func TestDiffTrimKeepsLineNumbersAndContext(t *testing.T) {
	var head, tail strings.Builder
	for i := range 40 {
		fmt.Fprintf(&head, "head %d\n", i)
		fmt.Fprintf(&tail, "tail %d\n", i)
	}
	for _, end := range []string{"", "last"} {
		old := head.String() + "middle\n" + tail.String() + end
		for _, new := range []string{
			head.String() + "MIDDLE\n" + tail.String() + end,
			head.String() + tail.String() + end,
			head.String() + "middle\nmore\n" + tail.String() + end,
			strings.Replace(old, "tail 39\n", "TAIL\n", 1),
			strings.Replace(old, "head 0\n", "", 1),
		} {
			d := Diff("a/x", "b/x", []byte(old), []byte(new))
			got, err := fsTestApplyDiff(old, d.Text())
			if err != nil || got != new {
				t.Fatalf("apply: %v\ndiff\n%s", err, d.Text())
			}
		}
	}
	d := Diff("a/x", "b/x", []byte(head.String()+"middle\n"+tail.String()), []byte(head.String()+"MIDDLE\n"+tail.String()))
	if !strings.Contains(d.Text(), "@@ -38,7 +38,7 @@\n head 37\n head 38\n head 39\n-middle\n+MIDDLE\n tail 0\n") {
		t.Errorf("diff\n%s", d.Text())
	}
}

// A file name with a line break, an escape or a hidden character cannot
// forge diff lines: the header names it quoted, on one line each.
func TestDiffHeaderQuotesAHostileName(t *testing.T) {
	for _, name := range []string{"safe.txt\n+++ b/README.md", "ev\x1b[2Ail.sh", "a\u202eb.txt", "nl\u2028x"} {
		for _, d := range []string{FileDiff(name, []byte("a\n"), []byte("b\n")), FileModeDiff(name, []byte("a\n"), []byte("a\n"), 0o644, 0o755)} {
			lines := strings.Split(d, "\n")
			if len(lines) < 2 || lines[0] != "--- "+strconv.Quote("a/"+name) || lines[1] != "+++ "+strconv.Quote("b/"+name) {
				t.Errorf("%q: the header is\n%s", name, d)
			}
		}
	}
	if d := FileDiff("plain name.txt", []byte("a\n"), []byte("b\n")); !strings.HasPrefix(d, "--- a/plain name.txt\n+++ b/plain name.txt\n") {
		t.Errorf("a plain name is quoted:\n%s", d)
	}
}
