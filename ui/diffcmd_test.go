package ui

import (
	"strings"
	"testing"
)

func TestDiffCommand(t *testing.T) {
	f := newFake()
	f.diffOut = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n"
	m := runLine(t, newTestModel(t, f), "/diff")
	if got := lastBlock(m); !strings.Contains(got, "-one") || !strings.Contains(got, "+two") {
		t.Fatalf("/diff showed %q", got)
	}
	m = runLine(t, m, "/diff 3")
	if len(f.diffCalls) != 2 || f.diffCalls[0] != 0 || f.diffCalls[1] != 3 {
		t.Fatalf("diff calls %v; want [0 3]", f.diffCalls)
	}
	m = runLine(t, m, "/diff x")
	if got := lastBlock(m); !strings.Contains(got, "usage: /diff [N]") {
		t.Fatalf("/diff x showed %q", got)
	}
	f.diffOut = ""
	m = runLine(t, m, "/diff")
	if got := lastBlock(m); !strings.Contains(got, "no changes in place") {
		t.Fatalf("/diff with nothing showed %q", got)
	}
}
