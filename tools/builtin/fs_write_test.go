package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"myclaw/tools"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFsWrite(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name        string
		setup       func(t *testing.T, dir string)
		path        string
		content     string
		wantSummary string
		wantPreview string // prefix
		wantPlan    string
		wantMode    os.FileMode
		wantOut     fsWriteOutput
	}{
		{
			name:        "create in new folders",
			path:        "notes/2024/a.txt",
			content:     "hello\nworld\n",
			wantSummary: "Create notes/2024/a.txt (12 B)",
			wantPreview: "--- /dev/null\n+++ b/notes/2024/a.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n",
			wantPlan:    "Undo deletes notes/2024/a.txt and the folders notes/, notes/2024/ it created",
			wantMode:    0o644,
			wantOut:     fsWriteOutput{Path: "notes/2024/a.txt", SizeBytes: 12, Created: true, LinesAdded: 2},
		},
		{
			name:        "create in one new folder",
			path:        "notes/a.txt",
			content:     strings.Repeat("x", 1229),
			wantSummary: "Create notes/a.txt (1.2 KB)",
			wantPlan:    "Undo deletes notes/a.txt and the folder notes/ it created",
			wantMode:    0o644,
			wantOut:     fsWriteOutput{Path: "notes/a.txt", SizeBytes: 1229, Created: true, LinesAdded: 1},
		},
		{
			name:        "create at the root",
			path:        "a.txt",
			content:     "",
			wantSummary: "Create a.txt (0 B)",
			wantPlan:    "Undo deletes a.txt",
			wantMode:    0o644,
			wantOut:     fsWriteOutput{Path: "a.txt", Created: true},
		},
		{
			name:        "overwrite keeps the mode",
			setup:       func(t *testing.T, dir string) { fsTestFile(t, dir, "src/x.sh", "#!/bin/sh\necho old\nexit 0\n", 0o750) },
			path:        "src/x.sh",
			content:     "#!/bin/sh\necho new\necho more\nexit 0\n",
			wantSummary: "Overwrite src/x.sh (+2 \u22121 lines)",
			wantPreview: "--- a/src/x.sh\n+++ b/src/x.sh\n@@ -1,3 +1,4 @@\n #!/bin/sh\n-echo old\n+echo new\n+echo more\n exit 0\n",
			wantPlan:    "Undo restores the previous content of src/x.sh",
			wantMode:    0o750,
			wantOut:     fsWriteOutput{Path: "src/x.sh", SizeBytes: 36, LinesAdded: 2, LinesRemoved: 1},
		},
		{
			name:        "identical content",
			setup:       func(t *testing.T, dir string) { fsTestFile(t, dir, "same.txt", "same\n", 0o600) },
			path:        "same.txt",
			content:     "same\n",
			wantSummary: "No change to same.txt (content identical)",
			wantPlan:    "Nothing to undo: the content stays the same",
			wantMode:    0o600,
			wantOut:     fsWriteOutput{Path: "same.txt", SizeBytes: 5},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, dir := fsTestWorkspace(t)
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			blobs := &fsTestBlobs{}
			tool := NewFsWrite(ws, blobs)
			args := fsTestArgs(t, map[string]any{"path": tt.path, "content": tt.content})
			p := filepath.Join(dir, filepath.FromSlash(tt.path))
			var before string
			if b, err := os.ReadFile(p); err == nil {
				before = string(b)
			}

			dry, err := tools.Call(ctx, tool, args, true)
			if err != nil {
				t.Fatalf("dry run: %v", err)
			}
			if dry.Summary != tt.wantSummary || dry.UndoPlan != tt.wantPlan || dry.Capability != "fs:write:"+tt.path {
				t.Errorf("got dry run %q / %q / %q; want %q / %q / fs:write:%s", dry.Summary, dry.UndoPlan, dry.Capability, tt.wantSummary, tt.wantPlan, tt.path)
			}
			if !strings.HasPrefix(dry.Preview, tt.wantPreview) {
				t.Errorf("got preview\n%s\nwant it to start with\n%s", dry.Preview, tt.wantPreview)
			}
			// A write of identical content changes nothing: no undo data, so
			// no journal entry and no undo step.
			if unchanged := tt.name == "identical content"; (len(dry.Undo) == 0) != unchanged || dry.Unchanged != unchanged {
				t.Errorf("got undo data %q, unchanged %v; want undo data only for a change", dry.Undo, dry.Unchanged)
			}
			if b, err := os.ReadFile(p); (err == nil) != (tt.setup != nil) || string(b) != before {
				t.Fatalf("dry run changed %s", tt.path)
			}

			res, err := tool.Execute(ctx, args)
			if err != nil {
				t.Fatalf("execute: %v", err)
			}
			if got := fsTestRead(t, p); got != tt.content {
				t.Errorf("got content %q; want %q", got, tt.content)
			}
			if got := fsTestMode(t, p); got != tt.wantMode {
				t.Errorf("got mode %o; want %o", got, tt.wantMode)
			}
			if res.Summary != tt.wantSummary || res.UndoPlan != tt.wantPlan {
				t.Errorf("got %q / %q; want %q / %q", res.Summary, res.UndoPlan, tt.wantSummary, tt.wantPlan)
			}
			if out := res.Output.(fsWriteOutput); out != tt.wantOut {
				t.Errorf("got output %+v; want %+v", out, tt.wantOut)
			}
			if string(res.Undo) != string(dry.Undo) {
				t.Errorf("got undo %s; want the dry run's %s", res.Undo, dry.Undo)
			}
			fsTestNoTemp(t, dir)
		})
	}
}

