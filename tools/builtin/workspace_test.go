package builtin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"myclaw/tools"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fsTestBlobs is an in-memory BlobStore.
type fsTestBlobs struct {
	mu   sync.Mutex
	data map[string][]byte
}

func (b *fsTestBlobs) Put(data []byte) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.data == nil {
		b.data = map[string][]byte{}
	}
	s := sha256.Sum256(data)
	sum := hex.EncodeToString(s[:])
	b.data[sum] = append([]byte(nil), data...)
	return sum, nil
}

func (b *fsTestBlobs) Get(sum string) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	d, ok := b.data[sum]
	if !ok {
		return nil, fmt.Errorf("blob %s: %w", sum, os.ErrNotExist)
	}
	return append([]byte(nil), d...), nil
}

// fsTestWorkspace opens a fresh workspace in a temporary folder.
func fsTestWorkspace(t testing.TB) (*Workspace, string) {
	t.Helper()
	ws, err := OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, ws.Dir()
}

// fsTestFile writes a file below dir, creating its folders.
func fsTestFile(t testing.TB, dir, rel, content string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func fsTestRead(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func fsTestMode(t testing.TB, p string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func fsTestArgs(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fsTestKind returns the kind of a tool error ("" for nil, "?" for an
// error that is not an *Error).
func fsTestKind(err error) tools.Kind {
	if err == nil {
		return ""
	}
	var te *tools.Error
	if !errors.As(err, &te) {
		return "?"
	}
	return te.Kind
}

func TestOpenWorkspace(t *testing.T) {
	resolved := t.TempDir()
	link := filepath.Join(t.TempDir(), "ws-link")
	if err := os.Symlink(resolved, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(resolved, "file.txt")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	realResolved, _ := filepath.EvalSymlinks(resolved)

	tests := []struct {
		name    string
		dir     string
		wantDir string
		wantErr string
	}{
		{"plain", resolved, realResolved, ""},
		{"through a symlink", link, realResolved, ""},
		{"missing", filepath.Join(resolved, "nope"), "", "no such file"},
		{"a file", file, "", "not a directory"},
		{"empty", "", "", "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := OpenWorkspace(tt.dir)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v; want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			if ws.Dir() != tt.wantDir {
				t.Errorf("got Dir %q; want %q", ws.Dir(), tt.wantDir)
			}
			if ws.Root() == nil {
				t.Errorf("got nil Root; want the open root")
			}
		})
	}
}

func TestWorkspaceRel(t *testing.T) {
	parent := t.TempDir()
	resolved := filepath.Join(parent, "real")
	if err := os.Mkdir(resolved, 0o755); err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(parent, "alias")
	if err := os.Symlink(resolved, alias); err != nil {
		t.Fatal(err)
	}
	ws, err := OpenWorkspace(alias)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	dir := ws.Dir()

	tests := []struct {
		name     string
		path     string
		want     string
		wantKind tools.Kind
	}{
		{"relative", "src/main.go", "src/main.go", ""},
		{"dot", ".", ".", ""},
		{"cleaned", "./a/../b//c/", "b/c", ""},
		{"absolute inside", filepath.Join(dir, "notes", "a.txt"), "notes/a.txt", ""},
		{"absolute root", dir, ".", ""},
		{"absolute through the alias", filepath.Join(alias, "x.go"), "x.go", ""},
		{"dotdot", "../x", "", tools.KindPermissionDenied},
		{"dotdot after a folder", "a/../../x", "", tools.KindPermissionDenied},
		{"just dotdot", "..", "", tools.KindPermissionDenied},
		{"absolute outside", "/etc/passwd", "", tools.KindPermissionDenied},
		{"absolute sibling with the same prefix", dir + "-other/x", "", tools.KindPermissionDenied},
		{"home", "~/.ssh/id_rsa", "", tools.KindPermissionDenied},
		{"empty", "", "", tools.KindInvalidArgs},
		{"NUL byte", "a\x00b", "", tools.KindInvalidArgs},
		{"dotdot-like name", "..foo/x", "..foo/x", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, e := ws.Rel(tt.path)
			if tt.wantKind != "" {
				if e == nil {
					t.Fatalf("got %q, no error; want %s", got, tt.wantKind)
				}
				if e.Kind != tt.wantKind {
					t.Fatalf("got kind %s (%s); want %s", e.Kind, e.Message, tt.wantKind)
				}
				if e.Hint == "" {
					t.Errorf("got an empty hint; want a next step")
				}
				if tt.wantKind == tools.KindPermissionDenied && !strings.Contains(e.Hint, dir) {
					t.Errorf("got hint %q; want it to name the workspace %s", e.Hint, dir)
				}
				return
			}
			if e != nil {
				t.Fatalf("got error %v; want %q", e, tt.want)
			}
			if got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}

// TestFileToolsRegister checks the five tools against the registry: names,
// schemas that compile and refuse unknown fields, and their Meta.
func TestFileToolsRegister(t *testing.T) {
	ws, _ := fsTestWorkspace(t)
	blobs := &fsTestBlobs{}
	r := tools.NewRegistry()
	all := []tools.Tool{NewFsRead(ws), NewFsWrite(ws, blobs), NewFsEdit(ws, blobs), NewGlobList(ws), NewGrepSearch(ws)}
	for _, tool := range all {
		if err := r.Register(tool); err != nil {
			t.Fatalf("register %s: %v", tool.Meta().Name, err)
		}
	}
	tests := []struct {
		name       string
		readOnly   bool
		untrusted  bool
		capability string
		reverter   bool
		args       string // valid arguments
	}{
		{"fs_read", true, true, "fs:read", false, `{"path":"a.txt","offset":1,"limit":10}`},
		{"fs_write", false, false, "fs:write", true, `{"path":"a.txt","content":""}`},
		{"fs_edit", false, false, "fs:write", true, `{"path":"a.txt","old_string":"a","new_string":"b","replace_all":true}`},
		{"glob_list", true, true, "fs:read", false, `{"pattern":"**/*.go","path":"src","offset":0,"limit":5}`},
		{"grep_search", true, true, "fs:read", false, `{"pattern":"x","path":".","glob":"*.go","ignore_case":true,"max_results":5,"offset":0}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, ok := r.Lookup(tt.name)
			if !ok {
				t.Fatalf("got no tool %s", tt.name)
			}
			m := tool.Meta()
			if m.ReadOnly != tt.readOnly || m.ReturnsUntrusted != tt.untrusted || m.Capability != tt.capability {
				t.Errorf("got ReadOnly=%v ReturnsUntrusted=%v Capability=%q; want %v %v %q", m.ReadOnly, m.ReturnsUntrusted, m.Capability, tt.readOnly, tt.untrusted, tt.capability)
			}
			if !m.SupportsDryRun || m.Source != tools.SourceBuiltin || m.Timeout <= 0 || m.Description == "" {
				t.Errorf("got SupportsDryRun=%v Source=%q Timeout=%v description %d bytes; want a builtin with dry run, timeout and description", m.SupportsDryRun, m.Source, m.Timeout, len(m.Description))
			}
			if _, ok := tool.(tools.Reverter); ok != tt.reverter {
				t.Errorf("got Reverter %v; want %v", ok, tt.reverter)
			}
			if _, e := r.Validate(tt.name, json.RawMessage(tt.args)); e != nil {
				t.Errorf("valid args %s refused: %v", tt.args, e)
			}
			extra := strings.TrimSuffix(tt.args, "}") + `,"bogus":1}`
			if _, e := r.Validate(tt.name, json.RawMessage(extra)); e == nil || e.Kind != tools.KindInvalidArgs {
				t.Errorf("got %v for an unknown field; want invalid_args", e)
			}
			if _, e := r.Validate(tt.name, json.RawMessage(`{}`)); e == nil || e.Kind != tools.KindInvalidArgs {
				t.Errorf("got %v for missing required fields; want invalid_args", e)
			}
		})
	}
}

// myclaw's own state and config directories inside the workspace are
// refused for read, write and listing, also through a symbolic link, and
// glob_list and grep_search do not show what is in them.
func TestWorkspaceProtectsOwnDirectories(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, ".state", "myclaw")
	conf := filepath.Join(dir, "cfg", "myclaw")
	for _, d := range []string{filepath.Join(state, "sessions"), conf, filepath.Join(dir, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(state, "sessions", "journal.jsonl"), filepath.Join(conf, "config.toml"), filepath.Join(dir, "src", "a.go")} {
		if err := os.WriteFile(f, []byte("secret journal autonomy = \"full\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(".state/myclaw", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ws.Protect(state, conf, filepath.Join(t.TempDir(), "elsewhere"))

	for _, p := range []string{".state/myclaw", ".state/myclaw/sessions/journal.jsonl", "cfg/myclaw/config.toml",
		"./cfg/../cfg/myclaw/", filepath.Join(dir, "cfg", "myclaw"), "link/sessions/journal.jsonl"} {
		_, e := ws.Rel(p)
		if e == nil || e.Kind != tools.KindPermissionDenied || !strings.Contains(e.Hint, "myclaw's own state") {
			t.Errorf("Rel(%q) = %v; want permission_denied with a hint", p, e)
		}
	}
	if rel, e := ws.Rel(".state"); e != nil || rel != ".state" {
		t.Errorf("Rel(.state) = %q, %v; want the parent allowed", rel, e)
	}

	ctx := context.Background()
	for _, tool := range []tools.Tool{NewFsRead(ws), NewFsWrite(ws, nil), NewFsEdit(ws, nil)} {
		for _, p := range []string{"cfg/myclaw/config.toml", "link/sessions/journal.jsonl"} {
			args, _ := json.Marshal(map[string]any{"path": p, "content": "autonomy = \"full\"", "old_string": "secret", "new_string": "x"})
			_, err := tool.Execute(ctx, args)
			var te *tools.Error
			if !errors.As(err, &te) || te.Kind != tools.KindPermissionDenied {
				t.Errorf("%s %s: got %v; want permission_denied", tool.Meta().Name, p, err)
			}
		}
	}
	for _, tool := range []tools.Tool{NewGlobList(ws), NewGrepSearch(ws)} {
		for _, args := range []string{`{"pattern":"**"}`, `{"pattern":"secret"}`, `{"pattern":"**/*.toml"}`} {
			res, err := tool.Execute(ctx, json.RawMessage(args))
			if err != nil {
				continue // a pattern that does not fit the tool
			}
			out, _ := json.Marshal(res)
			if args == `{"pattern":"**"}` && !strings.Contains(string(out), "src/a.go") {
				t.Errorf("%s %s does not list the project's files:\n%s", tool.Meta().Name, args, out)
			}
			if strings.Contains(string(out), "journal.jsonl") || strings.Contains(string(out), "config.toml") {
				t.Errorf("%s %s lists myclaw's own files:\n%s", tool.Meta().Name, args, out)
			}
		}
	}
}

// "code.py/" names a folder: on a file it is an error, as for the OS, not
// a way to read the file.
func TestWorkspaceTrailingSlashOnAFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "code.py"), []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, e := ws.Rel("code.py/"); e == nil || e.Kind != tools.KindInvalidArgs || !strings.Contains(e.Message, "is a file") {
		t.Errorf("Rel(code.py/) = %v; want invalid_args naming the file", e)
	}
	_, err = NewFsRead(ws).Execute(context.Background(), json.RawMessage(`{"path":"code.py/"}`))
	if err == nil {
		t.Errorf("fs_read code.py/ read the file")
	}
	if rel, e := ws.Rel("src/"); e != nil || rel != "src" {
		t.Errorf("Rel(src/) = %q, %v; want the folder", rel, e)
	}
}

// The temporary file of a write cut short by a crash is removed at the
// next start; one being written now (recent) and the user's own look-alikes
// stay.
func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	write := func(rel string, age time.Duration) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("half a file"), 0o600); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-age)
		os.Chtimes(p, old, old)
	}
	write("src/main.go", time.Hour)
	write("src/.main.go.myclaw-0123456789ab.tmp", time.Hour)
	write(".big.bin.myclaw-abcdefabcdef.tmp", time.Hour)
	write("src/.fresh.go.myclaw-111111111111.tmp", 0)
	write("notes/.x.myclaw-notes.tmp", time.Hour)
	write(".git/.config.myclaw-222222222222.tmp", time.Hour)
	ws, err := OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	got := ws.RemoveStaleTemps(30*time.Second, true)
	slices.Sort(got)
	if want := []string{".big.bin.myclaw-abcdefabcdef.tmp", "src/.main.go.myclaw-0123456789ab.tmp"}; !slices.Equal(got, want) {
		t.Errorf("removed %q; want %q", got, want)
	}
	for _, keep := range []string{"src/main.go", "src/.fresh.go.myclaw-111111111111.tmp", "notes/.x.myclaw-notes.tmp", ".git/.config.myclaw-222222222222.tmp"} {
		if _, err := os.Stat(filepath.Join(dir, keep)); err != nil {
			t.Errorf("%s was removed: %v", keep, err)
		}
	}
}
