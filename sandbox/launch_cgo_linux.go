//go:build linux && cgo

package sandbox

// The launcher in C runs as a constructor, before the Go runtime and the
// init functions of every package myclaw links (the TUI's take tens of
// milliseconds), so a confined command costs about what a plain one does.
// It does what launchGo does, from the same argv.

/*
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SB_SENTINEL "__myclaw-sandbox-launch__"
#define SB_NETFWD "__myclaw-netfwd__"
#define SB_PROXY_TOKEN "MYCLAW_PROXY_TOKEN"
#define SB_PROXY_PORT 38451
#define LL_RULE_NET_PORT 2
#define NET_CONNECT_TCP (1ULL << 1)

#define LL_CREATE_RULESET_VERSION 1U
#define LL_RULE_PATH_BENEATH 1
#define FS_EXECUTE (1ULL << 0)
#define FS_WRITE_FILE (1ULL << 1)
#define FS_READ_FILE (1ULL << 2)
#define FS_READ_DIR (1ULL << 3)
#define FS_REFER (1ULL << 13)
#define FS_TRUNCATE (1ULL << 14)
#define FS_IOCTL_DEV (1ULL << 15)
#define FS_RESOLVE_UNIX (1ULL << 16)
// write rights: remove dir/file, make char/dir/reg/sock/fifo/block/sym.
#define FS_WRITE_SET (FS_WRITE_FILE | (0x1ffULL << 4) | FS_TRUNCATE)
#define FS_READ_SET (FS_EXECUTE | FS_READ_FILE | FS_READ_DIR)
#define FS_FILE_SET (FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV)
#define SCOPE_ABSTRACT_UNIX 1ULL
#define SCOPE_SIGNAL 2ULL

struct sb_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct sb_net_port {
	uint64_t allowed_access;
	uint64_t port;
} __attribute__((packed));

struct sb_path_beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

static void sb_fail(const char *what) {
	fprintf(stderr, "myclaw sandbox: %s: %s; the command did not run\n", what, strerror(errno));
	_exit(126);
}

static void sb_failx(const char *what) {
	fprintf(stderr, "myclaw sandbox: %s; the command did not run\n", what);
	_exit(126);
}

// sb_rule allows access beneath path; a missing path is skipped.
static void sb_rule(int ruleset, const char *path, uint64_t access, uint64_t handled) {
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		return;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) {
		access &= FS_FILE_SET;
	}
	struct sb_path_beneath pb = {.allowed_access = access & handled, .parent_fd = fd};
	if (pb.allowed_access && syscall(__NR_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb, 0) != 0) {
		sb_fail("landlock_add_rule");
	}
	close(fd);
}

static void sb_protect(char **paths, int n) {
	if (n == 0) {
		return;
	}
	if (mount("", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		sb_fail("make the mounts private");
	}
	for (int i = 0; i < n; i++) {
		const char *p = paths[i];
		if (mount(p, p, NULL, MS_BIND | MS_REC, NULL) != 0) {
			sb_fail("bind a protected path");
		}
		struct stat st;
		size_t len = strlen(p);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && len >= 5 && strcmp(p + len - 5, "/.git") == 0) {
			continue; // a mount point cannot be renamed away
		}
		struct statfs fs;
		if (statfs(p, &fs) != 0) {
			sb_fail("statfs a protected path");
		}
		unsigned long keep = fs.f_flags & (MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME | MS_RELATIME);
		if (mount("", p, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | keep, NULL) != 0) {
			sb_fail("make a protected path read-only");
		}
	}
}

// sb_hide covers each path with an empty read-only tmpfs (a directory)
// or /dev/null (a file).
static void sb_hide(char **paths, int n) {
	for (int i = 0; i < n; i++) {
		struct stat st;
		if (stat(paths[i], &st) != 0) sb_fail("hide a path");
		int r = S_ISDIR(st.st_mode)
			? mount("tmpfs", paths[i], "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0500")
			: mount("/dev/null", paths[i], NULL, MS_BIND, NULL);
		if (r != 0) sb_fail("hide a path");
	}
}

static void sb_write(const char *path, const char *text) {
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		sb_fail(path);
	}
	close(fd);
}

// sb_userns enters a new user namespace (with the other namespaces in
// flags) where inner maps to outer, for uid and gid alike.
static void sb_userns(int flags, unsigned in_uid, unsigned out_uid, unsigned in_gid, unsigned out_gid) {
	char buf[64];
	if (unshare(CLONE_NEWUSER | flags) != 0) sb_fail("unshare the namespaces");
	sb_write("/proc/self/setgroups", "deny");
	snprintf(buf, sizeof buf, "%u %u 1\n", in_uid, out_uid);
	sb_write("/proc/self/uid_map", buf);
	snprintf(buf, sizeof buf, "%u %u 1\n", in_gid, out_gid);
	sb_write("/proc/self/gid_map", buf);
}

// sb_overlay mounts a copy-on-write layer over the workspace (ovl: the
// workspace, the upper dir, the work dir), so that the command's writes
// land in the upper dir, and moves the working directory onto it.
static void sb_overlay(char **ovl) {
	char opts[3 * 4096 + 64], cwd[4096];
	if (mount("", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) sb_fail("make the mounts private");
	if (snprintf(opts, sizeof opts, "lowerdir=%s,upperdir=%s,workdir=%s,userxattr", ovl[0], ovl[1], ovl[2]) >= (int)sizeof opts) sb_failx("the preview paths are too long");
	if (mount("overlay", ovl[0], "overlay", 0, opts) != 0) sb_fail("mount the preview layer");
	// The working directory still names the directory below the mount.
	if (getcwd(cwd, sizeof cwd) == NULL || chdir(cwd) != 0) sb_fail("enter the preview layer");
}

// sb_join enters the mount namespace of the process pid, which holds a
// layer mounted over the workspace (and the cache layers), through the
// user namespace that owns it; then a copy of it and an empty network
// namespace of its own, and the working directory again in the layer.
static void sb_join(const char *pid) {
	char p[64], cwd[4096];
	if (getcwd(cwd, sizeof cwd) == NULL) sb_fail("read the working directory");
	if (snprintf(p, sizeof p, "/proc/%s/ns/user", pid) >= (int)sizeof p) sb_failx("bad launch arguments");
	int user = open(p, O_RDONLY | O_CLOEXEC);
	if (user < 0) sb_fail("open the layer's user namespace");
	// The holder went on into a nested namespace; the mounts belong to its parent.
	int owner = ioctl(user, NS_GET_PARENT);
	if (owner < 0) sb_fail("find the layer's user namespace");
	snprintf(p, sizeof p, "/proc/%s/ns/mnt", pid);
	int mnt = open(p, O_RDONLY | O_CLOEXEC);
	if (mnt < 0) sb_fail("open the layer's mount namespace");
	if (setns(owner, CLONE_NEWUSER) != 0) sb_fail("join the layer's user namespace");
	if (setns(mnt, CLONE_NEWNS) != 0) sb_fail("join the layer's mount namespace");
	if (unshare(CLONE_NEWNS | CLONE_NEWNET) != 0) sb_fail("unshare the namespaces");
	if (chdir(cwd) != 0) sb_fail("enter the layer");
	close(user);
	close(owner);
	close(mnt);
}

// sb_proxy brings up the loopback of the command's new network namespace,
// listens on 127.0.0.1:SB_PROXY_PORT there, and starts myclaw as the
// forwarder that takes each connection to the proxy's socket (sock) outside.
// The forwarder ends with this process, which becomes the command.
static void sb_proxy(const char *sock, char **envp) {
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	strcpy(ifr.ifr_name, "lo");
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) != 0) sb_fail("read the loopback's flags");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0) sb_fail("bring up the loopback");
	close(s);
	int l = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_port = htons(SB_PROXY_PORT);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 64) != 0) sb_fail("listen for the proxy");
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) sb_fail("start the proxy forwarder");
	if (pid == 0) {
		// Its output must not hold the command's pipes open.
		int null = open("/dev/null", O_RDWR);
		if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0) _exit(1);
		if (l != 3 && (dup2(l, 3) != 3 || close(l) != 0)) _exit(1);
		char ppid[32];
		snprintf(ppid, sizeof ppid, "%d", (int)parent);
		char *fargv[] = {"myclaw", SB_NETFWD, (char *)sock, ppid, NULL};
		execve("/proc/self/exe", fargv, envp);
		_exit(127);
	}
	close(l);
}

// sb_cache mounts a copy-on-write layer over a cache (c: the cache, the
// upper dir, the work dir), so that the command's writes land in the layer.
static void sb_cache(char **c) {
	char opts[3 * 4096 + 64];
	if (snprintf(opts, sizeof opts, "lowerdir=%s,upperdir=%s,workdir=%s,userxattr", c[0], c[1], c[2]) >= (int)sizeof opts) sb_failx("the cache paths are too long");
	if (mount("overlay", c[0], "overlay", 0, opts) != 0) sb_fail("mount a cache layer");
}

// argv: exe SENTINEL net|nonet|proxy:SOCK uid:gid W w... P p... H h... C c... O o... path arg0 args...
static void sb_launch(int argc, char **argv, char **envp) {
	if (argc < 3 || strcmp(argv[1], SB_SENTINEL) != 0) {
		return;
	}
	int i = 2;
	const char *proxy = strncmp(argv[i], "proxy:", 6) == 0 ? argv[i] + 6 : NULL;
	int network = strcmp(argv[i++], "net") == 0;
	if (i + 1 >= argc) sb_failx("bad launch arguments");
	const char *ids = argv[i++];
	int nw = atoi(argv[i++]);
	if (nw < 0 || i + nw >= argc) sb_failx("bad launch arguments");
	char **write = argv + i;
	i += nw;
	int np = atoi(argv[i++]);
	if (np < 0 || i + np + 1 >= argc) sb_failx("bad launch arguments");
	char **protect = argv + i;
	i += np;
	int nh = atoi(argv[i++]);
	if (nh < 0 || i + nh + 1 >= argc) sb_failx("bad launch arguments");
	char **hidden = argv + i;
	i += nh;
	int nc = atoi(argv[i++]);
	if (nc < 0 || nc % 3 != 0 || i + nc + 1 >= argc) sb_failx("bad launch arguments");
	char **caches = argv + i;
	i += nc;
	int no = atoi(argv[i++]);
	if (no == 2 || no > 3 || i + no + 1 >= argc) sb_failx("bad launch arguments");
	char **ovl = argv + i;
	i += no;
	char *path = argv[i++];
	char **args = argv + i;

	// The namespaces are made here, single-threaded, rather than by Go's
	// clone: a Go child in a new user namespace is a full fork of myclaw.
	// First as root of a user namespace, which the mounts need; then back
	// to the user's own ids in a nested one, privileged over nothing.
	unsigned uid, gid;
	if (sscanf(ids, "%u:%u", &uid, &gid) != 2) sb_failx("bad launch arguments");
	if (no == 1) {
		// A held layer: its namespace has the overlay, the cache layers,
		// the protected and the hidden paths in place already.
		if (network || proxy || nc > 0) sb_failx("bad launch arguments");
		sb_join(ovl[0]);
	} else {
		sb_userns(CLONE_NEWNS | (network ? 0 : CLONE_NEWNET), 0, uid, 0, gid);
		if (nc > 0 && mount("", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) sb_fail("make the mounts private");
		for (int k = 0; k + 2 < nc; k += 3) sb_cache(caches + k);
		if (no == 3) sb_overlay(ovl);
		sb_protect(protect, np);
		if (nh > 0 && np == 0 && no == 0 && mount("", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) sb_fail("make the mounts private");
		sb_hide(hidden, nh);
	}
	if (proxy) sb_proxy(proxy, envp);
	sb_userns(0, uid, 0, gid, 0);

	long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
	if (abi < 1) sb_failx("landlock is not available on this kernel");
	struct sb_ruleset_attr attr = {0};
	attr.handled_access_fs = abi >= 9 ? (1ULL << 17) - 1 : abi >= 5 ? (1ULL << 16) - 1 : abi >= 3 ? (1ULL << 15) - 1 : abi >= 2 ? (1ULL << 14) - 1 : (1ULL << 13) - 1;
	if (network) {
		attr.handled_access_fs &= ~FS_RESOLVE_UNIX;
	} else if (abi >= 4) {
		attr.handled_access_net = abi >= 10 ? 0xf : 0x3; // TCP bind/connect, then UDP
	}
	if (abi >= 6) {
		attr.scoped = SCOPE_SIGNAL | (network ? 0 : SCOPE_ABSTRACT_UNIX);
	}
	int ruleset = syscall(__NR_landlock_create_ruleset, &attr, sizeof attr, 0);
	if (ruleset < 0) sb_fail("landlock_create_ruleset");
	uint64_t h = attr.handled_access_fs;
	sb_rule(ruleset, "/", FS_READ_SET, h);
	for (int k = 0; k < nw; k++) {
		sb_rule(ruleset, write[k], FS_READ_SET | FS_WRITE_SET | FS_REFER, h);
	}
	const char *devs[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts"};
	for (size_t k = 0; k < sizeof devs / sizeof devs[0]; k++) {
		sb_rule(ruleset, devs[k], FS_READ_SET | FS_WRITE_SET | FS_IOCTL_DEV, h);
	}
	if (proxy && abi >= 4) {
		struct sb_net_port port = {.allowed_access = NET_CONNECT_TCP, .port = SB_PROXY_PORT};
		if (syscall(__NR_landlock_add_rule, ruleset, LL_RULE_NET_PORT, &port, 0) != 0) sb_fail("landlock_add_rule (proxy port)");
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) sb_fail("prctl(no_new_privs)");
	if (syscall(__NR_landlock_restrict_self, ruleset, 0) != 0) sb_fail("landlock_restrict_self");
	close(ruleset);
	// The proxy's token is the forwarder's, never the command's.
	int k = 0;
	for (int j = 0; envp[j] != NULL; j++) {
		if (strncmp(envp[j], SB_PROXY_TOKEN "=", sizeof SB_PROXY_TOKEN) != 0) envp[k++] = envp[j];
	}
	envp[k] = NULL;
	execve(path, args, envp);
	sb_fail("exec the command");
}

__attribute__((constructor)) static void sb_init(int argc, char **argv, char **envp) {
	sb_launch(argc, argv, envp);
}
*/
import "C"

// launcherMakesNamespaces: the C launcher makes its own namespaces.
const launcherMakesNamespaces = true
