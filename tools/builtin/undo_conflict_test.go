package builtin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/tools"
)

// refusal writes content to f.txt with fs_write, lets tamper change the
// file, and returns the conflict an undo then refuses with.
func refusal(t *testing.T, content string, tamper func(p string)) *tools.Conflict {
	t.Helper()
	ctx := context.Background()
	ws, dir := fsTestWorkspace(t)
	tool := NewFsWrite(ws, &fsTestBlobs{})
	res, err := tool.Execute(ctx, fsTestArgs(t, map[string]any{"path": "f.txt", "content": content}))
	if err != nil {
		t.Fatal(err)
	}
	tamper(filepath.Join(dir, "f.txt"))
	_, err = tool.(tools.Reverter).Revert(ctx, res.Undo, false)
	var c *tools.Conflict
	if !errors.As(err, &c) {
		t.Fatalf("got %v; want a *Conflict", err)
	}
	return c
}

func numbered(n int, format string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, format+"\n", i)
	}
	return b.String()
}

// A refused undo shows what changed since the call as a diff instead of
// the digests of the two versions.
func TestUndoRefusalShowsWhatChangedSince(t *testing.T) {
	c := refusal(t, numbered(20, "line %d"), func(p string) {
		edited := strings.Replace(numbered(20, "line %d"), "line 3\n", "line three\n\x1b]0;pwned\x07\n", 1)
		if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	if strings.Contains(c.Detail, "sha256") {
		t.Errorf("detail %q quotes digests though a diff says what changed", c.Detail)
	}
	for _, want := range []string{"a/f.txt (as the call left it)", "b/f.txt (now)", "-line 3", "+line three", `+\e]0;pwned\a`} {
		if !strings.Contains(c.Diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, c.Diff)
		}
	}
	if strings.ContainsAny(c.Diff, "\x1b\x07") {
		t.Errorf("diff carries raw controls: %q", c.Diff)
	}
}

// The diff is bounded in lines and in each line's width.
func TestUndoRefusalDiffIsBounded(t *testing.T) {
	c := refusal(t, "one line\n", func(p string) {
		if err := os.WriteFile(p, []byte(numbered(100, "%d "+strings.Repeat("x", 500))), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	got := strings.Split(c.Diff, "\n")
	if len(got) != fsSinceLines+1 || !strings.HasPrefix(got[len(got)-1], "… ") {
		t.Fatalf("got %d lines ending %q; want %d and a line saying how many more", len(got), got[len(got)-1], fsSinceLines+1)
	}
	for _, l := range got {
		if n := len([]rune(l)); n > fsSinceLineRune {
			t.Errorf("a line of %d characters; want at most %d", n, fsSinceLineRune)
		}
	}
}

// A change no diff can show (a binary file) is named by its digests, at
// the end of the detail.
func TestUndoRefusalOfBinaryNamesTheDigests(t *testing.T) {
	c := refusal(t, "text\n", func(p string) {
		if err := os.WriteFile(p, []byte("\x00\x01\x02binary"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	if c.Diff != "" {
		t.Errorf("got diff %q of a binary file; want none", c.Diff)
	}
	if !strings.Contains(c.Detail, "contents differ") || !strings.HasSuffix(c.Detail, "expected)") || !strings.Contains(c.Detail, "sha256") {
		t.Errorf("detail %q; want what differs, then the digests", c.Detail)
	}
}

// A command's refused undo shows the diff of each file changed since.
func TestShellUndoRefusalShowsWhatChangedSince(t *testing.T) {
	s := newShellUndoTest(t)
	fsTestFile(t, s.dir, "b.txt", "b1\n", 0o644)
	res := s.run("echo b2 > b.txt")
	fsTestFile(t, s.dir, "b.txt", "mine\n", 0o644)
	_, err := s.tool.Revert(context.Background(), res.Undo, false)
	var c *tools.Conflict
	if !errors.As(err, &c) {
		t.Fatalf("Revert: %v; want a conflict", err)
	}
	if strings.Contains(c.Detail, "sha256") {
		t.Errorf("detail %q quotes digests though a diff says what changed", c.Detail)
	}
	for _, want := range []string{"b/b.txt (now)", "-b2", "+mine"} {
		if !strings.Contains(c.Diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, c.Diff)
		}
	}
}

// One line over the bound is shown rather than counted.
func TestUndoRefusalDiffShowsALastLine(t *testing.T) {
	c := refusal(t, "one line\n", func(p string) {
		if err := os.WriteFile(p, []byte(numbered(fsSinceLines-3, "%d")), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	if n := strings.Count(c.Diff, "\n") + 1; n != fsSinceLines+1 || strings.Contains(c.Diff, "more line") {
		t.Fatalf("a diff one line over the bound: %d lines, want %d unfolded:\n%s", n, fsSinceLines+1, c.Diff)
	}
}
