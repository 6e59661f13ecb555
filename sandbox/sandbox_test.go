package sandbox

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	Launch()
	os.Exit(m.Run())
}

// active returns a checked sandbox for ws, skipping where the platform
// really has none.
func active(t testing.TB, ws string, writable ...string) *Sandbox {
	t.Helper()
	s := New(Options{Workspace: ws, Writable: writable, LayerDir: t.TempDir()})
	if why := s.detect(); why != "" {
		t.Skip("no sandbox here: " + why)
	}
	if st := s.Check(context.Background()); !st.Active {
		t.Fatalf("the sandbox is supported here but its check failed: %s", st.Why)
	}
	return s
}

// run runs line confined in ws and returns its combined output, the
// confinement line and the note.
func run(t testing.TB, s *Sandbox, ws, line string, network bool) (string, string, string, error) {
	t.Helper()
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = ws
	finish, err := s.Confine(cmd, network)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	conf, note := finish(string(out))
	return string(out), conf, note, err
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

func TestConfinedCannotWriteOutsideTheWorkspace(t *testing.T) {
	root := t.TempDir()
	ws, outside := filepath.Join(root, "ws"), filepath.Join(root, "out")
	os.MkdirAll(ws, 0o755)
	os.MkdirAll(outside, 0o755)
	s := active(t, ws)
	target := filepath.Join(outside, "escape")
	out, conf, note, err := run(t, s, ws, "echo x > "+target, false)
	if err == nil || exists(target) {
		t.Fatalf("a write outside the workspace succeeded (err %v, out %q)", err, out)
	}
	if conf != "sandbox: writes in workspace + temp, no network" {
		t.Errorf("confinement = %q", conf)
	}
	if !strings.HasPrefix(note, "permission_denied: the sandbox blocked access to "+target) {
		t.Errorf("note = %q; want a permission_denied note naming %s (output %q)", note, target, out)
	}
}

func TestConfinedCannotWriteGitHooksOrConfig(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "keep.txt"), []byte("x"), 0o644)
	s := active(t, ws)
	for _, line := range []string{
		"echo x > .git/hooks/x",
		"echo '[core] fsmonitor = evil' >> .git/config",
		"mv .git .git-away && mkdir -p .git/hooks && echo x > .git/hooks/x",
		"echo 'autonomy = \"full\"' > .myclaw.toml",
	} {
		out, _, note, _ := run(t, s, ws, line, false)
		if exists(filepath.Join(ws, ".git", "hooks", "x")) || exists(filepath.Join(ws, ".git-away")) {
			t.Fatalf("%q got through: %s", line, out)
		}
		if b, _ := os.ReadFile(filepath.Join(ws, ".git", "config")); string(b) != "[core]\n" {
			t.Fatalf("%q changed .git/config to %q", line, b)
		}
		if exists(filepath.Join(ws, ".myclaw.toml")) {
			t.Fatalf("%q left a .myclaw.toml", line)
		}
		if !strings.Contains(note, "permission_denied") {
			t.Errorf("%q: note = %q; want permission_denied (output %q)", line, note, out)
		}
	}
}

func TestConfinedGitInitIsKeptAndNoted(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ws := t.TempDir()
	s := active(t, ws)
	out, _, note, err := run(t, s, ws, "git init -q .", false)
	if err != nil {
		t.Fatalf("git init failed confined: %v: %s", err, out)
	}
	if !exists(filepath.Join(ws, ".git", "config")) || !exists(filepath.Join(ws, ".git", "hooks")) {
		t.Fatal("the new repository lost its config or hooks")
	}
	if !strings.Contains(note, "made a new git repository") {
		t.Errorf("note = %q; want it to say a repository was made", note)
	}
	// Now it exists, the next command cannot touch its hooks.
	if out, _, _, _ := run(t, s, ws, "echo x > .git/hooks/pre-commit", false); exists(filepath.Join(ws, ".git", "hooks", "pre-commit")) {
		t.Fatalf("wrote a hook in the new repository: %s", out)
	}
}

