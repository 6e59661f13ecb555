// Package sandbox confines the shell commands myclaw runs: on Linux with
// Landlock (applied by a small launcher, myclaw itself re-executed, that
// restricts itself and then execs bash), in a private mount namespace where
// the protected paths are read-only, and in an empty network namespace when
// the call has no network; on macOS with a generated Seatbelt profile.
// Elsewhere there is no sandbox and Status says so.
//
// A Sandbox is checked once (Check runs a child that must fail to write
// outside and to connect) before it is reported active; it is never assumed.
// It is safe for concurrent use.
package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"myclaw/tools"
)

// Options says where a sandboxed command may write.
type Options struct {
	// Workspace is the directory commands run in; writable, absolute.
	Workspace string
	// Writable lists more writable directories (absolute; "~/" is expanded;
	// missing ones are skipped).
	Writable []string
	// Protected lists paths never writable even when they lie inside a
	// writable directory (myclaw's state and config directories). The
	// workspace's .myclaw.toml and the files that decide what git runs in
	// its repositories (gitguard.go) are always added.
	Protected []string
	// Hidden lists files and directories commands cannot read (credential
	// stores, myclaw's own state and config): each one that exists is
	// covered by an empty one ("~/" is expanded). One that holds the
	// workspace or a writable directory is left visible.
	Hidden []string
	// LayerDir holds, where the system can mount one, a copy-on-write
	// layer for each writable cache: commands see the cache and write to
	// the layer, never to the cache itself, so nothing they leave there
	// reaches a program run later outside the sandbox. "" (or no overlay
	// mount here) makes the caches read-only.
	LayerDir string
	// Visible takes paths off Hidden (the config's way to un-hide one).
	Visible []string
	// Executable is the launcher (myclaw itself); "" means os.Executable().
	Executable string
	// VerdictDir caches the self-test's pass (verdict.go); "" runs the
	// test on every Check.
	VerdictDir string
}

// Status is what the sandbox enforces here, for /sandbox, the approval
// pane and the policy.
type Status struct {
	// Active is true once the self-test passed.
	Active bool
	// Mechanism names what enforces it: "Landlock ABI 7 + mount and network
	// namespaces", "Seatbelt (sandbox-exec)".
	Mechanism string
	// Why says, when not active, why not.
	Why string
	// Writable are the directories commands may write besides the
	// workspace and their temp dir.
	Writable []string
	// Protected are the paths kept read-only.
	Protected []string
	// Hidden are the paths that exist here and commands cannot read.
	Hidden []string
	// Caches says how commands see the writable caches: CacheLayered or
	// CacheReadOnly.
	Caches string
	// Gaps names what the sandbox does not cover here.
	Gaps []string
	// Cached: the pass came from the cache, made at CheckedAt, not from a
	// test run by this process.
	Cached bool
	// CheckedAt is when the self-test that decided Active ran.
	CheckedAt time.Time
}

// Sandbox confines commands. The zero value is not usable; call New.
type Sandbox struct {
	opts Options

	mu      sync.Mutex
	checked bool
	// layered: the caches are seen through layers (known after Check).
	layered bool
	status  Status
	// fail forces the self-test to fail, for tests of the fallback.
	fail string
	// tree keeps the scan for repositories from reading every folder of
	// the workspace on every call (scan.go).
	tree treeCache
}

// New returns a sandbox for opts, not yet checked: Status reports it
// inactive until Check passes.
func New(opts Options) *Sandbox {
	if opts.Workspace != "" {
		if abs, err := filepath.Abs(opts.Workspace); err == nil {
			opts.Workspace = abs
		}
	}
	var w []string
	for _, d := range opts.Writable {
		if d = expandHome(d); d != "" && filepath.IsAbs(d) && !slices.Contains(w, filepath.Clean(d)) {
			w = append(w, filepath.Clean(d))
		}
	}
	opts.Writable = w
	var h, vis []string
	for _, d := range opts.Visible {
		vis = append(vis, filepath.Clean(expandHome(d)))
	}
	for _, d := range opts.Hidden {
		if d = expandHome(d); d != "" && filepath.IsAbs(d) && !slices.Contains(h, filepath.Clean(d)) && !slices.Contains(vis, filepath.Clean(d)) {
			h = append(h, filepath.Clean(d))
		}
	}
	opts.Hidden = h
	return &Sandbox{opts: opts, status: Status{Why: "not checked yet"}}
}

// ForceFailure makes the next Check fail with why, as on a system without
// support; it exists for tests of the fallback to asking.
func (s *Sandbox) ForceFailure(why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail, s.checked = why, false
}

