//go:build darwin

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

const sandboxExec = "/usr/bin/sandbox-exec"

// Launch is a no-op on macOS: sandbox-exec is the launcher.
func Launch() {}

func (s *Sandbox) confine(cmd *exec.Cmd, network bool) (*call, error) {
	tmp, err := tempDir(cmd)
	if err != nil {
		return nil, err
	}
	write := append([]string{s.opts.Workspace, tmp}, s.writable()...)
	existing, missing := s.protected(write)
	profile := seatbeltProfile(write, append(existing, missing...), network)
	cmd.Args = append([]string{sandboxExec, "-p", profile, cmd.Path}, cmd.Args[1:]...)
	cmd.Path = sandboxExec
	// Seatbelt denies creating the missing protected paths too.
	return &call{tmp: tmp, network: network}, nil
}

// seatbeltProfile allows everything but writes outside write (and to the
// protected paths, denied last so they win) and, without network, any
// network access.
func seatbeltProfile(write, protected []string, network bool) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n(deny file-write*)\n(allow file-write*\n")
	for _, d := range write {
		fmt.Fprintf(&b, "  (subpath %s)\n", sbString(d))
	}
	for _, f := range []string{"/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper"} {
		fmt.Fprintf(&b, "  (literal %s)\n", sbString(f))
	}
	b.WriteString("  (regex #\"^/dev/ttys[0-9]+$\"))\n")
	if len(protected) > 0 {
		b.WriteString("(deny file-write*\n")
		for _, p := range protected {
			fmt.Fprintf(&b, "  (subpath %s)\n", sbString(p))
		}
		b.WriteString(")\n")
	}
	if !network {
		b.WriteString("(deny network-outbound)\n(deny network-inbound)\n(deny network-bind)\n")
	}
	return b.String()
}

// sbString quotes s as a Seatbelt (Scheme) string.
func sbString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

func (s *Sandbox) detect() string {
	if _, err := os.Stat(sandboxExec); err != nil {
		return "sandbox-exec is missing"
	}
	return ""
}

func mechanism() string { return "Seatbelt (sandbox-exec with a generated profile)" }

func gaps() []string {
	return []string{"reads are not restricted: commands can read every file you can", "sandbox-exec is deprecated by Apple, though still shipped"}
}