func TestConfinedCanWriteWorkspaceAndTemp(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755)
	s := active(t, ws)
	out, _, note, err := run(t, s, ws, `mkdir -p sub && echo hi > sub/a && mv sub/a b && echo t > "$TMPDIR/x" && cat "$TMPDIR/x" && echo obj > .git/objects-ok`, false)
	if err != nil {
		t.Fatalf("workspace and temp writes failed: %v: %s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "b")); string(b) != "hi\n" || strings.TrimSpace(out) != "t" {
		t.Errorf("b = %q, out = %q", b, out)
	}
	if note != "" {
		t.Errorf("note = %q; want none", note)
	}
}

func TestConfinedCannotConnectWithoutNetwork(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ws := t.TempDir()
	s := active(t, ws)
	port := ln.Addr().(*net.TCPAddr).Port
	line := "echo hi > /dev/tcp/127.0.0.1/" + itoa(port)
	out, _, note, err := run(t, s, ws, line, false)
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(300 * time.Millisecond))
	if c, aerr := ln.Accept(); aerr == nil {
		c.Close()
		t.Fatalf("connected to the loopback listener without network (err %v, out %q)", err, out)
	}
	if !strings.Contains(note, "no network") {
		t.Errorf("note = %q; want the no-network note (output %q)", note, out)
	}
	// With network the same call connects.
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
		}
	}()
	ln.(*net.TCPListener).SetDeadline(time.Time{})
	if out, conf, _, err := run(t, s, ws, line, true); err != nil {
		t.Errorf("with network the connect failed: %v: %s", err, out)
	} else if conf != "sandbox: writes in workspace + temp, network allowed" {
		t.Errorf("confinement = %q", conf)
	}
}

func TestConfinedGoBuildWithDefaults(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not installed")
	}
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module x\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nfunc main() { println(\"built\") }\n"), 0o644)
	s := active(t, ws, DefaultWritable()...)
	out, _, note, err := run(t, s, ws, goBin+" build -o prog . && ./prog", false)
	if err != nil || !strings.Contains(out, "built") {
		t.Fatalf("go build failed confined: %v: %s (note %q)", err, out, note)
	}
}

func TestForcedFailureIsInactive(t *testing.T) {
	s := New(Options{Workspace: t.TempDir()})
	s.ForceFailure("forced for the test")
	st := s.Check(context.Background())
	if st.Active || st.Why != "forced for the test" {
		t.Fatalf("status = %+v; want inactive with the forced reason", st)
	}
	if _, err := s.Confine(exec.Command("true"), false); err == nil {
		t.Fatal("Confine succeeded on an inactive sandbox")
	}
}

func TestBlockedNotes(t *testing.T) {
	for _, tc := range []struct{ stderr, want string }{
		{"bash: line 1: /etc/hosts: Permission denied\n", "blocked access to /etc/hosts (Permission denied). Writes are allowed only in the workspace"},
		{"touch: cannot touch '/root/x': Permission denied\n", "blocked access to /root/x"},
		{"bash: .git/hooks/x: Read-only file system\n", "blocked access to .git/hooks/x"},
		{"failed to initialize build cache at /c/go: mkdir /c/go: permission denied\n", "blocked access to /c/go"},
		// A read: the note does not call it a write.
		{"bash: line 1: /proc/1/environ: Permission denied\n", "permission_denied: the sandbox blocked access to /proc/1/environ (Permission denied). Writes"},
		// A hidden path is hidden on purpose: no advice to make it writable.
		{"bash: /home/u/.ssh/config: Read-only file system\n", "blocked access to /home/u/.ssh/config (Read-only file system): it hides /home/u/.ssh from commands on purpose"},
		{"curl: (6) Could not resolve host: example.com\n", "no network"},
		{"FAIL: expected 3, got 4\n", ""},
		{"listen tcp 127.0.0.1:8080: bind: permission denied\n", "open no port"},
		{"Error: listen EACCES: permission denied 127.0.0.1:3000\n", "open no port"},
	} {
		got, hid := blocked(tc.stderr, false, []string{"/home/u/.ssh"})
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("blocked(%q) = %q; want it to contain %q", tc.stderr, got, tc.want)
		}
		if strings.Contains(got, "write to") || strings.Contains(got, "\n") {
			t.Errorf("blocked(%q) = %q; it cannot know a write from a read, and is one line", tc.stderr, got)
		}
		if hid != strings.Contains(got, "on purpose") || hid && strings.Contains(got, "writable") {
			t.Errorf("blocked(%q) = %q (hidden %v); a hidden path's note must not suggest making it writable", tc.stderr, got, hid)
		}
	}
}