// fsTestNoTemp fails if a temporary file of an atomic write was left.
func fsTestNoTemp(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".myclaw-") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
}

func TestFsWriteRefuses(t *testing.T) {
	ctx := context.Background()
	ws, dir := fsTestWorkspace(t)
	outside := t.TempDir()
	secret := fsTestFile(t, outside, "secret.txt", "outside\n", 0o644)
	fsTestFile(t, dir, "file.txt", "x\n", 0o644)
	fsTestFile(t, dir, "real.txt", "real\n", 0o644)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(filepath.Join(dir, "folder"), 0o755))
	must(os.Symlink(secret, filepath.Join(dir, "abs-link")))
	rel, _ := filepath.Rel(dir, secret)
	must(os.Symlink(rel, filepath.Join(dir, "rel-link")))
	must(os.Symlink("real.txt", filepath.Join(dir, "inside-link")))
	must(os.Symlink(outside, filepath.Join(dir, "out-dir")))
	must(os.Symlink(filepath.Join(outside, "new.txt"), filepath.Join(dir, "dangling-out")))
	mkfifo(t, filepath.Join(dir, "pipe"))
	must(os.Symlink("missing-folder", filepath.Join(dir, "ghost")))

	tests := []struct {
		name     string
		path     string
		content  any
		wantKind tools.Kind
		wantMsg  string
	}{
		{"dotdot", "../x.txt", "x", tools.KindPermissionDenied, "outside the workspace"},
		{"etc passwd", "/etc/passwd", "x", tools.KindPermissionDenied, "outside the workspace"},
		{"absolute outside", secret, "x", tools.KindPermissionDenied, "outside the workspace"},
		{"NUL byte", "a\x00.txt", "x", tools.KindInvalidArgs, "NUL"},
		{"empty path", "", "x", tools.KindInvalidArgs, "empty"},
		{"workspace root", ".", "x", tools.KindInvalidArgs, "workspace folder itself"},
		{"trailing slash", "newdir/", "x", tools.KindInvalidArgs, "names a folder"},
		{"onto a folder", "folder", "x", tools.KindInvalidArgs, "is a folder"},
		{"under a file", "file.txt/inner.txt", "x", tools.KindInvalidArgs, "is a file, not a folder"},
		{"absolute symlink out", "abs-link", "x", tools.KindPermissionDenied, "symbolic link that leads outside"},
		{"relative symlink out", "rel-link", "x", tools.KindPermissionDenied, "symbolic link that leads outside"},
		{"dangling symlink out", "dangling-out", "x", tools.KindPermissionDenied, "outside"},
		{"symlink inside", "inside-link", "x", tools.KindInvalidArgs, "symbolic link"},
		{"through a symlinked folder out", "out-dir/new.txt", "x", tools.KindPermissionDenied, "outside the workspace"},
		{"FIFO", "pipe", "x", tools.KindUnsupported, "named pipe"},
		{"under a broken symlink", "ghost/a.txt", "x", tools.KindInvalidArgs, "ghost is a broken symbolic link"},
		{"too large", "big.txt", strings.Repeat("x", fsMaxWriteBytes+1), tools.KindQuotaExceeded, "over the 10.0 MB limit"},
		{"content missing", "c.txt", nil, tools.KindInvalidArgs, "content is missing"},
	}
	tool := NewFsWrite(ws, &fsTestBlobs{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{"path": tt.path}
			if tt.content != nil {
				args["content"] = tt.content
			}
			for _, dry := range []bool{true, false} {
				var err error
				if dry {
					_, err = tools.Call(ctx, tool, fsTestArgs(t, args), true)
				} else {
					_, err = tool.Execute(ctx, fsTestArgs(t, args))
				}
				if got := fsTestKind(err); got != tt.wantKind {
					t.Fatalf("dry=%v: got kind %q (%v); want %s", dry, got, err, tt.wantKind)
				}
				if !strings.Contains(err.Error(), tt.wantMsg) {
					t.Errorf("dry=%v: got %q; want it to contain %q", dry, err.Error(), tt.wantMsg)
				}
			}
		})
	}
	if got := fsTestRead(t, secret); got != "outside\n" {
		t.Errorf("got outside file %q; want it untouched", got)
	}
	if _, err := os.Lstat(filepath.Join(outside, "new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v for a file outside; want it never created", err)
	}
	if got := fsTestRead(t, filepath.Join(dir, "real.txt")); got != "real\n" {
		t.Errorf("got %q through the inside link; want it untouched", got)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "pipe")); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("got %v, %v; want the FIFO left alone", fi, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "newdir")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v; want no folder created by a refused call", err)
	}
	fsTestNoTemp(t, dir)
}

