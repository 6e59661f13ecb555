package layer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"myclaw/sandbox"
	"myclaw/tools"
	"myclaw/tools/builtin"
)

func TestMain(m *testing.M) {
	sandbox.Launch()
	os.Exit(m.Run())
}

// memBlobs is a BlobStore in memory.
type memBlobs struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (b *memBlobs) Put(data []byte) (string, error) {
	s := sha256.Sum256(data)
	sum := hex.EncodeToString(s[:])
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string][]byte{}
	}
	b.m[sum] = append([]byte(nil), data...)
	return sum, nil
}

func (b *memBlobs) Get(sum string) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if d, ok := b.m[sum]; ok {
		return d, nil
	}
	return nil, fs.ErrNotExist
}

// env is a workspace with a sandbox that can hold layers, and the undo
// an applied merge is journaled with.
type env struct {
	dir  string
	ws   *builtin.Workspace
	sb   *sandbox.Sandbox
	undo *builtin.ShellUndo
}

// newEnv makes a workspace of files (path → content; a "->" prefix makes
// a link). It skips, saying why, where this machine cannot hold a layer.
func newEnv(t testing.TB, files map[string]string) *env {
	t.Helper()
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	for p, c := range files {
		full := filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if target, ok := strings.CutPrefix(c, "->"); ok {
			if err := os.Symlink(target, full); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := builtin.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	sb := sandbox.New(sandbox.Options{Workspace: dir})
	if st := sb.Check(context.Background()); !st.Active {
		t.Skip("no sandbox here, so no layer: " + st.Why)
	}
	undo, err := builtin.NewShellUndo(ws, &memBlobs{}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { undo.Close() })
	return &env{dir: dir, ws: ws, sb: sb, undo: undo}
}

func (e *env) open(t testing.TB) *Layer {
	t.Helper()
	l, err := Open(e.ws, e.sb, t.TempDir())
	if err != nil {
		if strings.Contains(err.Error(), "cgo") {
			t.Skip("no layer here: " + err.Error())
		}
		t.Fatalf("open a layer: %v", err)
	}
	l.UseUndo(e.undo)
	t.Cleanup(l.Discard)
	return l
}

// write writes a file through the layer's file tools.
func write(t *testing.T, l *Layer, path, content string) {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"path": path, "content": content})
	if _, err := builtin.NewFsWrite(l.Workspace(), &memBlobs{}).Execute(context.Background(), args); err != nil {
		t.Fatalf("fs_write %s in the layer: %v", path, err)
	}
}

// sh runs line in the layer as the agent's shell commands run.
func sh(t *testing.T, l *Layer, line string) string {
	t.Helper()
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = l.ws.Dir()
	finish, err := l.Sandbox().Confine(cmd, false)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	finish(string(out))
	if err != nil {
		t.Fatalf("%s in the layer: %v: %s", line, err, out)
	}
	return string(out)
}

func (e *env) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func propose(t *testing.T, l *Layer) *Merge {
	t.Helper()
	p, err := l.Propose(context.Background())
	if err != nil {
		t.Fatalf("propose: %v", err)
	}
	return p.(*Merge)
}

func applyMerge(t *testing.T, p *Merge) json.RawMessage {
	t.Helper()
	res, err := p.Apply(context.Background())
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, p.Report())
	}
	return res.Undo
}

