package sandbox

import (
	"fmt"
	"os"
	"strings"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// verdictSysctls decide whether the launcher may make its namespaces and
// which LSMs stand in the way; a file missing here reads as "-".
var verdictSysctls = []string{
	"/proc/sys/kernel/osrelease",
	"/proc/sys/kernel/version",
	"/proc/sys/kernel/unprivileged_userns_clone",
	"/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
	"/proc/sys/user/max_user_namespaces",
	"/proc/sys/user/max_mnt_namespaces",
	"/proc/sys/user/max_net_namespaces",
	"/sys/kernel/security/lsm",
}

// bootIDPath changes at every boot.
var bootIDPath = "/proc/sys/kernel/random/boot_id"

// platformKey is the kernel, this boot and the switches that decide the
// self-test. Without a boot id there is no caching: a reboot could not be
// told apart.
func platformKey() (string, bool) {
	boot, err := os.ReadFile(bootIDPath)
	if err != nil || len(strings.TrimSpace(string(boot))) == 0 {
		return "", false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "boot %s\n", strings.TrimSpace(string(boot)))
	for _, p := range verdictSysctls {
		v, err := os.ReadFile(p)
		val := "-"
		if err == nil {
			val = strings.TrimSpace(string(v))
		}
		fmt.Fprintf(&b, "%s %s\n", p, val)
	}
	// A container shares the host's kernel and boot but not its
	// namespaces or seccomp filter, which may forbid the launcher's.
	for _, ns := range []string{"user", "mnt", "net"} {
		l, _ := os.Readlink("/proc/self/ns/" + ns)
		fmt.Fprintf(&b, "ns %s\n", l)
	}
	if st, err := os.ReadFile("/proc/self/status"); err == nil {
		for line := range strings.SplitSeq(string(st), "\n") {
			if strings.HasPrefix(line, "Seccomp") || strings.HasPrefix(line, "NoNewPrivs:") {
				fmt.Fprintf(&b, "%s\n", line)
			}
		}
	}
	abi, err := llsys.LandlockGetABIVersion()
	fmt.Fprintf(&b, "landlock %d %v\ncgo-launcher %v", abi, err != nil, launcherMakesNamespaces)
	return b.String(), true
}
