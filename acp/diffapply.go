package acp

import (
	"strconv"
	"strings"
)

// applyUnified applies a unified diff of one file (as tools.Diff writes
// it) to old and returns the new text; ok is false when the diff does not
// apply or was cut, and the caller shows it as text instead.
func applyUnified(old, diff string) (string, bool) {
	lines := strings.SplitAfter(old, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var out []string
	pos := 0
	inHunk := false
	// prev is the kind of the diff line before: a "\ No newline" note
	// after a removed line is about the old text only.
	prev := byte(0)
	last := func() *string {
		if len(out) == 0 {
			return nil
		}
		return &out[len(out)-1]
	}
	for _, l := range strings.SplitAfter(diff, "\n") {
		body := strings.TrimSuffix(l, "\n")
		switch {
		case l == "":
		case strings.HasPrefix(l, "@@ "):
			start, n, ok := hunkStart(body)
			if !ok {
				return "", false
			}
			idx := start - 1
			if n == 0 {
				idx = start
			}
			if idx < pos || idx > len(lines) {
				return "", false
			}
			out = append(out, lines[pos:idx]...)
			pos, inHunk = idx, true
		case !inHunk:
			// The header before the first hunk.
		case strings.HasPrefix(l, "\\"):
			// "\ No newline at end of file" ends the line above.
			if p := last(); p != nil && prev != '-' {
				*p = strings.TrimSuffix(*p, "\n")
			}
		case l[0] == ' ' || l[0] == '-':
			if pos >= len(lines) || strings.TrimSuffix(lines[pos], "\n") != body[1:] {
				return "", false
			}
			if l[0] == ' ' {
				out = append(out, lines[pos])
			}
			pos++
			prev = l[0]
		case l[0] == '+':
			out = append(out, body[1:]+"\n")
			prev = '+'
		default:
			// A note such as "... diff cut": the diff is not whole.
			return "", false
		}
	}
	if !inHunk {
		return "", false
	}
	out = append(out, lines[pos:]...)
	return strings.Join(out, ""), true
}

// hunkStart reads the old side of "@@ -start,n +… @@".
func hunkStart(h string) (start, n int, ok bool) {
	f := strings.Fields(h)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") {
		return 0, 0, false
	}
	s, c, found := strings.Cut(f[1][1:], ",")
	start, err := strconv.Atoi(s)
	if err != nil {
		return 0, 0, false
	}
	n = 1
	if found {
		if n, err = strconv.Atoi(c); err != nil {
			return 0, 0, false
		}
	}
	return start, n, true
}