// Status returns what the last Check found.
func (s *Sandbox) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status
}

// Active reports whether commands are confined (Check passed).
func (s *Sandbox) Active() bool { return s.Status().Active }

// Check detects the platform's support and runs the self-test once, or
// takes its pass from the cache (Options.VerdictDir); later calls return
// the first result.
func (s *Sandbox) Check(ctx context.Context) Status {
	return s.check(ctx, true)
}

// Recheck runs the self-test again, never from the cache, and records the
// result (a pass in the cache, a failure by removing the cached pass).
func (s *Sandbox) Recheck(ctx context.Context) Status {
	return s.check(ctx, false)
}

func (s *Sandbox) check(ctx context.Context, useCache bool) Status {
	s.mu.Lock()
	if s.checked && useCache {
		defer s.mu.Unlock()
		return s.status
	}
	fail := s.fail
	s.mu.Unlock()
	st := s.baseStatus()
	if fail != "" {
		st.Active, st.Why = false, fail
	} else if why := s.detect(); why != "" {
		st.Active, st.Why = false, why
	} else {
		key, now := s.verdictKey(), time.Now()
		if v, ok := loadVerdict(s.opts.VerdictDir, key, now); ok && useCache {
			st.Active, st.Cached, st.CheckedAt = true, true, v.At
			st.Caches = CacheReadOnly
			if v.Layered {
				st.Caches = CacheLayered
			}
		} else {
			s.test(ctx, &st)
			st.CheckedAt = now
			switch {
			case st.Active:
				storeVerdict(s.opts.VerdictDir, verdict{Version: verdictVersion, Key: key, Layered: st.Caches == CacheLayered, At: now})
			case ctx.Err() == nil:
				// A test cut short (myclaw closing) says nothing of the
				// system: the pass kept stands.
				dropVerdict(s.opts.VerdictDir, key)
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status, s.checked = st, true
	s.layered = st.Caches == CacheLayered
	return st
}

// test runs the layer test and the self-test into st.
func (s *Sandbox) test(ctx context.Context, st *Status) {
	// Layered caches where the system mounts them, else read-only.
	layered := s.opts.LayerDir != "" && len(s.writable()) > 0 && s.layerTest(ctx) == nil
	if err := s.selfTest(ctx); err != nil {
		st.Active, st.Why = false, "the self-test failed: "+err.Error()
	} else {
		st.Active, st.Why = true, ""
	}
	st.Caches = CacheReadOnly
	if layered {
		st.Caches = CacheLayered
	}
}

func (s *Sandbox) baseStatus() Status {
	return Status{
		Mechanism: mechanism(),
		Writable:  s.writable(),
		Protected: s.opts.Protected,
		Hidden:    s.hidden(),
		Gaps:      gaps(),
	}
}

// writable is the configured writable list that exists here.
func (s *Sandbox) writable() []string {
	var out []string
	for _, d := range s.opts.Writable {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			out = append(out, d)
		}
	}
	return out
}

// How commands see the writable caches (Status.Caches).
const (
	CacheLayered  = "layered"
	CacheReadOnly = "read-only"
)

func (s *Sandbox) cacheMode() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.layered {
		return CacheLayered
	}
	return CacheReadOnly
}

// layerDirs are the upper and work dirs of the layer over cache d, named
// after its path.
func (s *Sandbox) layerDirs(d string) (upper, work string) {
	sum := sha256.Sum256([]byte(d))
	base := filepath.Join(s.opts.LayerDir, filepath.Base(d)+"-"+hex.EncodeToString(sum[:6]))
	return filepath.Join(base, "upper"), filepath.Join(base, "work")
}

// hidden is the Hidden list that exists here, without the paths that
// hold the workspace or a writable directory (covering those would
// break every command).
func (s *Sandbox) hidden() []string {
	roots := append([]string{s.opts.Workspace}, s.writable()...)
	var out []string
	for _, p := range s.opts.Hidden {
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		holds := false
		for _, r := range roots {
			if r != "" && under(r, []string{p}) {
				holds = true
			}
		}
		if !holds {
			out = append(out, p)
		}
	}
	return out
}

// DefaultHidden are the credential stores hidden from commands unless
// the config says otherwise (myclaw's own state and config directories
// are added by the caller): tools.CredentialStores for this process's
// environment, so a store moved by $XDG_CONFIG_HOME, $XDG_DATA_HOME or a
// tool's own variable (GH_CONFIG_DIR, GNUPGHOME, KUBECONFIG, …) is hidden
// where it is.
func DefaultHidden() []string {
	return tools.CredentialStores(os.Getenv)
}

// protected returns the protected paths that lie in a writable place
// (others are read-only anyway) and whether each exists now, with the git
// directories reachable from the workspace (see gitguard.go) when repos
// says the command can write the workspace (nil otherwise).
func (s *Sandbox) protected(roots []string, repos bool) (existing, missing []string, gitDirs *gitFiles) {
	cands := slices.Clone(s.opts.Protected)
	if ws := s.opts.Workspace; ws != "" {
		cands = append(cands, filepath.Join(ws, ".myclaw.toml"))
		if repos {
			g := findGitFiles(&s.tree, ws, time.Time{})
			cands = append(cands, g.paths...)
			gitDirs = &g
		}
	}
	for _, p := range cands {
		if !under(p, roots) || slices.Contains(existing, p) || slices.Contains(missing, p) {
			continue
		}
		if _, err := os.Lstat(p); err == nil {
			existing = append(existing, p)
		} else if filepath.Base(p) != ".git" {
			missing = append(missing, p)
		}
	}
	return existing, missing, gitDirs
}

// under reports whether p is inside one of roots.
func under(p string, roots []string) bool {
	for _, r := range roots {
		if rel, err := filepath.Rel(r, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

// Describe is the one line the approval pane and the result show.
func Describe(active, network bool) string {
	if !active {
		return "not sandboxed"
	}
	if network {
		return "sandbox: writes in workspace + temp, network allowed"
	}
	return "sandbox: writes in workspace + temp, no network"
}

// ProxiedLine is Describe's line for a command confined by ConfineProxied.
const ProxiedLine = "sandbox: writes in workspace + temp, network only to hosts you allow"

// call is one confined command: what to undo and report after it ran.
type call struct {
	tmp     string
	missing []string // protected paths absent before: removed if created
	network bool
	// proxied: without network, but hosts are reachable one at a time
	// through myclaw's proxy (ConfineProxied).
	proxied bool
	// ws, roots and gitDirs are the workspace, where the command could
	// write and the git directories known before it ran: one it makes
	// is checked afterwards.
	ws      string
	roots   []string
	gitDirs *gitFiles
	tree    *treeCache
	// pinned are the hooks folders core.hooksPath names, checked
	// afterwards (gitguard.go).
	pinned []pinnedDir
	// hidden are the paths commands cannot read: an error naming one is
	// the sandbox's doing, not the file's absence.
	hidden []string
	// readOnly: the workspace was not writable (ConfineReadOnly).
	readOnly bool
}

// finish cleans up after a confined command and reads its stderr for what
// the sandbox blocked. It returns the confinement line and a
// permission_denied note ("" when nothing was blocked).
func (c *call) finish(stderr string) (string, string) {
	if c.tmp != "" {
		os.RemoveAll(c.tmp)
	}
	var notes []string
	for _, p := range c.missing {
		if _, err := os.Lstat(p); err == nil {
			os.RemoveAll(p)
			notes = append(notes, fmt.Sprintf("permission_denied: the command created %s, which is protected; the sandbox removed it", p))
		}
	}
	if n := checkPinned(c.pinned); n != "" {
		notes = append(notes, n)
	}
	n, hid := blocked(stderr, c.network, c.hidden)
	if n != "" {
		if c.readOnly {
			n = readOnlyNote(n)
		}
		notes = append(notes, n)
	}
	if p := hiddenIn(stderr, c.hidden); p != "" && !hid {
		notes = append(notes, "permission_denied: the sandbox hides "+p+" from commands (a credential store or myclaw's own state), so it reads as missing or empty here; that says nothing about whether it exists. If the task needs it, ask the user")
	}
	if c.gitDirs != nil {
		if n := newGitDirs(c.tree, c.ws, c.gitDirs, c.roots); n != "" {
			notes = append(notes, n)
		}
	}
	line := Describe(true, c.network)
	if c.readOnly {
		line = ReadOnlyLine
	}
	if c.proxied {
		line = ProxiedLine
	}
	return line, strings.Join(notes, ". ")
}

// hiddenIn returns the first hidden path that stderr names (itself or a
// path under it), or "".
func hiddenIn(stderr string, hidden []string) string {
	for _, h := range hidden {
		for i := 0; ; {
			j := strings.Index(stderr[i:], h)
			if j < 0 {
				break
			}
			end := i + j + len(h)
			if end == len(stderr) || strings.ContainsRune("/:'\"\n ", rune(stderr[end])) {
				return h
			}
			i = end
		}
	}
	return ""
}

// denials are the errors a confined write or connect fails with, in lower
// case (Go tools print them so; C tools capitalise).
var denials = []string{"permission denied", "operation not permitted", "read-only file system", "device or resource busy"}

var (
	quoted    = regexp.MustCompile(`'([^'\n]+)'|‘([^’\n]+)’|"([^"\n]+)"`)
	netDenied = regexp.MustCompile(`(?i)(connect|socket|dial|/dev/tcp/|/dev/udp/)`)
	// A server's own words for a port it may not open: Go's "listen tcp
	// …: bind: permission denied", Node's "listen EACCES".
	listenDenied = regexp.MustCompile(`(?i)\b(listen|bind)\b`)
	netFailure   = regexp.MustCompile(`(?i)(network is unreachable|could not resolve|couldn't resolve|temporary failure in name resolution|name or service not known|no such host)`)
)

// blocked maps what the command printed to a note when it looks like the
// sandbox stopped it: the first line that ends in a denial names the path.
// The message cannot tell a read from a write, so the note says "access";
// hid reports that the path lies in a hidden one, whose note says so and
// never suggests making it writable.
func blocked(stderr string, network bool, hidden []string) (note string, hid bool) {
	for line := range strings.SplitSeq(stderr, "\n") {
		i := -1
		lower := strings.ToLower(line)
		for _, d := range denials {
			if j := strings.Index(lower, d); j > 0 {
				i = j
				break
			}
		}
		if i < 0 {
			if !network && netFailure.MatchString(line) {
				return noNetworkNote, false
			}
			continue
		}
		if !network && listenDenied.MatchString(line) {
			return noListenNote, false
		}
		if netDenied.MatchString(line) {
			if network {
				continue
			}
			return noNetworkNote, false
		}
		if p := deniedPath(line[:i]); p != "" {
			why := strings.TrimSpace(line[i:])
			if h := hiddenHolding(p, hidden); h != "" {
				return fmt.Sprintf("permission_denied: the sandbox blocked access to %s (%s): it hides %s from commands on purpose (a credential store or myclaw's own state), so nothing there can be read or written here; if the task needs it, ask the user", p, why, h), true
			}
			return fmt.Sprintf("permission_denied: the sandbox blocked access to %s (%s)%s", p, why, writeAdvice), false
		}
	}
	return "", false
}

// writeAdvice ends the note for a path that is not hidden: whether the
// command read or wrote it is unknown, and writes are what the user can
// allow.
const writeAdvice = ". Writes are allowed only in the workspace, the temp dir ($TMPDIR) and the directories of [shell.sandbox] writable, never in a repository's config, hooks or gitdir pointers, nor .myclaw.toml; if the command really needs to write there, ask the user to run it outside the sandbox or to add the directory to [shell.sandbox] writable"

// hiddenHolding returns the hidden path that is p or holds it, or "".
func hiddenHolding(p string, hidden []string) string {
	if p = expandHome(p); !filepath.IsAbs(p) {
		return ""
	}
	for _, h := range hidden {
		if under(filepath.Clean(p), []string{h}) {
			return h
		}
	}
	return ""
}

const noListenNote = "permission_denied: the sandbox lets a command without network open no port, which looks like why it failed; a server (a dev server, a test that listens) needs the user to approve it with network (the w key in the approval pane)"

const noNetworkNote = "permission_denied: the sandbox gives this call no network, which looks like why it failed; if it needs the network, ask the user to approve it with network (the w key in the approval pane)"

// deniedPath finds the path in the text before a denial: the first quoted
// one ("touch: cannot touch '/x': "), else the last field that looks like a
// path ("bash: line 1: /x: ").
func deniedPath(before string) string {
	if m := quoted.FindStringSubmatch(before); m != nil {
		return firstNonEmpty(m[1], m[2], m[3])
	}
	fields := strings.Split(strings.TrimSuffix(strings.TrimSpace(before), ":"), ": ")
	for i := len(fields) - 1; i >= 0; i-- {
		f := strings.TrimSpace(fields[i])
		if strings.ContainsAny(f, "/.") && !strings.Contains(f, " ") {
			return f
		}
		// "mkdir /x", "open /x"
		words := strings.Fields(f)
		for j := len(words) - 1; j >= 0; j-- {
			if w := words[j]; strings.HasPrefix(w, "/") || strings.HasPrefix(w, "~/") || strings.HasPrefix(w, "./") {
				return w
			}
		}
	}
	return ""
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func expandHome(p string) string {
	p = strings.TrimSpace(p)
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		return filepath.Join(home, strings.TrimPrefix(p, "~"))
	}
	return p
}

func goCaches() []string {
	var out []string
	if v := os.Getenv("GOCACHE"); v != "" && v != "off" {
		out = append(out, v)
	} else if d, err := os.UserCacheDir(); err == nil {
		out = append(out, filepath.Join(d, "go-build"))
	}
	if v := os.Getenv("GOMODCACHE"); v != "" {
		out = append(out, v)
	} else if v := os.Getenv("GOPATH"); v != "" {
		out = append(out, filepath.Join(strings.Split(v, string(os.PathListSeparator))[0], "pkg", "mod"))
	} else {
		out = append(out, "~/go/pkg/mod")
	}
	return out
}

// DefaultWritable is the writable list when the config names none: the
// usual toolchain caches, so builds and tests work confined.
func DefaultWritable() []string {
	out := []string{"~/.cache", "~/.npm", "~/.yarn", "~/.pnpm-store", "~/.cargo/registry", "~/.cargo/git", "~/.m2/repository", "~/.gradle/caches"}
	// $XDG_CACHE_HOME moves ~/.cache, and the tools that honour it (go's
	// build cache among them) write there instead.
	if d, err := os.UserCacheDir(); err == nil {
		out = append(out, d)
	}
	return append(out, goCaches()...)
}

// Confine rewrites cmd, built to run bash -c in the workspace, so that it
// runs confined, with or without network. The returned finish must be
// called once the command ended, with its standard error (or its tail); it
// cleans up and returns the confinement line and a permission_denied note
// ("" when nothing looks blocked). Confine fails (and cmd must not run)
// when the sandbox is not active.
func (s *Sandbox) Confine(cmd *exec.Cmd, network bool) (func(stderr string) (string, string), error) {
	if !s.Active() {
		return nil, fmt.Errorf("the sandbox is not active: %s", s.Status().Why)
	}
	c, err := s.confine(cmd, network)
	if err != nil {
		return nil, err
	}
	return c.finish, nil
}

// ConfinePreview is Confine for a preview run: without network, over a
// copy-on-write layer of the workspace, so that what the command writes
// there lands in upper (an empty directory) and the workspace is left as it
// was; work is an empty directory on upper's filesystem. Linux only: it
// fails elsewhere, and where user namespaces cannot mount an overlay.
func (s *Sandbox) ConfinePreview(cmd *exec.Cmd, upper, work string) (func(stderr string) (string, string), error) {
	if !s.Active() {
		return nil, fmt.Errorf("the sandbox is not active: %s", s.Status().Why)
	}
	if s.opts.Workspace == "" {
		return nil, errors.New("a preview needs the workspace")
	}
	c, err := s.confineOverlay(cmd, upper, work)
	if err != nil {
		return nil, err
	}
	return c.finish, nil
}

// tempDir makes the per-call TMPDIR and puts it in cmd's environment.
func tempDir(cmd *exec.Cmd) (string, error) {
	dir, err := os.MkdirTemp("", "myclaw-sh-")
	if err != nil {
		return "", fmt.Errorf("make the temp dir: %w", err)
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") })
	cmd.Env = append(env, "TMPDIR="+dir)
	return dir, nil
}

// ConfineInLayer is ConfinePreview for a layer that stays mounted: holder
// is a process ConfinePreview started (and that still runs), and cmd runs
// without network in its mount namespace, so it sees and writes the same
// copy-on-write layer. Linux with the cgo launcher only.
func (s *Sandbox) ConfineInLayer(cmd *exec.Cmd, holder int) (func(stderr string) (string, string), error) {
	if !s.Active() {
		return nil, fmt.Errorf("the sandbox is not active: %s", s.Status().Why)
	}
	if s.opts.Workspace == "" {
		return nil, errors.New("a layer needs the workspace")
	}
	c, err := s.confineJoin(cmd, holder)
	if err != nil {
		return nil, err
	}
	return c.finish, nil
}

// CanHoldLayer says why ConfineInLayer cannot work here (nil when it can).
func (s *Sandbox) CanHoldLayer() error {
	if !s.Active() {
		return fmt.Errorf("the sandbox is not active: %s", s.Status().Why)
	}
	return canJoin()
}

func (s *Sandbox) executable() (string, error) {
	if s.opts.Executable != "" {
		return s.opts.Executable, nil
	}
	return os.Executable()
}