func TestHiddenInNamesAHiddenPath(t *testing.T) {
	hidden := []string{"/home/u/.aws", "/home/u/.ssh"}
	for _, tc := range []struct{ stderr, want string }{
		{"cat: /home/u/.aws/credentials: No such file or directory\n", "/home/u/.aws"},
		{"ls: cannot access '/home/u/.ssh': No such file or directory\n", "/home/u/.ssh"},
		{"cat: /home/u/.awsome: No such file or directory\n", ""},
		{"FAIL: expected 3, got 4\n", ""},
	} {
		if got := hiddenIn(tc.stderr, hidden); got != tc.want {
			t.Errorf("hiddenIn(%q) = %q; want %q", tc.stderr, got, tc.want)
		}
	}
}

func itoa(n int) string { return fmtInt(n) }

func fmtInt(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// BenchmarkConfinedStart measures a confined `true` against an unconfined
// one: the difference is the launcher and the namespaces. MYCLAW_BIN names
// a built myclaw to use as the launcher (its start-up is what users pay);
// by default the test binary launches.
func BenchmarkConfinedStart(b *testing.B) {
	ws := b.TempDir()
	s := New(Options{Workspace: ws, Writable: DefaultWritable(), Executable: os.Getenv("MYCLAW_BIN")})
	if st := s.Check(context.Background()); !st.Active {
		b.Skip("no sandbox here: " + st.Why)
	}
	for _, bc := range []struct {
		name    string
		confine bool
		network bool
	}{{"plain", false, false}, {"sandbox-no-network", true, false}, {"sandbox-network", true, true}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command("bash", "-c", "true")
				cmd.Dir = ws
				var finish func(string) (string, string)
				if bc.confine {
					var err error
					if finish, err = s.Confine(cmd, bc.network); err != nil {
						b.Fatal(err)
					}
				}
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				if finish != nil {
					finish("")
				}
			}
		})
	}
}

// TestConfinedCannotReadCredentialStores: the credential stores of the
// default hidden list, and myclaw's own state, read as empty or absent.
func TestConfinedCannotReadCredentialStores(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	const secret = "AKIA-not-for-the-model"
	state := filepath.Join(home, ".local", "state", "myclaw")
	files := []string{".aws/credentials", ".ssh/id_ed25519", ".netrc", ".git-credentials", ".config/gh/hosts.yml",
		".docker/config.json", ".kube/config", ".local/state/myclaw/mcp-auth/server.json"}
	for _, f := range files {
		p := filepath.Join(home, f)
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte(secret), 0o600)
	}
	ws := filepath.Join(home, "project")
	os.MkdirAll(ws, 0o755)
	s := New(Options{Workspace: ws, Hidden: append(DefaultHidden(), state)})
	if why := s.detect(); why != "" {
		t.Skip("no sandbox here: " + why)
	}
	if st := s.Check(context.Background()); !st.Active {
		t.Fatalf("the sandbox is supported here but its check failed: %s", st.Why)
	}
	if got := s.Status().Hidden; len(got) != 8 {
		t.Errorf("Status().Hidden = %q; want the 8 that exist", got)
	}
	for _, f := range files {
		out, _, _, _ := run(t, s, ws, "cat ~/"+f, false)
		if strings.Contains(out, secret) {
			t.Errorf("a confined command read ~/%s: %q", f, out)
		}
	}
	// The model is told the file is hidden, not that it is missing.
	if _, _, note, _ := run(t, s, ws, "cat ~/.aws/credentials", false); !strings.Contains(note, "the sandbox hides "+filepath.Join(home, ".aws")) {
		t.Errorf("reading a hidden file gave the note %q; want it to say the sandbox hides it", note)
	}
	if out, _, _, _ := run(t, s, ws, "ls -A ~/.ssh", false); strings.Contains(out, "id_ed25519") {
		t.Errorf("a confined command listed ~/.ssh: %q", out)
	}
	// Not hidden: a home folder that holds the workspace.
	s2 := New(Options{Workspace: ws, Hidden: []string{home}})
	if got := s2.hidden(); len(got) != 0 {
		t.Errorf("hidden() = %q; a folder holding the workspace must stay visible", got)
	}
}

