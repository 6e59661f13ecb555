//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// launcherArg is argv[1] of myclaw started as the sandbox launcher. The
// arguments after it (see launchArgs) are not for people to type.
const launcherArg = "__myclaw-sandbox-launch__"

// spec is what the launcher applies before it execs the command.
type spec struct {
	Network bool
	// Proxy is, for a command without network that may reach hosts
	// through myclaw's proxy, the proxy's Unix socket.
	Proxy string
	// IDs is "uid:gid" when the launcher starts as root of a user
	// namespace and should run the command as these ids; "" otherwise.
	IDs     string
	Write   []string
	Protect []string
	// Hide are covered by an empty read-only directory (a tmpfs) or, for
	// a file, by /dev/null.
	Hide []string
	// Caches are triples (a cache, the upper and the work dir of its
	// layer): each cache is seen through a copy-on-write layer, so the
	// command adds and changes files in the layer, never in the cache.
	Caches []string
	// Overlay is, for a preview, the workspace, the upper and the work dir
	// of the copy-on-write layer mounted over it; for a command run in a
	// layer already mounted, the id of the process that holds its mount
	// namespace (joined, not mounted again); empty otherwise.
	Overlay []string
	Path    string
	Args    []string
	// readOnly leaves the workspace out of Write (ConfineReadOnly); the
	// launcher only ever sees Write.
	readOnly bool
}

// launchArgs lays out sp after the launcher's argv[0], as the C launcher
// (launch_cgo_linux.go) and launchGo read it:
// SENTINEL net|nonet uid:gid|- W w... P p... H h... C c... O o... path arg0 args...
func launchArgs(sp spec) []string {
	net := "nonet"
	if sp.Network {
		net = "net"
	} else if sp.Proxy != "" {
		net = "proxy:" + sp.Proxy
	}
	ids := sp.IDs
	if ids == "" {
		ids = "-"
	}
	out := []string{launcherArg, net, ids, strconv.Itoa(len(sp.Write))}
	out = append(out, sp.Write...)
	out = append(out, strconv.Itoa(len(sp.Protect)))
	out = append(out, sp.Protect...)
	out = append(out, strconv.Itoa(len(sp.Hide)))
	out = append(out, sp.Hide...)
	out = append(out, strconv.Itoa(len(sp.Caches)))
	out = append(out, sp.Caches...)
	out = append(out, strconv.Itoa(len(sp.Overlay)))
	out = append(out, sp.Overlay...)
	return append(append(out, sp.Path), sp.Args...)
}

func parseLaunchArgs(a []string) (spec, error) {
	var sp spec
	bad := errors.New("bad launch arguments")
	if len(a) < 4 {
		return sp, bad
	}
	sp.Network = a[0] == "net"
	sp.Proxy, _ = strings.CutPrefix(a[0], "proxy:")
	if sp.Proxy == a[0] {
		sp.Proxy = ""
	}
	if a[1] != "-" {
		sp.IDs = a[1]
	}
	list := func(rest []string) ([]string, []string, bool) {
		if len(rest) == 0 {
			return nil, nil, false
		}
		n, err := strconv.Atoi(rest[0])
		if err != nil || n < 0 || n >= len(rest) {
			return nil, nil, false
		}
		return rest[1 : 1+n], rest[1+n:], true
	}
	rest, ok := a[2:], false
	if sp.Write, rest, ok = list(rest); !ok {
		return sp, bad
	}
	if sp.Protect, rest, ok = list(rest); !ok {
		return sp, bad
	}
	if sp.Hide, rest, ok = list(rest); !ok {
		return sp, bad
	}
	if sp.Caches, rest, ok = list(rest); !ok || len(sp.Caches)%3 != 0 {
		return sp, bad
	}
	if sp.Overlay, rest, ok = list(rest); !ok || len(rest) < 2 || len(sp.Overlay) == 2 || len(sp.Overlay) > 3 {
		return sp, bad
	}
	sp.Path, sp.Args = rest[0], rest[1:]
	return sp, nil
}

