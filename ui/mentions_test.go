package ui

import (
	"context"
	"testing"
	"testing/fstest"
)

// The space a completed file mention ends in is not doubled by the space
// typed after it out of habit; a second space still goes in.
func TestCompletedMentionSpaceIsNotDoubled(t *testing.T) {
	fsys := fstest.MapFS{"calc.go": {Data: []byte("x")}, "docs/a.md": {Data: []byte("x")}}
	m := New(newFake(), Options{Workspace: "/work/project", Files: fsys})
	m = update(m, sizeMsg(testWidth, testHeight))
	m = runCmd(t, m, buildIndex(context.Background(), fsys, ""))
	for _, c := range []struct{ typed, want string }{
		{" and", "look at @calc.go and"},
		{"and", "look at @calc.go and"},
		{"  and", "look at @calc.go  and"},
	} {
		m.input.setValue("")
		m = typeText(m, "look at @calc")
		m = update(m, keyMsg("tab"))
		if got := m.input.ta.value(); got != "look at @calc.go " {
			t.Fatalf("completed to %q", got)
		}
		m = typeText(m, c.typed)
		if got := m.input.ta.value(); got != c.want {
			t.Errorf("typed %q after the completion: %q; want %q", c.typed, got, c.want)
		}
	}
	// A folder is left open: no space to take back.
	m.input.setValue("")
	m = typeText(m, "in @doc")
	m = update(m, keyMsg("tab"))
	m = typeText(m, " x")
	if got := m.input.ta.value(); got != "in @docs/ x" {
		t.Errorf("after a folder: %q", got)
	}
}