// TestConfinedCannotChangeACache: a confined command writes to a cache
// through a layer of its own: the files of the cache itself, which later
// programs outside the sandbox run or trust, are never changed.
func TestConfinedCannotChangeACache(t *testing.T) {
	root := t.TempDir()
	ws, cache := filepath.Join(root, "ws"), filepath.Join(root, "gomodcache")
	os.MkdirAll(ws, 0o755)
	mod := filepath.Join(cache, "example.com", "m@v1.0.0", "m.go")
	os.MkdirAll(filepath.Dir(mod), 0o755)
	os.WriteFile(mod, []byte("package m\n"), 0o444)
	// The layers live in myclaw's state, itself hidden from commands.
	state := filepath.Join(root, "state")
	os.MkdirAll(state, 0o700)
	s := New(Options{Workspace: ws, Writable: []string{cache}, LayerDir: filepath.Join(state, "layers"), Hidden: []string{state}})
	if why := s.detect(); why != "" {
		t.Skip("no sandbox here: " + why)
	}
	if st := s.Check(context.Background()); !st.Active {
		t.Fatalf("the sandbox is supported here but its check failed: %s", st.Why)
	}
	if st := s.Status(); st.Caches != CacheLayered {
		t.Skipf("caches are %s here: this kernel cannot layer them", st.Caches)
	}
	out, _, _, err := run(t, s, ws, "chmod u+w "+mod+" && echo 'package m // planted' > "+mod+" && echo new > "+cache+"/new && cat "+mod, false)
	if err != nil || !strings.Contains(out, "planted") {
		t.Fatalf("the command could not write through its layer: %v: %s", err, out)
	}
	if b, _ := os.ReadFile(mod); string(b) != "package m\n" {
		t.Errorf("the cached module became %q", b)
	}
	if exists(filepath.Join(cache, "new")) {
		t.Error("a new file landed in the cache itself")
	}
	// The next command sees what the last one left in its layer.
	if out, _, _, _ := run(t, s, ws, "cat "+cache+"/new", false); !strings.Contains(out, "new") {
		t.Errorf("the layer did not persist: %q", out)
	}
	// Without a layer directory the cache is read-only.
	ro := New(Options{Workspace: ws, Writable: []string{cache}})
	if st := ro.Check(context.Background()); !st.Active || st.Caches != CacheReadOnly {
		t.Fatalf("without layers: %+v", st)
	}
	if out, _, _, _ := run(t, ro, ws, "echo x > "+cache+"/ro", false); exists(filepath.Join(cache, "ro")) {
		t.Errorf("wrote in a read-only cache: %s", out)
	}
}

func TestDefaultWritableFollowsXDGCacheHome(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", dir)
	t.Setenv("GOCACHE", "")
	got := DefaultWritable()
	if !slices.Contains(got, dir) {
		t.Fatalf("DefaultWritable() = %q, want it to hold $XDG_CACHE_HOME %s", got, dir)
	}
	if !slices.Contains(got, filepath.Join(dir, "go-build")) {
		t.Fatalf("DefaultWritable() = %q, want go's build cache under $XDG_CACHE_HOME", got)
	}
}
