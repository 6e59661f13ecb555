package agent

import (
	"strings"
	"testing"

	"myclaw/history"
	"myclaw/tools"
)

// A refused undo is followed by what changed since the call, indented
// under it, so the person can judge whether to force it.
func TestRefusedUndoShowsWhatChangedSince(t *testing.T) {
	c := &tools.Conflict{What: "f.txt", Detail: "its contents differ from what the call left", Diff: "--- a/f.txt\n+++ b/f.txt\n-old\n+new"}
	lines, _, err := DescribeWalk("undo", []history.Outcome{{Entry: history.Entry{Tool: "fs_write"}, Err: c, Message: "Refused: f.txt changed since the call"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(lines, "\n")
	want := "Refused: f.txt changed since the call\nWhat changed since the call:\n    --- a/f.txt\n    +++ b/f.txt\n    -old\n    +new"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
