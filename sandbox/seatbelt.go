package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"
)

// seatbeltProfile allows everything but reads and writes of hidden, and
// writes outside write (and to the protected paths, denied last so they win: in a Seatbelt profile the last
// matching rule decides) and, without network, any network access. It is
// plain text so it is tested on every platform, though only macOS runs it.
func seatbeltProfile(write, protected, hidden []string, network bool) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n(deny file-write*)\n(allow file-write*\n")
	for _, d := range realPaths(write) {
		fmt.Fprintf(&b, "  (subpath %s)\n", sbString(d))
	}
	for _, f := range []string{"/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper"} {
		fmt.Fprintf(&b, "  (literal %s)\n", sbString(f))
	}
	b.WriteString("  (regex #\"^/dev/ttys[0-9]+$\"))\n")
	if ps := realPaths(protected); len(ps) > 0 {
		b.WriteString("(deny file-write*\n")
		for _, p := range ps {
			fmt.Fprintf(&b, "  (subpath %s)\n", sbString(p))
		}
		b.WriteString(")\n")
	}
	if hs := realPaths(hidden); len(hs) > 0 {
		b.WriteString("(deny file-read* file-write*\n")
		for _, p := range hs {
			fmt.Fprintf(&b, "  (subpath %s)\n", sbString(p))
		}
		b.WriteString(")\n")
	}
	if !network {
		b.WriteString("(deny network-outbound)\n(deny network-inbound)\n(deny network-bind)\n")
	}
	return b.String()
}

// realPaths gives each path as written and, when it differs, with its
// symlinks resolved: Seatbelt matches the real path, and on macOS /tmp,
// /var and the per-user temp dir all live under /private. A path that does
// not exist yet (a protected file to be) resolves through its parent.
func realPaths(paths []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range paths {
		add(p)
		if r, err := filepath.EvalSymlinks(p); err == nil {
			add(r)
		} else if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			add(filepath.Join(dir, filepath.Base(p)))
		}
	}
	return out
}

// sbString quotes s as a Seatbelt (Scheme) string.
func sbString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
