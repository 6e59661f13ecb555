package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/tools/snapshot"
)

// TestShellDryRunUndoBound: the dry run says when undo could not restore
// what a command changes, from the journal's own bounds.
func TestShellDryRunUndoBound(t *testing.T) {
	s := newShellUndoTest(t)
	s.undo.Tracker.Close()
	s.undo.Tracker = snapshot.New(snapshot.Options{Root: s.dir, CacheDir: t.TempDir(), MaxFileBytes: 64, Exclude: DefaultShellExclude})
	for rel, size := range map[string]int{"small/a.txt": 10, "big/blob.bin": 100, "node_modules/x/i.js": 5, "ok.txt": 3} {
		p := filepath.Join(s.dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Repeat("x", size)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct{ command, want string }{
		{"rm -r small", ""},
		{"rm ok.txt && mv small other", ""},
		{"rm -r big", "big/blob.bin is over the 64 B undo keeps per file"},
		{"sed -i s/x/y/ big/blob.bin", "big/blob.bin is over"},
		{"rm -rf node_modules", "node_modules is in node_modules/, which undo leaves out"},
		{"rm node_modules/x/i.js", "which undo leaves out"},
		{"rm -r b*", "big/blob.bin is over"},
		{"find . -name '*.tmp' -delete", "undo"},
	}
	for _, tt := range tests {
		args, _ := json.Marshal(map[string]string{"command": tt.command})
		res, err := s.tool.DryRun(context.Background(), args)
		if err != nil {
			t.Fatal(err)
		}
		got := res.Command.NotUndoable
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("%s: NotUndoable %q; want %q", tt.command, got, tt.want)
		}
	}
}
