package agent

import (
	"strings"
	"testing"

	"myclaw/history"
)

func TestDescribeWalkNotes(t *testing.T) {
	e := history.Entry{Tool: "fs_write", Summary: "Create a.txt"}
	_, note, _ := DescribeWalk("redo", []history.Outcome{{Entry: e, Done: true, Message: "Redid fs_write: Create a.txt"}}, nil)
	if !strings.Contains(note, "changes are back in place") || strings.Contains(note, "as they were before") {
		t.Errorf("redo note = %q; want it to say the changes are back", note)
	}
	_, note, _ = DescribeWalk("undo", []history.Outcome{{Entry: e, Done: true}}, nil)
	if !strings.Contains(note, "as they were before them") {
		t.Errorf("undo note = %q", note)
	}
	lines, note, err := DescribeWalk("undo", []history.Outcome{{Entry: history.Entry{Tool: "shell_run"}, Skipped: true, Message: "skipped shell_run `make`: its effects stay"}}, history.ErrNothingToUndo)
	if err != nil || note != "" || len(lines) != 2 || lines[1] != "Nothing to undo." {
		t.Errorf("skipped only: lines %q, note %q, err %v", lines, note, err)
	}
}

func TestShortSaysWhenThereWasNothingMore(t *testing.T) {
	one := []history.Outcome{{Done: true}, {Skipped: true}}
	if got := Short("undo", 5, one); got != "Nothing more to undo (1 of 5 asked)." {
		t.Errorf("Short = %q", got)
	}
	if got := Short("undo", 1, one); got != "" {
		t.Errorf("all done: %q", got)
	}
	if got := Short("redo", 3, nil); got != "" {
		t.Errorf("none done (said by DescribeWalk): %q", got)
	}
}
