package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeExe is a file standing in for the launcher in the key.
func fakeExe(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "myclaw")
	if err := os.WriteFile(p, []byte("binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestVerdictKeyChangesWithEachOption(t *testing.T) {
	if _, ok := platformKey(); !ok {
		t.Skip("no verdict cache on this platform")
	}
	root := t.TempDir()
	exe := fakeExe(t)
	base := Options{Workspace: root, Writable: []string{root}, Protected: []string{"/p"}, Hidden: []string{"/h"},
		Visible: []string{"/v"}, LayerDir: "/layers", Executable: exe}
	key := New(base).verdictKey()
	if key == "" || New(base).verdictKey() != key {
		t.Fatalf("the key is not stable: %q", key)
	}
	other := fakeExe(t)
	for name, change := range map[string]func(o *Options){
		"workspace":  func(o *Options) { o.Workspace = filepath.Join(root, "sub") },
		"writable":   func(o *Options) { o.Writable = []string{"/elsewhere"} },
		"protected":  func(o *Options) { o.Protected = []string{"/p", "/q"} },
		"hidden":     func(o *Options) { o.Hidden = []string{"/h2"} },
		"visible":    func(o *Options) { o.Visible = nil },
		"layer dir":  func(o *Options) { o.LayerDir = "/layers2" },
		"executable": func(o *Options) { o.Executable = other },
	} {
		o := base
		change(&o)
		if New(o).verdictKey() == key {
			t.Errorf("changing the %s left the key as it was", name)
		}
	}
	// The binary itself: size, then mtime.
	s := New(base)
	if err := os.WriteFile(exe, []byte("binary, rebuilt"), 0o755); err != nil {
		t.Fatal(err)
	}
	k2 := s.verdictKey()
	if k2 == key {
		t.Error("a binary of another size left the key as it was")
	}
	if err := os.Chtimes(exe, time.Now(), time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if s.verdictKey() == k2 {
		t.Error("a binary with another mtime left the key as it was")
	}
}

// seed writes a pass for s into its verdict dir, as a real run would.
func seed(t *testing.T, s *Sandbox, layered bool) string {
	t.Helper()
	key := s.verdictKey()
	if key == "" {
		t.Skip("no verdict cache on this platform")
	}
	storeVerdict(s.opts.VerdictDir, verdict{Version: verdictVersion, Key: key, Layered: layered, At: time.Now()})
	p := verdictPath(s.opts.VerdictDir, key)
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatalf("the verdict was not written: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("the verdict's mode is %v; want 0600", fi.Mode().Perm())
	}
	return p
}

// broken is a sandbox whose launcher does nothing (/bin/true): its real
// self-test fails, so a pass can only come from the cache.
func broken(t *testing.T) *Sandbox {
	t.Helper()
	s := New(Options{Workspace: t.TempDir(), Executable: "/bin/true", VerdictDir: filepath.Join(t.TempDir(), "cache")})
	if why := s.detect(); why != "" {
		t.Skip("no sandbox here: " + why)
	}
	return s
}

func TestCachedPassIsUsedAndRecheckRunsTheTest(t *testing.T) {
	s := broken(t)
	p := seed(t, s, true)
	st := s.Check(context.Background())
	if !st.Active || !st.Cached || st.Caches != CacheLayered || st.CheckedAt.IsZero() {
		t.Fatalf("status = %+v; want active from the cache, layered", st)
	}
	// The real test fails with this launcher: the pass is dropped.
	st = s.Recheck(context.Background())
	if st.Active || st.Cached || !strings.Contains(st.Why, "self-test failed") {
		t.Fatalf("recheck = %+v; want the real test's failure", st)
	}
	if exists(p) {
		t.Error("a failed recheck left the cached pass in place")
	}
	if st := New(s.opts).Check(context.Background()); st.Active {
		t.Errorf("after a failed recheck a new run is active: %+v", st)
	}
}

func TestFailureIsNeverCached(t *testing.T) {
	s := broken(t)
	if st := s.Check(context.Background()); st.Active {
		t.Fatalf("a launcher that does nothing passed the self-test: %+v", st)
	}
	f := New(Options{Workspace: t.TempDir(), VerdictDir: s.opts.VerdictDir})
	f.ForceFailure("forced for the test")
	f.Check(context.Background())
	if ents, _ := os.ReadDir(s.opts.VerdictDir); len(ents) > 0 {
		t.Fatalf("a failure was cached: %v", ents)
	}
}

func TestUnsoundVerdictFilesAreIgnored(t *testing.T) {
	for name, spoil := range map[string]func(p string, v verdict){
		"corrupt":         func(p string, _ verdict) { os.WriteFile(p, []byte("{not json"), 0o600) },
		"empty":           func(p string, _ verdict) { os.WriteFile(p, nil, 0o600) },
		"another key":     func(p string, v verdict) { v.Key = strings.Repeat("0", 64); write(p, v) },
		"another version": func(p string, v verdict) { v.Version++; write(p, v) },
		"from the future": func(p string, v verdict) { v.At = time.Now().Add(time.Hour); write(p, v) },
		"too old":         func(p string, v verdict) { v.At = time.Now().Add(-verdictMaxAge - time.Hour); write(p, v) },
		"world-writable":  func(p string, v verdict) { write(p, v); os.Chmod(p, 0o666) },
		"a symlink": func(p string, v verdict) {
			target := p + ".real"
			write(target, v)
			os.Remove(p)
			os.Symlink(target, p)
		},
	} {
		t.Run(name, func(t *testing.T) {
			s := broken(t)
			p := seed(t, s, false)
			b, _ := os.ReadFile(p)
			var v verdict
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			spoil(p, v)
			if st := s.Check(context.Background()); st.Active || st.Cached {
				t.Fatalf("status = %+v; want the real (failing) test, not the file", st)
			}
		})
	}
}

func write(p string, v verdict) {
	b, _ := json.Marshal(v)
	os.WriteFile(p, b, 0o600)
}

func TestRealPassIsCachedAndReused(t *testing.T) {
	ws := t.TempDir()
	o := Options{Workspace: ws, VerdictDir: filepath.Join(t.TempDir(), "cache"), LayerDir: t.TempDir(), Writable: []string{t.TempDir()}}
	s := New(o)
	if why := s.detect(); why != "" {
		t.Skip("no sandbox here: " + why)
	}
	st := s.Check(context.Background())
	if !st.Active || st.Cached {
		t.Fatalf("first check = %+v; want the real test to pass", st)
	}
	if s.verdictKey() == "" {
		t.Skip("no verdict cache on this platform")
	}
	again := New(o).Check(context.Background())
	if !again.Active || !again.Cached || again.Caches != st.Caches || !again.CheckedAt.Equal(st.CheckedAt) {
		t.Fatalf("second check = %+v; want the first one's pass from the cache (%+v)", again, st)
	}
}

// A pass taken from the cache never lets a command run unconfined: when
// the confinement cannot be set up at launch, the command fails and does
// not run.
func TestCachedVerdictFailsClosed(t *testing.T) {
	ws := t.TempDir()
	hiddenFile := filepath.Join(t.TempDir(), "credentials")
	os.WriteFile(hiddenFile, []byte("secret"), 0o600)
	s := New(Options{Workspace: ws, Hidden: []string{hiddenFile}, VerdictDir: filepath.Join(t.TempDir(), "cache")})
	if why := s.detect(); why != "" {
		t.Skip("no sandbox here: " + why)
	}
	seed(t, s, false)
	if st := s.Check(context.Background()); !st.Active || !st.Cached {
		t.Fatalf("status = %+v; want active from the cache", st)
	}
	marker := filepath.Join(ws, "ran")
	cmd := exec.Command("bash", "-c", "echo x > "+marker)
	cmd.Dir = ws
	finish, err := s.Confine(cmd, false)
	if err != nil {
		t.Fatal(err)
	}
	// The launcher now cannot hide the file it was told to: confinement
	// fails after the verdict said it works.
	os.Remove(hiddenFile)
	out, err := cmd.CombinedOutput()
	finish(string(out))
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 126 || !strings.Contains(string(out), "the command did not run") {
		t.Fatalf("err = %v, output %q; want exit 126, the command did not run", err, out)
	}
	if exists(marker) {
		t.Fatal("the command ran although its confinement failed")
	}
}
