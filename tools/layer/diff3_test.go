package layer

import (
	"strings"
	"testing"
)

func TestMerge3(t *testing.T) {
	base := "a\nb\nc\nd\ne\n"
	for _, c := range []struct {
		name, ours, theirs, want string
		conflicts                int
	}{
		{"only ours", "a\nB\nc\nd\ne\n", base, "a\nB\nc\nd\ne\n", 0},
		{"only theirs", base, "a\nb\nc\nD\ne\n", "a\nb\nc\nD\ne\n", 0},
		{"different lines", "A\nb\nc\nd\ne\n", "a\nb\nc\nd\nE\n", "A\nb\nc\nd\nE\n", 0},
		{"the same change", "a\nX\nc\nd\ne\n", "a\nX\nc\nd\ne\n", "a\nX\nc\nd\ne\n", 0},
		{"insert and delete apart", "a\nnew\nb\nc\nd\ne\n", "a\nb\nc\nd\n", "a\nnew\nb\nc\nd\n", 0},
		{"both at the end", base + "ours\n", base + "theirs\n",
			base + "<<<<<<< edit agent\nours\n||||||| when the agent started\n=======\ntheirs\n>>>>>>> workspace\n", 1},
		{"the same line", "a\nb\nOURS\nd\ne\n", "a\nb\nTHEIRS\nd\ne\n",
			"a\nb\n<<<<<<< edit agent\nOURS\n||||||| when the agent started\nc\n=======\nTHEIRS\n>>>>>>> workspace\nd\ne\n", 1},
		{"a deletion against a change", "a\nb\nd\ne\n", "a\nb\nC\nd\ne\n",
			"a\nb\n<<<<<<< edit agent\n||||||| when the agent started\nc\n=======\nC\n>>>>>>> workspace\nd\ne\n", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := merge3([]byte(base), []byte(c.ours), []byte(c.theirs))
			if string(m.text) != c.want || m.conflicts != c.conflicts {
				t.Errorf("merged (%d conflicts):\n%s\nwant (%d):\n%s", m.conflicts, m.text, c.conflicts, c.want)
			}
		})
	}
}

func TestMerge3WithoutABase(t *testing.T) {
	// Both created the file: the same content merges, another conflicts.
	if m := merge3(nil, []byte("x\n"), []byte("x\n")); m.conflicts != 0 || string(m.text) != "x\n" {
		t.Errorf("the same new file: %q, %d conflicts", m.text, m.conflicts)
	}
	if m := merge3(nil, []byte("x\n"), []byte("y\n")); m.conflicts != 1 || !strings.Contains(string(m.text), "<<<<<<<") {
		t.Errorf("two new files: %q, %d conflicts", m.text, m.conflicts)
	}
}

func TestMerge3NoNewlineAtEnd(t *testing.T) {
	m := merge3([]byte("a\nb"), []byte("A\nb"), []byte("a\nB"))
	if m.conflicts != 0 || string(m.text) != "A\nB" {
		t.Errorf("merged %q (%d conflicts)", m.text, m.conflicts)
	}
}
