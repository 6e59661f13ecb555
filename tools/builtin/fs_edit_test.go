package builtin

import (
	"context"
	"myclaw/tools"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestFsEdit(t *testing.T) {
	ctx := context.Background()
	const code = "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n\nfunc c() {\n\treturn 1\n}\n"
	tests := []struct {
		name        string
		file        string
		mode        os.FileMode
		args        map[string]any
		want        string
		wantSummary string
		wantPreview string
		wantReplace int
	}{
		{
			name:        "one match",
			file:        "a\nb\nc\n",
			mode:        0o644,
			args:        map[string]any{"old_string": "b\n", "new_string": "B\n"},
			want:        "a\nB\nc\n",
			wantSummary: "Edit f.txt (+1 \u22121 lines)",
			wantPreview: "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
			wantReplace: 1,
		},
		{
			name:        "replace all keeps the mode",
			file:        code,
			mode:        0o755,
			args:        map[string]any{"old_string": "return 1", "new_string": "return 2", "replace_all": true},
			want:        strings.ReplaceAll(code, "return 1", "return 2"),
			wantSummary: "Edit f.txt (+3 \u22123 lines)",
			wantReplace: 3,
		},
		{
			name:        "unique with context",
			file:        code,
			mode:        0o600,
			args:        map[string]any{"old_string": "func b() {\n\treturn 1", "new_string": "func b() {\n\treturn 42"},
			want:        strings.Replace(code, "func b() {\n\treturn 1", "func b() {\n\treturn 42", 1),
			wantSummary: "Edit f.txt (+1 \u22121 lines)",
			wantReplace: 1,
		},
		{
			name:        "deleting text",
			file:        "keep\ndrop me\nkeep\n",
			mode:        0o644,
			args:        map[string]any{"old_string": "drop me\n", "new_string": ""},
			want:        "keep\nkeep\n",
			wantSummary: "Edit f.txt (+0 \u22121 lines)",
			wantReplace: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, dir := fsTestWorkspace(t)
			p := fsTestFile(t, dir, "f.txt", tt.file, tt.mode)
			tool := NewFsEdit(ws, &fsTestBlobs{})
			tt.args["path"] = "f.txt"
			args := fsTestArgs(t, tt.args)
			dry, err := tools.Call(ctx, tool, args, true)
			if err != nil {
				t.Fatalf("dry run: %v", err)
			}
			if dry.Summary != tt.wantSummary || !strings.HasPrefix(dry.Preview, tt.wantPreview) || dry.UndoPlan != "Undo restores the previous content of f.txt" {
				t.Errorf("got dry run %q / %q\n%s", dry.Summary, dry.UndoPlan, dry.Preview)
			}
			if got := fsTestRead(t, p); got != tt.file {
				t.Fatalf("the dry run changed the file to %q", got)
			}
			res, err := tool.Execute(ctx, args)
			if err != nil {
				t.Fatalf("execute: %v", err)
			}
			if got := fsTestRead(t, p); got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
			if got := fsTestMode(t, p); got != tt.mode {
				t.Errorf("got mode %o; want %o", got, tt.mode)
			}
			out := res.Output.(fsEditOutput)
			if out.Replacements != tt.wantReplace || out.Path != "f.txt" || out.SizeBytes != len(tt.want) {
				t.Errorf("got output %+v; want %d replacements, %d bytes", out, tt.wantReplace, len(tt.want))
			}
			if res.Summary != tt.wantSummary || res.Capability != "fs:write:f.txt" {
				t.Errorf("got %q / %q; want %q / fs:write:f.txt", res.Summary, res.Capability, tt.wantSummary)
			}
		})
	}
}

