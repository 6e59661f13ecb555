package config

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Same reports whether two rules say the same thing (Network compared by
// value).
func (r Rule) Same(o Rule) bool {
	return r.Tool == o.Tool && r.Match == o.Match && r.Decision == o.Decision &&
		r.Workspace == o.Workspace && isTrue(r.Network) == isTrue(o.Network) && (r.Network == nil) == (o.Network == nil)
}

// AppliesIn reports whether the rule holds in a session of workspace.
func (r Rule) AppliesIn(workspace string) bool {
	return r.Workspace == "" || filepath.Clean(r.Workspace) == filepath.Clean(workspace)
}

// String returns the rule as it would be written in the config: one
// key = "value" line per key, without a trailing newline.
func (r Rule) String() string {
	var b strings.Builder
	b.WriteString("tool = " + tomlString(r.Tool) + "\n")
	if r.Match != "" {
		b.WriteString("match = " + tomlString(r.Match) + "\n")
	}
	b.WriteString("decision = " + tomlString(r.Decision))
	if r.Network != nil {
		fmt.Fprintf(&b, "\nnetwork = %t", *r.Network)
	}
	if r.Workspace != "" {
		b.WriteString("\nworkspace = " + tomlString(r.Workspace))
	}
	return b.String()
}

// Brief names the rule on one line, for Verdict.By.
func (r Rule) Brief() string {
	s := "tool = " + tomlString(r.Tool)
	if r.Match != "" {
		s += ", match = " + tomlString(r.Match)
	}
	if r.Network != nil {
		s += fmt.Sprintf(", network = %t", *r.Network)
	}
	if r.Workspace != "" {
		s += " (this project's)"
	}
	return s
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func isTrue(b *bool) bool { return b != nil && *b }