func numbered(n int, change map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if c, ok := change[i]; ok {
			b.WriteString(c + "\n")
		} else {
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	return b.String()
}

func TestTwoLayersChangingDifferentLinesMergeInTurn(t *testing.T) {
	e := newEnv(t, map[string]string{"f.txt": numbered(10, nil)})
	a, b := e.open(t), e.open(t)
	write(t, a, "f.txt", numbered(10, map[int]string{2: "two by a"}))
	sh(t, b, "sed -i 's/^line 8$/eight by b/' f.txt")
	if got := e.read(t, "f.txt"); got != numbered(10, nil) {
		t.Fatalf("the layers changed the workspace: %q", got)
	}
	pa := propose(t, a)
	if len(pa.Conflicts()) != 0 || strings.Join(pa.Files(), ",") != "f.txt" {
		t.Fatalf("a's merge: files %v, conflicts %v", pa.Files(), pa.Conflicts())
	}
	applyMerge(t, pa)
	pb := propose(t, b)
	if len(pb.Conflicts()) != 0 {
		t.Fatalf("b's merge conflicts: %v\n%s", pb.Conflicts(), pb.Report())
	}
	applyMerge(t, pb)
	if got, want := e.read(t, "f.txt"), numbered(10, map[int]string{2: "two by a", 8: "eight by b"}); got != want {
		t.Errorf("after both merges f.txt is\n%s\nwant\n%s", got, want)
	}
}

func TestTheSameLinesAreANamedConflictAndNothingIsLost(t *testing.T) {
	e := newEnv(t, map[string]string{"f.txt": numbered(6, nil), "g.txt": "g\n"})
	a, b := e.open(t), e.open(t)
	write(t, a, "f.txt", numbered(6, map[int]string{3: "three by a"}))
	write(t, b, "f.txt", numbered(6, map[int]string{3: "three by b"}))
	write(t, b, "g.txt", "g by b\n")
	applyMerge(t, propose(t, a))
	pb := propose(t, b)
	if got := strings.Join(pb.Conflicts(), ","); got != "f.txt" {
		t.Fatalf("conflicts %q, want f.txt\n%s", got, pb.Report())
	}
	for _, want := range []string{"CONFLICT f.txt", "<<<<<<< edit agent", "three by b", "three by a", ">>>>>>> workspace", "at line 3"} {
		if !strings.Contains(pb.Report(), want) {
			t.Errorf("the report lacks %q:\n%s", want, pb.Report())
		}
	}
	if pb.Summary() != "2 files changed, 1 in conflict (f.txt)" {
		t.Errorf("summary %q does not name the conflict", pb.Summary())
	}
	if _, err := pb.Apply(context.Background()); err == nil || !strings.Contains(err.Error(), "f.txt") {
		t.Fatalf("apply with a conflict: %v", err)
	}
	if got := e.read(t, "f.txt"); got != numbered(6, map[int]string{3: "three by a"}) {
		t.Errorf("the refused apply changed f.txt: %q", got)
	}
	if got := e.read(t, "g.txt"); got != "g\n" {
		t.Errorf("the refused apply wrote g.txt: %q", got)
	}
	if got, _ := b.Workspace().Root().ReadFile("f.txt"); !strings.Contains(string(got), "three by b") {
		t.Errorf("b's version is lost from its layer: %q", got)
	}
}

func TestTheMergeSeesTheUsersEditMeanwhile(t *testing.T) {
	e := newEnv(t, map[string]string{"f.txt": numbered(10, nil), "other.txt": "o\n"})
	l := e.open(t)
	write(t, l, "f.txt", numbered(10, map[int]string{2: "two by the agent"}))
	os.WriteFile(filepath.Join(e.dir, "f.txt"), []byte(numbered(10, map[int]string{9: "nine by the user"})), 0o644)
	os.WriteFile(filepath.Join(e.dir, "other.txt"), []byte("the user's\n"), 0o644)
	p := propose(t, l)
	if strings.Join(p.Files(), ",") != "f.txt" || len(p.Conflicts()) != 0 {
		t.Fatalf("files %v, conflicts %v", p.Files(), p.Conflicts())
	}
	applyMerge(t, p)
	if got, want := e.read(t, "f.txt"), numbered(10, map[int]string{2: "two by the agent", 9: "nine by the user"}); got != want {
		t.Errorf("f.txt is\n%s\nwant\n%s", got, want)
	}
	if got := e.read(t, "other.txt"); got != "the user's\n" {
		t.Errorf("other.txt is %q", got)
	}
}

// tree is what a folder holds: each path's kind, mode and content or
// target.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		fi, _ := d.Info()
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link " + target
		case d.IsDir():
			out[rel] = fmt.Sprintf("dir %v", fi.Mode().Perm())
		default:
			b, _ := os.ReadFile(p)
			out[rel] = fmt.Sprintf("file %v %q", fi.Mode().Perm(), b)
		}
		return nil
	})
	return out
}

