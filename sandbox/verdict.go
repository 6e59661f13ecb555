package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// The self-test's positive verdict is cached so that a run does not spawn
// two confined children before its first request. Why a cached "it works"
// is safe to act on:
//
//   - It is keyed by everything that decides the outcome (verdictKey): the
//     running kernel and this boot, the switches that allow or forbid
//     unprivileged user namespaces and the LSMs loaded, the namespaces and
//     seccomp filter this process runs in (a container), the Landlock ABI,
//     the launcher binary (path, size, mtime, inode), the user, the temp dir
//     and the sandbox's options. A change to any of them is a cache miss and
//     the real test runs again.
//   - Only a pass is ever written; a failure, and a real test that fails
//     after a pass was cached, removes the entry.
//   - Every confined command still sets up its own confinement, and the
//     launcher fails closed: when a namespace, a mount or Landlock cannot be
//     applied it exits 126 with "the command did not run" before the
//     command starts (launch_cgo_linux.go, launchGo), and where the Go
//     launcher's namespaces cannot be made the start itself fails. So a
//     stale verdict can make a command fail, never run unconfined
//     (TestCachedVerdictFailsClosed).
//   - The file lives in the user's cache directory, which confined commands
//     cannot change (caches are read-only to them or seen through a layer);
//     one not owned by the user, writable by others, unreadable, or made for
//     another key is ignored.

// verdictVersion changes when the file's meaning or the key's inputs do.
const verdictVersion = 1

// verdictMaxAge bounds how long a verdict is trusted even when nothing in
// its key changed.
const verdictMaxAge = 7 * 24 * time.Hour

// verdict is the cache file's content.
type verdict struct {
	Version int       `json:"version"`
	Key     string    `json:"key"`
	Layered bool      `json:"layered"`
	At      time.Time `json:"at"`
}

// verdictKey hashes what decides the self-test's outcome here; "" when
// this platform cannot tell a reboot or a kernel change (no caching).
func (s *Sandbox) verdictKey() string {
	plat, ok := platformKey()
	if !ok {
		return ""
	}
	exe, err := s.executable()
	if err != nil {
		return ""
	}
	if abs, err := filepath.Abs(exe); err == nil {
		exe = abs
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	parts := []string{
		fmt.Sprintf("v%d", verdictVersion), runtime.GOOS, runtime.GOARCH, plat,
		fmt.Sprintf("exe %s %d %d %s", exe, fi.Size(), fi.ModTime().UnixNano(), fileID(fi)),
		fmt.Sprintf("user %d:%d", os.Geteuid(), os.Getegid()),
		"tmp " + os.TempDir(),
		"ws " + s.opts.Workspace,
		"layers " + s.opts.LayerDir,
		"writable " + strings.Join(s.opts.Writable, "\x00"),
		"writable-here " + strings.Join(s.writable(), "\x00"),
		"protected " + strings.Join(s.opts.Protected, "\x00"),
		"hidden " + strings.Join(s.opts.Hidden, "\x00"),
		"visible " + strings.Join(s.opts.Visible, "\x00"),
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\n")))
	return hex.EncodeToString(sum[:])
}

func verdictPath(dir, key string) string {
	return filepath.Join(dir, "sandbox-verdict-"+key[:32]+".json")
}

// loadVerdict returns the cached pass for key, if a sound one is there.
func loadVerdict(dir, key string, now time.Time) (verdict, bool) {
	if dir == "" || key == "" {
		return verdict{}, false
	}
	p := verdictPath(dir, key)
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o022 != 0 || !ownedByMe(fi) || fi.Size() > 4096 {
		return verdict{}, false
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return verdict{}, false
	}
	var v verdict
	if json.Unmarshal(b, &v) != nil || v.Version != verdictVersion || v.Key != key || v.At.IsZero() ||
		v.At.After(now.Add(time.Minute)) || now.Sub(v.At) > verdictMaxAge {
		return verdict{}, false
	}
	return v, true
}

// storeVerdict writes a pass atomically (a temp file renamed over the
// entry), readable by the user only. Errors are ignored: the cache only
// saves time.
func storeVerdict(dir string, v verdict) {
	if dir == "" || v.Key == "" {
		return
	}
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	f, err := os.CreateTemp(dir, ".sandbox-verdict-*")
	if err != nil {
		return
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Chmod(f.Name(), 0o600) != nil || os.Rename(f.Name(), verdictPath(dir, v.Key)) != nil {
		os.Remove(f.Name())
		return
	}
	pruneVerdicts(dir, v.At)
}

// dropVerdict removes the entry for key (a real test failed).
func dropVerdict(dir, key string) {
	if dir != "" && key != "" {
		os.Remove(verdictPath(dir, key))
	}
}

// pruneVerdicts removes entries too old to be used (other binaries,
// workspaces or boots leave theirs behind).
func pruneVerdicts(dir string, now time.Time) {
	old, _ := filepath.Glob(filepath.Join(dir, "sandbox-verdict-*.json"))
	for _, p := range old {
		if fi, err := os.Lstat(p); err == nil && now.Sub(fi.ModTime()) > verdictMaxAge {
			os.Remove(p)
		}
	}
}