// TestFsWriteHardLink checks that a hard link inside the workspace to a
// file outside is replaced, never written through.
func TestFsWriteHardLink(t *testing.T) {
	ws, dir := fsTestWorkspace(t)
	outside := fsTestFile(t, t.TempDir(), "shared.txt", "outside content\n", 0o644)
	link := filepath.Join(dir, "link.txt")
	if err := os.Link(outside, link); err != nil {
		t.Skipf("hard links across these folders are not possible here: %v", err)
	}
	res, err := NewFsWrite(ws, &fsTestBlobs{}).Execute(context.Background(), fsTestArgs(t, map[string]any{"path": "link.txt", "content": "new\n"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := fsTestRead(t, outside); got != "outside content\n" {
		t.Errorf("got outside file %q; want it unchanged", got)
	}
	if got := fsTestRead(t, link); got != "new\n" {
		t.Errorf("got %q in the workspace; want the new content", got)
	}
	if res.Summary != "Overwrite link.txt (+1 \u22121 lines)" {
		t.Errorf("got summary %q", res.Summary)
	}
}

// fsTestBrokenBlobs is a BlobStore that cannot store anything.
type fsTestBrokenBlobs struct{}

func (fsTestBrokenBlobs) Put([]byte) (string, error) { return "", errors.New("disk full") }
func (fsTestBrokenBlobs) Get(string) ([]byte, error) { return nil, errors.New("disk full") }

// TestFsWriteBlobFailure checks that nothing is written when the previous
// content cannot be kept for undo.
func TestFsWriteBlobFailure(t *testing.T) {
	ws, dir := fsTestWorkspace(t)
	p := fsTestFile(t, dir, "keep.txt", "precious\n", 0o644)
	calls := []struct {
		tool tools.Tool
		args map[string]any
	}{
		{NewFsWrite(ws, fsTestBrokenBlobs{}), map[string]any{"path": "new/x.txt", "content": "x"}},
		{NewFsWrite(ws, fsTestBrokenBlobs{}), map[string]any{"path": "keep.txt", "content": "gone\n"}},
		{NewFsEdit(ws, fsTestBrokenBlobs{}), map[string]any{"path": "keep.txt", "old_string": "precious", "new_string": "gone"}},
	}
	for _, c := range calls {
		if _, err := c.tool.Execute(context.Background(), fsTestArgs(t, c.args)); err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("%s %v: got %v; want the blob store's failure", c.tool.Meta().Name, c.args, err)
		}
	}
	if got := fsTestRead(t, p); got != "precious\n" {
		t.Errorf("got %q; want the file untouched", got)
	}
	if fsTestExists(filepath.Join(dir, "new")) {
		t.Errorf("got the folder new/ created; want nothing written")
	}
}

func TestFsWriteWithoutBlobs(t *testing.T) {
	ws, dir := fsTestWorkspace(t)
	tool := NewFsWrite(ws, nil)
	res, err := tool.Execute(context.Background(), fsTestArgs(t, map[string]any{"path": "a.txt", "content": "a"}))
	if err != nil {
		t.Fatal(err)
	}
	if res.Undo != nil || res.UndoPlan != "" {
		t.Errorf("got undo %s / %q; want none without a blob store", res.Undo, res.UndoPlan)
	}
	if got := fsTestRead(t, filepath.Join(dir, "a.txt")); got != "a" {
		t.Errorf("got %q; want the file written", got)
	}
	if _, err := tool.(tools.Reverter).Revert(context.Background(), json.RawMessage(`{"path":"a.txt","before":{"exists":false},"after":{"exists":false}}`), false); err == nil {
		t.Errorf("got a revert without a blob store; want an error")
	}
}

// fsTestState is a file's content and mode, or absence.
type fsTestState struct {
	exists  bool
	content string
	mode    os.FileMode
}

func fsTestStateOf(t *testing.T, p string) fsTestState {
	t.Helper()
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return fsTestState{}
	}
	if err != nil {
		t.Fatal(err)
	}
	return fsTestState{true, string(b), fsTestMode(t, p)}
}

func fsTestExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// TestFsUndoRedo walks changes back and forth through Revert: create (with
// nested folders), overwrite and edit, each undone, redone and undone again.
func TestFsUndoRedo(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string)
		tool    string
		args    map[string]any
		path    string
		folders []string // created by the call, gone after undo
	}{
		{
			name:    "create with nested folders",
			tool:    "fs_write",
			args:    map[string]any{"path": "a/b/c/new.txt", "content": "fresh\n"},
			path:    "a/b/c/new.txt",
			folders: []string{"a", "a/b", "a/b/c"},
		},
		{
			name:    "create in a partly existing tree",
			setup:   func(t *testing.T, dir string) { fsTestFile(t, dir, "a/keep.txt", "keep", 0o644) },
			tool:    "fs_write",
			args:    map[string]any{"path": "a/b/new.txt", "content": "fresh\n"},
			path:    "a/b/new.txt",
			folders: []string{"a/b"},
		},
		{
			name:  "overwrite",
			setup: func(t *testing.T, dir string) { fsTestFile(t, dir, "x.txt", "old\x00bytes\xff", 0o600) },
			tool:  "fs_write",
			args:  map[string]any{"path": "x.txt", "content": "new\n"},
			path:  "x.txt",
		},
		{
			name:  "edit",
			setup: func(t *testing.T, dir string) { fsTestFile(t, dir, "src/run.sh", "echo one\necho two\n", 0o755) },
			tool:  "fs_edit",
			args:  map[string]any{"path": "src/run.sh", "old_string": "two", "new_string": "2"},
			path:  "src/run.sh",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, dir := fsTestWorkspace(t)
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			blobs := &fsTestBlobs{}
			tool := NewFsWrite(ws, blobs)
			if tt.tool == "fs_edit" {
				tool = NewFsEdit(ws, blobs)
			}
			rev := tool.(tools.Reverter)
			p := filepath.Join(dir, filepath.FromSlash(tt.path))
			before := fsTestStateOf(t, p)
			res, err := tool.Execute(ctx, fsTestArgs(t, tt.args))
			if err != nil {
				t.Fatal(err)
			}
			after := fsTestStateOf(t, p)
			undo := res.Undo
			for round := range 2 {
				redo, err := rev.Revert(ctx, undo, false)
				if err != nil {
					t.Fatalf("round %d undo: %v", round, err)
				}
				if got := fsTestStateOf(t, p); got != before {
					t.Fatalf("round %d: after undo got %+v; want %+v", round, got, before)
				}
				for _, f := range tt.folders {
					if fsTestExists(filepath.Join(dir, f)) {
						t.Errorf("round %d: folder %s still there after undo", round, f)
					}
				}
				// Undo again: the state already is "before", so it is a no-op.
				if _, err := rev.Revert(ctx, undo, false); err != nil {
					t.Fatalf("round %d: repeated undo: %v", round, err)
				}
				if got := fsTestStateOf(t, p); got != before {
					t.Fatalf("round %d: repeated undo changed the file to %+v", round, got)
				}
				undo, err = rev.Revert(ctx, redo, false)
				if err != nil {
					t.Fatalf("round %d redo: %v", round, err)
				}
				if got := fsTestStateOf(t, p); got != after {
					t.Fatalf("round %d: after redo got %+v; want %+v", round, got, after)
				}
				for _, f := range tt.folders {
					if !fsTestExists(filepath.Join(dir, f)) {
						t.Errorf("round %d: folder %s not recreated by redo", round, f)
					}
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "a", "keep.txt")); tt.setup != nil && tt.name == "create in a partly existing tree" && err != nil {
				t.Errorf("got %v; want a/keep.txt kept", err)
			}
			fsTestNoTemp(t, dir)
		})
	}
}