// Launch runs the launcher when this process was started as one: it
// confines itself and execs the command, and never returns. Otherwise it
// returns at once. Call it first thing in main (and in TestMain of tests
// that run confined commands). With cgo the C launcher has already done
// this before the Go runtime started; Launch is the fallback without cgo.
func Launch() {
	if len(os.Args) == 4 && os.Args[1] == netfwdArg {
		err := forward(os.Args[2], os.Args[3])
		fmt.Fprintf(os.Stderr, "myclaw proxy forwarder: %v\n", err)
		os.Exit(1)
	}
	if len(os.Args) < 3 || os.Args[1] != launcherArg {
		return
	}
	err := launchGo(os.Args[2:])
	// Only failures come back: never run the command unconfined.
	fmt.Fprintf(os.Stderr, "myclaw sandbox: %v; the command did not run\n", err)
	os.Exit(126)
}

func launchGo(args []string) error {
	sp, err := parseLaunchArgs(args)
	if err != nil {
		return err
	}
	// Landlock binds the calling thread; exec from the same one.
	runtime.LockOSThread()
	if len(sp.Overlay) == 1 {
		// setns into a user namespace needs a single-threaded process.
		return errors.New("running a command in a held layer needs the launcher built with cgo")
	}
	for i := 0; i+2 < len(sp.Caches); i += 3 {
		if err := cacheLayer(sp.Caches[i : i+3]); err != nil {
			return err
		}
	}
	if len(sp.Overlay) == 3 {
		if err := overlay(sp.Overlay); err != nil {
			return err
		}
	}
	if err := protect(sp.Protect); err != nil {
		return err
	}
	if err := hide(sp.Hide); err != nil {
		return err
	}
	if sp.Proxy != "" {
		if err := startForwarder(sp.Proxy); err != nil {
			return err
		}
	}
	cfg := landlock.Config{HandledAccessFS: landlock.V11.HandledAccessFS, Scoped: landlock.V11.Scoped}
	if sp.Network {
		// Unix sockets (V9) and abstract ones stay reachable with network.
		cfg.HandledAccessFS &^= llsys.AccessFSResolveUnix
		cfg.Scoped &^= llsys.ScopeAbstractUnixSocket
	} else {
		cfg.HandledAccessNet = landlock.V11.HandledAccessNet
	}
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWDirs(sp.Write...).WithRefer().IgnoreIfMissing(),
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx").WithIoctlDev().IgnoreIfMissing(),
		landlock.RWDirs("/dev/pts").WithIoctlDev().IgnoreIfMissing(),
	}
	if sp.Proxy != "" {
		rules = append(rules, landlock.ConnectTCP(ProxyPort))
	}
	fd, flags, err := cfg.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	if fd < 0 {
		return fmt.Errorf("landlock is not available on this kernel")
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(no_new_privs): %w", err)
	}
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	unix.Close(fd)
	// The proxy's token is the forwarder's, never the command's.
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, proxyTokenEnv+"=") })
	return syscall.Exec(sp.Path, sp.Args, env)
}

// cacheLayer mounts a copy-on-write layer (c: cache, upper, work) over a
// cache.
func cacheLayer(c []string) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make the mounts private: %w", err)
	}
	opts := "lowerdir=" + c[0] + ",upperdir=" + c[1] + ",workdir=" + c[2] + ",userxattr"
	if err := unix.Mount("overlay", c[0], "overlay", 0, opts); err != nil {
		return fmt.Errorf("mount the cache layer over %s: %w", c[0], err)
	}
	return nil
}

// overlay mounts the preview's copy-on-write layer over the workspace
// (ovl: workspace, upper dir, work dir) and moves the working directory
// onto it.
func overlay(ovl []string) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make the mounts private: %w", err)
	}
	opts := "lowerdir=" + ovl[0] + ",upperdir=" + ovl[1] + ",workdir=" + ovl[2] + ",userxattr"
	if err := unix.Mount("overlay", ovl[0], "overlay", 0, opts); err != nil {
		return fmt.Errorf("mount the preview layer: %w", err)
	}
	wd, err := os.Getwd()
	if err == nil {
		err = os.Chdir(wd)
	}
	if err != nil {
		return fmt.Errorf("enter the preview layer: %w", err)
	}
	return nil
}

