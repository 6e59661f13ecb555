package builtin

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestShellOutputFollowsTheBudget(t *testing.T) {
	dir := t.TempDir()
	budget := 4 << 10
	tool := NewShellRun(ShellOptions{Dir: dir, OutputDir: t.TempDir(), ShownBytes: func() int { return budget }})
	args := json.RawMessage(`{"command":"seq 1 5000"}`)
	res, err := tool.Execute(context.Background(), args)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Body) > budget+200 || !strings.HasPrefix(res.Body, "[stdout]\n1\n2\n") || !strings.Contains(res.Body, "\n5000\n") {
		t.Fatalf("body of %d bytes; want head and tail within %d:\n%.200s", len(res.Body), budget, res.Body)
	}
	out := res.Output.(shellOutput)
	if out.OutputFile == "" || !strings.Contains(out.Note, "shown first") {
		t.Fatalf("output %+v; want the cut said and the full output kept", out)
	}
	// A budget below the floor still shows the floor; none means the default.
	budget = 10
	res, _ = tool.Execute(context.Background(), args)
	if n := len(res.Body); n < shellMinShownBytes || n > shellMinShownBytes+200 {
		t.Fatalf("body of %d bytes with a tiny budget; want about %d", n, shellMinShownBytes)
	}
	budget = 0
	res, _ = tool.Execute(context.Background(), args)
	if n := len(res.Body); n < 20<<10 {
		t.Fatalf("body of %d bytes with no budget; want the whole 24 KB output", n)
	}
}