// TestFsRevertConflict checks that undo refuses to destroy changes made
// after the call, that force then works and keeps them for redo.
func TestFsRevertConflict(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name       string
		existed    bool
		tamper     func(p string) error
		wantDetail string
		user       fsTestState // what the user left; redo after force brings it back
	}{
		{
			name:       "edited since",
			existed:    true,
			tamper:     func(p string) error { return os.WriteFile(p, []byte("user edit\n"), 0o644) },
			wantDetail: "contents differ from what the call left",
			user:       fsTestState{true, "user edit\n", 0o644},
		},
		{
			name:       "mode changed since",
			existed:    true,
			tamper:     func(p string) error { return os.Chmod(p, 0o755) },
			wantDetail: "mode is 0755 now; the call left 0644",
			user:       fsTestState{true, "written\n", 0o755},
		},
		{
			name:       "deleted since",
			existed:    true,
			tamper:     os.Remove,
			wantDetail: "the file was deleted",
			user:       fsTestState{},
		},
		{
			name:       "created file edited since",
			tamper:     func(p string) error { return os.WriteFile(p, []byte("mine now\n"), 0o644) },
			wantDetail: "contents differ",
			user:       fsTestState{true, "mine now\n", 0o644},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, dir := fsTestWorkspace(t)
			p := filepath.Join(dir, "f.txt")
			if tt.existed {
				fsTestFile(t, dir, "f.txt", "original\n", 0o644)
			}
			before := fsTestStateOf(t, p)
			tool := NewFsWrite(ws, &fsTestBlobs{})
			res, err := tool.Execute(ctx, fsTestArgs(t, map[string]any{"path": "f.txt", "content": "written\n"}))
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.tamper(p); err != nil {
				t.Fatal(err)
			}
			rev := tool.(tools.Reverter)
			_, err = rev.Revert(ctx, res.Undo, false)
			var c *tools.Conflict
			if !errors.As(err, &c) {
				t.Fatalf("got %v; want a *Conflict", err)
			}
			if c.What != "f.txt" || !strings.Contains(c.Detail, tt.wantDetail) {
				t.Errorf("got conflict %q / %q; want f.txt / %q", c.What, c.Detail, tt.wantDetail)
			}
			if got := fsTestStateOf(t, p); got != tt.user {
				t.Fatalf("a refused undo changed the file to %+v", got)
			}
			redo, err := rev.Revert(ctx, res.Undo, true)
			if err != nil {
				t.Fatalf("forced undo: %v", err)
			}
			if got := fsTestStateOf(t, p); got != before {
				t.Fatalf("after forced undo got %+v; want %+v", got, before)
			}
			if _, err := rev.Revert(ctx, redo, false); err != nil {
				t.Fatalf("redo of the forced undo: %v", err)
			}
			if got := fsTestStateOf(t, p); got != tt.user {
				t.Errorf("after redo got %+v; want the user's version %+v", got, tt.user)
			}
		})
	}
}