func TestApplyThenRevertRestoresTheTree(t *testing.T) {
	e := newEnv(t, map[string]string{
		"keep.txt":     "keep\n",
		"edit.txt":     numbered(5, nil),
		"gone.txt":     "gone\n",
		"run.sh":       "echo hi\n",
		"old/a.txt":    "a\n",
		"old/deep/b":   "b\n",
		"link":         "->keep.txt",
		"relink":       "->edit.txt",
		"sub/file.txt": "s\n",
		"tolink.txt":   "becomes a link\n",
		"tofile":       "->keep.txt",
	})
	before := tree(t, e.dir)
	l := e.open(t)
	write(t, l, "edit.txt", numbered(5, map[int]string{4: "four"}))
	write(t, l, "new/dir/made.txt", "made\n")
	sh(t, l, "rm gone.txt && chmod 755 run.sh && rm -r old && ln -s sub/file.txt newlink && ln -sfn keep.txt relink && mkdir empty && ln -sf keep.txt tolink.txt && rm tofile && echo now a file > tofile")
	p := propose(t, l)
	if len(p.Conflicts()) != 0 {
		t.Fatalf("conflicts: %v", p.Conflicts())
	}
	undo := applyMerge(t, p)
	after := tree(t, e.dir)
	for rel, want := range map[string]string{
		"edit.txt":         fmt.Sprintf("file -rw-r--r-- %q", numbered(5, map[int]string{4: "four"})),
		"new/dir/made.txt": `file -rw-r--r-- "made\n"`,
		"run.sh":           `file -rwxr-xr-x "echo hi\n"`,
		"newlink":          "link sub/file.txt",
		"relink":           "link keep.txt",
		"empty":            "dir -rwxr-xr-x",
		"gone.txt":         "",
		"old":              "",
		"old/deep/b":       "",
		"keep.txt":         `file -rw-r--r-- "keep\n"`,
	} {
		if after[rel] != want {
			t.Errorf("after the merge %s is %q, want %q", rel, after[rel], want)
		}
	}
	if _, err := Revert(e.undo)(context.Background(), undo, false); err != nil {
		t.Fatalf("revert: %v", err)
	}
	got := tree(t, e.dir)
	for rel, want := range before {
		if got[rel] != want {
			t.Errorf("after the revert %s is %q, want %q", rel, got[rel], want)
		}
	}
	for rel, was := range got {
		if _, ok := before[rel]; !ok {
			t.Errorf("after the revert %s is left (%s)", rel, was)
		}
	}
}

func TestDiscardLeavesTheWorkspaceUntouched(t *testing.T) {
	e := newEnv(t, map[string]string{"a.txt": "a\n", "d/b.txt": "b\n"})
	before := tree(t, e.dir)
	l := e.open(t)
	write(t, l, "a.txt", "changed\n")
	write(t, l, "c.txt", "new\n")
	sh(t, l, "rm -r d && echo x > y.txt")
	scratch := l.scratch
	l.Discard()
	l.Discard()
	got := tree(t, e.dir)
	if fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("the workspace changed:\n%v\nwas\n%v", got, before)
	}
	if _, err := os.Stat(scratch); !os.IsNotExist(err) {
		t.Errorf("the layer's scratch folder is left: %v", err)
	}
	if _, err := l.Propose(context.Background()); err == nil {
		t.Error("a discarded layer proposed a merge")
	}
}