// protect makes the protected paths read-only in this (private) mount
// namespace. A .git directory is bound onto itself first: a mount point
// cannot be renamed away and replaced.
func protect(paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make the mounts private: %w", err)
	}
	for _, p := range paths {
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s: %w", p, err)
		}
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() && fi.Name() == ".git" {
			continue
		}
		// A remount must keep the flags the mount is locked with.
		var st unix.Statfs_t
		if err := unix.Statfs(p, &st); err != nil {
			return fmt.Errorf("statfs %s: %w", p, err)
		}
		keep := uintptr(st.Flags) & (unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC | unix.MS_NOATIME | unix.MS_NODIRATIME | unix.MS_RELATIME)
		if err := unix.Mount("", p, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|keep, ""); err != nil {
			return fmt.Errorf("make %s read-only: %w", p, err)
		}
	}
	return nil
}

// hide covers each path with an empty read-only tmpfs (a directory) or
// /dev/null (a file), in this private mount namespace.
func hide(paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make the mounts private: %w", err)
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			return fmt.Errorf("hide %s: %w", p, err)
		case fi.IsDir():
			err = unix.Mount("tmpfs", p, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0500")
		default:
			err = unix.Mount("/dev/null", p, "", unix.MS_BIND, "")
		}
		if err != nil {
			return fmt.Errorf("hide %s: %w", p, err)
		}
	}
	return nil
}

func (s *Sandbox) confine(cmd *exec.Cmd, network bool) (*call, error) {
	return s.confineLayer(cmd, network, nil)
}

// confineOverlay confines cmd without network, over a copy-on-write layer
// of the workspace whose changes land in upper (work: overlayfs's scratch
// dir, on the same filesystem).
func (s *Sandbox) confineOverlay(cmd *exec.Cmd, upper, work string) (*call, error) {
	for _, p := range []string{s.opts.Workspace, upper, work} {
		// overlayfs reads its options split at commas and colons.
		if strings.ContainsAny(p, ",:\\") {
			return nil, fmt.Errorf("a preview cannot mount over %q: the path holds a comma, colon or backslash", p)
		}
	}
	return s.confineLayer(cmd, false, []string{s.opts.Workspace, upper, work})
}

// confineJoin confines cmd without network in the mount namespace of the
// process holder, which ConfinePreview started over a layer: the command
// sees and writes the same overlay mount, never a second one over the same
// upper dir (overlayfs leaves two such mounts undefined).
func (s *Sandbox) confineJoin(cmd *exec.Cmd, holder int) (*call, error) {
	if err := canJoin(); err != nil {
		return nil, err
	}
	if holder <= 0 {
		return nil, fmt.Errorf("no process holds the layer (pid %d)", holder)
	}
	return s.confineSpec(cmd, spec{Overlay: []string{strconv.Itoa(holder)}})
}

// canJoin: only the C launcher, single-threaded, can enter a namespace.
func canJoin() error {
	if !launcherMakesNamespaces {
		return errors.New("running commands in a held layer needs myclaw built with cgo")
	}
	return nil
}

func (s *Sandbox) confineLayer(cmd *exec.Cmd, network bool, ovl []string) (*call, error) {
	return s.confineSpec(cmd, spec{Network: network, Overlay: ovl})
}