func TestFsRevertRefusesFolderAndCorruptData(t *testing.T) {
	ctx := context.Background()
	ws, dir := fsTestWorkspace(t)
	tool := NewFsWrite(ws, &fsTestBlobs{})
	res, err := tool.Execute(ctx, fsTestArgs(t, map[string]any{"path": "f.txt", "content": "x"}))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "f.txt")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	rev := tool.(tools.Reverter)
	// Even a forced undo does not replace a folder: the refusal says so,
	// and is not a Conflict, which would offer --force.
	for _, force := range []bool{false, true} {
		var c *tools.Conflict
		_, err := rev.Revert(ctx, res.Undo, force)
		if err == nil || errors.As(err, &c) || !strings.Contains(err.Error(), "now a folder; even a forced undo does not replace it") {
			t.Errorf("force=%v: got %v; want a refusal naming the folder, not a conflict", force, err)
		}
	}
	if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
		t.Errorf("got %v, %v; want the folder left alone", fi, err)
	}

	corrupt := []struct {
		name string
		undo string
	}{
		{"not JSON", `{"path":`},
		{"escaping path", `{"path":"../x","before":{"exists":false},"after":{"exists":false}}`},
		{"absolute path", `{"path":"/etc/passwd","before":{"exists":false},"after":{"exists":false}}`},
		{"unclean path", `{"path":"a/../b","before":{"exists":false},"after":{"exists":false}}`},
		{"bad sum", `{"path":"b","before":{"exists":true,"sha256":"zz","mode":420},"after":{"exists":false}}`},
		{"folder not a parent", `{"path":"b","before":{"exists":false},"after":{"exists":false},"created_dirs":["etc"]}`},
		{"unknown field", `{"path":"b","before":{"exists":false},"after":{"exists":false},"extra":1}`},
	}
	for _, tt := range corrupt {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := rev.Revert(ctx, json.RawMessage(tt.undo), true); !errors.Is(err, tools.ErrCorruptUndo) {
				t.Errorf("got %v; want ErrCorruptUndo", err)
			}
		})
	}
}

// TestFsUndoKeepsFoldersInUse checks that undo removes only the folders a
// call created that are empty again.
func TestFsUndoKeepsFoldersInUse(t *testing.T) {
	ctx := context.Background()
	ws, dir := fsTestWorkspace(t)
	tool := NewFsWrite(ws, &fsTestBlobs{})
	res, err := tool.Execute(ctx, fsTestArgs(t, map[string]any{"path": "a/b/new.txt", "content": "x"}))
	if err != nil {
		t.Fatal(err)
	}
	fsTestFile(t, dir, "a/user.txt", "mine", 0o644)
	if _, err := tool.(tools.Reverter).Revert(ctx, res.Undo, false); err != nil {
		t.Fatal(err)
	}
	if fsTestExists(filepath.Join(dir, "a", "b")) {
		t.Errorf("got a/b kept; want it removed, it is empty")
	}
	if got := fsTestRead(t, filepath.Join(dir, "a", "user.txt")); got != "mine" {
		t.Errorf("got %q; want the user's file kept with its folder", got)
	}
}