func TestFsEditRefuses(t *testing.T) {
	ctx := context.Background()
	ws, dir := fsTestWorkspace(t)
	outside := fsTestFile(t, t.TempDir(), "o.txt", "alpha\n", 0o644)
	fsTestFile(t, dir, "f.txt", "alpha\nbeta\nalpha\ngamma\nalpha\n", 0o644)
	fsTestFile(t, dir, "crlf.txt", "one\r\ntwo\r\n", 0o644)
	fsTestFile(t, dir, "bin.dat", "alpha\x00beta", 0o644)
	fsTestFile(t, dir, "latin1.txt", "caf\xe9 alpha\n", 0o644)
	if err := os.Symlink(outside, filepath.Join(dir, "out-link")); err != nil {
		t.Fatal(err)
	}
	fsTestFile(t, dir, "huge.txt", "alpha\n"+strings.Repeat("z", fsMaxWriteBytes), 0o644)
	tests := []struct {
		name     string
		args     map[string]any
		wantKind tools.Kind
		wantMsg  string
		wantHint string
		wantDet  map[string]any
	}{
		{
			name:     "several matches",
			args:     map[string]any{"path": "f.txt", "old_string": "alpha", "new_string": "A"},
			wantKind: tools.KindInvalidArgs,
			wantMsg:  "old_string occurs 3 times in f.txt (lines 1, 3, 5)",
			wantHint: "replace_all",
			wantDet:  map[string]any{"path": "f.txt", "matches": 3, "lines": []int{1, 3, 5}},
		},
		{
			name:     "no match",
			args:     map[string]any{"path": "f.txt", "old_string": "delta", "new_string": "D"},
			wantKind: tools.KindNotFound,
			wantMsg:  "old_string was not found in f.txt",
			wantHint: "byte for byte",
		},
		{
			name:     "no match for line endings",
			args:     map[string]any{"path": "crlf.txt", "old_string": "one\ntwo", "new_string": "1\n2"},
			wantKind: tools.KindNotFound,
			wantHint: "\\r\\n",
		},
		{
			name:     "no match for surrounding whitespace",
			args:     map[string]any{"path": "f.txt", "old_string": "  gamma  ", "new_string": "G"},
			wantKind: tools.KindNotFound,
			wantHint: "without its leading or trailing whitespace",
		},
		{name: "same strings", args: map[string]any{"path": "f.txt", "old_string": "beta", "new_string": "beta"}, wantKind: tools.KindInvalidArgs, wantMsg: "identical"},
		{name: "empty old_string", args: map[string]any{"path": "f.txt", "old_string": "", "new_string": "x"}, wantKind: tools.KindInvalidArgs, wantMsg: "old_string is empty"},
		{name: "missing new_string", args: map[string]any{"path": "f.txt", "old_string": "beta"}, wantKind: tools.KindInvalidArgs},
		{name: "missing file", args: map[string]any{"path": "nope.txt", "old_string": "a", "new_string": "b"}, wantKind: tools.KindNotFound, wantHint: "fs_write"},
		{name: "binary", args: map[string]any{"path": "bin.dat", "old_string": "alpha", "new_string": "b"}, wantKind: tools.KindUnsupported, wantMsg: "not a text file"},
		{name: "not UTF-8", args: map[string]any{"path": "latin1.txt", "old_string": "alpha", "new_string": "b"}, wantKind: tools.KindUnsupported, wantMsg: "not UTF-8 text"},
		{name: "dotdot", args: map[string]any{"path": "../f.txt", "old_string": "a", "new_string": "b"}, wantKind: tools.KindPermissionDenied},
		{name: "symlink out", args: map[string]any{"path": "out-link", "old_string": "alpha", "new_string": "b"}, wantKind: tools.KindPermissionDenied},
		{name: "file too large", args: map[string]any{"path": "huge.txt", "old_string": "alpha", "new_string": "b"}, wantKind: tools.KindQuotaExceeded, wantMsg: "over the 10.0 MB limit"},
		{name: "folder", args: map[string]any{"path": ".", "old_string": "a", "new_string": "b"}, wantKind: tools.KindInvalidArgs},
	}
	tool := NewFsEdit(ws, &fsTestBlobs{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tool.Execute(ctx, fsTestArgs(t, tt.args))
			if got := fsTestKind(err); got != tt.wantKind {
				t.Fatalf("got kind %q (%v); want %s", got, err, tt.wantKind)
			}
			te := tools.AsError(err)
			if !strings.Contains(te.Message, tt.wantMsg) || !strings.Contains(te.Hint, tt.wantHint) {
				t.Errorf("got %q / hint %q; want %q / hint with %q", te.Message, te.Hint, tt.wantMsg, tt.wantHint)
			}
			if tt.wantDet != nil && !reflect.DeepEqual(te.Details, tt.wantDet) {
				t.Errorf("got details %v; want %v", te.Details, tt.wantDet)
			}
		})
	}
	if got := fsTestRead(t, filepath.Join(dir, "f.txt")); got != "alpha\nbeta\nalpha\ngamma\nalpha\n" {
		t.Errorf("got %q; want f.txt unchanged by refused edits", got)
	}
	if got := fsTestRead(t, outside); got != "alpha\n" {
		t.Errorf("got outside file %q; want it untouched", got)
	}
}

func TestFsEditMatchLines(t *testing.T) {
	tests := []struct {
		text, old string
		max       int
		want      []int
	}{
		{"a\nb\na\n", "a", 10, []int{1, 3}},
		{"x\ny\nx\ny\nx\ny\n", "x\ny", 10, []int{1, 3, 5}},
		{"aaaa", "aa", 10, []int{1, 1}},
		{"a\na\na\n", "a", 2, []int{1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if got := fsEditMatchLines(tt.text, tt.old, tt.max); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v; want %v", got, tt.want)
			}
		})
	}
}