func TestShellCommandsInTheLayerDoNotTouchTheWorkspace(t *testing.T) {
	e := newEnv(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	l := e.open(t)
	if out := sh(t, l, "rm a.txt && echo new > f && echo more >> b.txt && ls"); out != "b.txt\nf\n" {
		t.Errorf("the command saw %q", out)
	}
	if e.read(t, "a.txt") != "a\n" || e.read(t, "b.txt") != "b\n" {
		t.Error("the command changed the workspace")
	}
	if _, err := os.Stat(filepath.Join(e.dir, "f")); !os.IsNotExist(err) {
		t.Error("the command's new file is in the workspace")
	}
	// The file tools see what the command did.
	if got, err := l.Workspace().Root().ReadFile("f"); err != nil || string(got) != "new\n" {
		t.Errorf("the view's f is %q (%v)", got, err)
	}
	if _, err := l.Workspace().Root().Stat("a.txt"); !os.IsNotExist(err) {
		t.Errorf("the view still has a.txt: %v", err)
	}
	p := propose(t, l)
	if got := strings.Join(p.Files(), ","); got != "a.txt,b.txt,f" {
		t.Errorf("the merge changes %q", got)
	}
	if _, err := l.Sandbox().Confine(exec.Command("true"), true); err == nil {
		t.Error("a command with network was confined in the layer")
	}
}

func TestOpenWithoutASandboxSaysWhy(t *testing.T) {
	ws, err := builtin.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := Open(ws, nil, t.TempDir()); err == nil || !strings.Contains(err.Error(), "edit agent") {
		t.Errorf("Open without a sandbox: %v", err)
	}
}

// The agent's tools as it gets them: shell_run confined by the layer's
// sandbox, fs_edit on its view.
func TestTheAgentsToolsWorkInTheLayer(t *testing.T) {
	e := newEnv(t, map[string]string{"f.txt": numbered(10, nil)})
	l := e.open(t)
	shell := builtin.NewShellRun(builtin.ShellOptions{Dir: e.dir, OutputDir: t.TempDir(), Sandbox: l.Sandbox()})
	ctx := tools.WithConfinement(context.Background(), tools.Confinement{Sandboxed: true})
	res, err := shell.Execute(ctx, json.RawMessage(`{"command":"sed -i 's/^line 2$/two by sed/' f.txt && echo made > made.txt"}`))
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := json.Marshal(res.Output); !strings.Contains(string(out), "edit layer") {
		t.Errorf("the result does not say the command ran in the layer: %s", out)
	}
	read := builtin.NewFsRead(l.Workspace())
	if r, err := read.Execute(ctx, json.RawMessage(`{"path":"f.txt"}`)); err != nil || !strings.Contains(r.Body, "two by sed") {
		t.Fatalf("fs_read in the layer: %v %q", err, r.Body)
	}
	edit := builtin.NewFsEdit(l.Workspace(), &memBlobs{})
	if _, err := edit.Execute(ctx, json.RawMessage(`{"path":"f.txt","old_string":"line 5\n","new_string":"five by fs_edit\n"}`)); err != nil {
		t.Fatalf("fs_edit in the layer: %v", err)
	}
	// The user edits the same file after the command changed it.
	os.WriteFile(filepath.Join(e.dir, "f.txt"), []byte(numbered(10, map[int]string{9: "nine by the user"})), 0o644)
	sh(t, l, "echo x > .myclaw.toml")
	p := propose(t, l)
	if got := strings.Join(p.Files(), ","); got != "f.txt,made.txt" || len(p.Conflicts()) > 0 {
		t.Fatalf("files %q, conflicts %v\n%s", got, p.Conflicts(), p.Report())
	}
	if !strings.Contains(p.Report(), "skipped: .myclaw.toml is protected") {
		t.Errorf("the report does not say .myclaw.toml is skipped:\n%s", p.Report())
	}
	applyMerge(t, p)
	if got, want := e.read(t, "f.txt"), numbered(10, map[int]string{2: "two by sed", 5: "five by fs_edit", 9: "nine by the user"}); got != want {
		t.Errorf("f.txt is\n%s\nwant\n%s", got, want)
	}
	if _, err := os.Stat(filepath.Join(e.dir, ".myclaw.toml")); !os.IsNotExist(err) {
		t.Error("the protected .myclaw.toml was applied")
	}
}

func TestBothCreatingOneFileIsAConflict(t *testing.T) {
	e := newEnv(t, map[string]string{"a.txt": "a\n"})
	l := e.open(t)
	write(t, l, "new.txt", "the agent's\n")
	os.WriteFile(filepath.Join(e.dir, "new.txt"), []byte("the user's\n"), 0o644)
	p := propose(t, l)
	if got := strings.Join(p.Conflicts(), ","); got != "new.txt" {
		t.Fatalf("conflicts %q\n%s", got, p.Report())
	}
	if _, err := p.Apply(context.Background()); err == nil {
		t.Fatal("a merge with a conflict applied")
	}
	if e.read(t, "new.txt") != "the user's\n" {
		t.Error("the user's file was overwritten")
	}
}

func TestRevertRefusesALinkChangedSince(t *testing.T) {
	e := newEnv(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	l := e.open(t)
	sh(t, l, "ln -s a.txt link && echo changed > b.txt")
	undo := applyMerge(t, propose(t, l))
	os.Remove(filepath.Join(e.dir, "link"))
	os.Symlink("elsewhere", filepath.Join(e.dir, "link"))
	if _, err := Revert(e.undo)(context.Background(), undo, false); err == nil || !strings.Contains(err.Error(), "link") {
		t.Fatalf("revert over a changed link: %v", err)
	}
	if e.read(t, "b.txt") != "changed\n" {
		t.Error("the refused revert restored b.txt")
	}
}