// confineSpec confines cmd as sp says (Network, Overlay, Proxy); the
// rest of sp is filled in here.
func (s *Sandbox) confineSpec(cmd *exec.Cmd, sp spec) (*call, error) {
	network := sp.Network
	exe, err := s.executable()
	if err != nil {
		return nil, fmt.Errorf("find the launcher: %w", err)
	}
	tmp, err := tempDir(cmd)
	if err != nil {
		return nil, err
	}
	caches, layers := s.cacheLayers()
	if len(sp.Overlay) == 1 {
		layers = nil // the holder's namespace has them mounted already
	}
	write := append([]string{s.opts.Workspace, tmp}, caches...)
	if sp.readOnly {
		write = append([]string{tmp}, caches...)
	}
	// The workspace's repositories are looked for (gitguard.go) only
	// where the command writes the workspace itself: read-only, it
	// cannot; in a held layer, its namespace has the protected paths bound
	// since the layer was made (the launcher joins it as it is); and what
	// a layer holds reaches the workspace only through the merge, which
	// never applies a file that decides what git runs
	// (builtin.NeverApplied). A preview's layer is still protected like
	// the workspace (the files its repositories' configs include are not
	// under .git), but it is not checked afterwards: nothing it made is
	// in the workspace, and a repository the user made meanwhile is the
	// user's.
	existing, missing, gitDirs := s.protected(write, !sp.readOnly && len(sp.Overlay) != 1)
	if len(sp.Overlay) != 0 {
		// A layer's command cannot write the workspace: a protected path
		// or a repository that appears there meanwhile is the user's,
		// never removed nor made inert.
		missing, gitDirs = nil, nil
	}
	slices.SortFunc(existing, func(a, b string) int { return len(a) - len(b) }) // parents first
	sp.Write, sp.Protect, sp.Hide, sp.Caches, sp.Path, sp.Args = write, existing, s.hidden(), layers, cmd.Path, cmd.Args
	uid, gid := os.Geteuid(), os.Getegid()
	sp.IDs = strconv.Itoa(uid) + ":" + strconv.Itoa(gid)
	if !launcherMakesNamespaces {
		// A user namespace whose root the launcher is, for the mounts; a
		// private mount namespace; without network, an empty network
		// namespace (no route anywhere, UDP included). The command then
		// sees uid 0, privileged only over its own namespaces, which
		// Landlock keeps it from using on files.
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		attr := cmd.SysProcAttr
		attr.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
		if !network {
			attr.Cloneflags |= syscall.CLONE_NEWNET
		}
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: gid, Size: 1}}
	}
	cmd.Args = append([]string{exe}, launchArgs(sp)...)
	cmd.Path = exe
	return &call{tmp: tmp, missing: missing, network: network, ws: s.opts.Workspace, roots: write, gitDirs: gitDirs, tree: &s.tree,
		pinned: pinProtected(gitDirs, existing), hidden: s.hidden(), readOnly: sp.readOnly}, nil
}

// confineReadOnly confines cmd without network and with the workspace
// read-only: only its temp dir and the cache layers take writes.
func (s *Sandbox) confineReadOnly(cmd *exec.Cmd) (*call, error) {
	return s.confineSpec(cmd, spec{readOnly: true})
}

// detect says why there is no sandbox here, or "".
func (s *Sandbox) detect() string {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil || v < 1 {
		return "this kernel has no Landlock (needs Linux 5.13 or later with Landlock enabled)"
	}
	return ""
}

// cacheLayers returns the writable caches commands may write (through a
// layer) and the layers' triples (cache, upper, work). Without a layer
// directory, or where a layer cannot be made, caches are read-only.
func (s *Sandbox) cacheLayers() (writable, layers []string) {
	if s.opts.LayerDir == "" || s.cacheMode() != CacheLayered {
		return nil, nil
	}
	for _, d := range s.writable() {
		upper, work := s.layerDirs(d)
		// overlayfs reads its options split at commas and colons.
		if strings.ContainsAny(d+upper, ",:\\") || os.MkdirAll(upper, 0o700) != nil || os.MkdirAll(work, 0o700) != nil {
			continue
		}
		writable = append(writable, d)
		layers = append(layers, d, upper, work)
	}
	return writable, layers
}

func mechanism() string {
	v, _ := llsys.LandlockGetABIVersion()
	return fmt.Sprintf("Landlock ABI %d, a private mount namespace (protected paths read-only) and an empty network namespace for calls without network", v)
}

func gaps() []string {
	g := []string{}
	v, _ := llsys.LandlockGetABIVersion()
	if v < 9 {
		g = append(g, "Unix sockets named by a path (e.g. /var/run/docker.sock, an ssh-agent) stay reachable: Landlock restricts them from ABI 9, this kernel has ABI "+fmt.Sprint(v))
	}
	g = append(g, "reads are restricted only for the hidden paths: commands can read every other file you can")
	return g
}
