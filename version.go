package main

import (
	"fmt"
	"io"
	"myclaw/app"
	"regexp"
	"runtime"
	"runtime/debug"
)

// version and commit are set by release builds (-ldflags "-X
// main.version=1.2.3 -X main.commit=abc"); otherwise the build info's
// module version and VCS stamp are shown.
var version, commit = "", ""

// versionText says what was built: version, commit and Go version, for bug
// reports.
func versionText() string {
	v, rev, when, modified := version, commit, "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if rev == "" {
					rev = s.Value
				}
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	s := "myclaw " + v + "\n"
	if rev != "" {
		s += "commit " + rev
		if modified {
			s += " (with uncommitted changes)"
		}
		if when != "" {
			s += ", " + when
		}
		s += "\n"
	} else {
		s += "commit unknown (built outside a git checkout)\n"
	}
	return s + fmt.Sprintf("%s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// shortVersion is the version for the TUI's welcome line: the release,
// or "(devel)" with the commit's first 7 characters.
func shortVersion() string {
	v, rev := version, commit
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && rev == "" {
				rev = s.Value
			}
		}
	}
	return welcomeVersion(v, rev)
}

// pseudoVersion matches a Go pseudo-version (v0.0.0-20261201101010-abcdef012345,
// also with a pre-release base and +dirty), whose 35 columns would push the
// welcome line's server state off an 80-column screen.
var pseudoVersion = regexp.MustCompile(`^v\d+\.\d+\.\d+-(?:[0-9A-Za-z.]+\.)?\d{14}-([0-9a-f]{12})(\+dirty)?$`)

// welcomeVersion is v as the welcome line shows it: a release as it is, a
// pseudo-version or none as "(devel COMMIT)".
func welcomeVersion(v, rev string) string {
	if m := pseudoVersion.FindStringSubmatch(v); m != nil {
		v, rev = "", m[1]
	}
	if v != "" {
		return v
	}
	if len(rev) > 7 {
		rev = rev[:7]
	}
	if rev == "" {
		return "(devel)"
	}
	return "(devel " + rev + ")"
}

func runVersion(args []string, stdout io.Writer) error {
	if len(args) > 0 {
		return &app.UsageError{Msg: fmt.Sprintf("version takes no arguments, not %q", args[0])}
	}
	_, err := io.WriteString(stdout, versionText())
	return err
}
