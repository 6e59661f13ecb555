package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"myclaw/tools/termtext"
)

// CutUTF8 returns the first n bytes of s, less a character that the cut
// would split: text cut this way stays valid where it was valid.
func CutUTF8[S ~string | ~[]byte](s S, n int) S {
	if n >= len(s) {
		return s
	}
	if n <= 0 {
		return s[:0]
	}
	// Only the character that starts in the last UTFMax-1 bytes can be
	// split; stray continuation bytes before it are left as they are.
	for i := n - 1; i >= 0 && i > n-utf8.UTFMax; i-- {
		if c := s[i]; utf8.RuneStart(c) {
			if c >= utf8.RuneSelf && i+utf8SeqLen(c) > n {
				return s[:i]
			}
			break
		}
	}
	return s[:n]
}

// utf8SeqLen is the length of the UTF-8 sequence that lead byte c starts
// (1 for a byte that starts none).
func utf8SeqLen(c byte) int {
	switch {
	case c&0xE0 == 0xC0:
		return 2
	case c&0xF0 == 0xE0:
		return 3
	case c&0xF8 == 0xF0:
		return 4
	}
	return 1
}

// Clip shortens s to at most n bytes without splitting a character, and
// ends a shortened s with "…" (which comes on top of the n bytes).
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return CutUTF8(s, n) + "…"
}

// ClipOneLine is termtext.OneLine: s on one line with every control and
// invisible character shown as an escape, cut to at most n characters.
func ClipOneLine(s string, n int) string {
	if n <= 0 {
		return ""
	}
	return termtext.OneLine(s, n)
}

// FirstAndLastLines puts a message of several lines on one line as its
// first and last non-blank lines ("first … last"), through ClipOneLine:
// an error of a parser or a schema compiler says what failed first and the
// rule broken last.
func FirstAndLastLines(s string, n int) string {
	var lines []string
	for l := range strings.Lines(s) {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > 2 {
		lines = []string{lines[0], "…", lines[len(lines)-1]}
	}
	return ClipOneLine(strings.Join(lines, " "), n)
}

// HumanSize renders a byte count for people: "812 B", "1.2 KB", "15.0 KB",
// "3.4 MB", "1.0 GB" (binary units).
func HumanSize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
}

// PrettyJSON indents JSON for people; anything else is returned as it is.
func PrettyJSON(raw []byte) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return string(raw)
	}
	return buf.String()
}

// IsASCIIAlnum reports whether c is an ASCII letter or digit.
func IsASCIIAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// IsSHA256Hex reports whether s is a SHA-256 in the form the blob store
// names contents by: 64 lowercase hex digits.
func IsSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// CutText renders at most limit bytes of b as valid UTF-8 (invalid bytes
// become U+FFFD) without splitting a character, and returns how many bytes
// of b it shows.
func CutText(b []byte, limit int) (string, int) {
	b = CutUTF8(b, limit)
	return strings.ToValidUTF8(string(b), "\uFFFD"), len(b)
}

// Count says how many of a noun, in English: "1 tool", "2 tools" (for
// nouns whose plural adds an s).
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// ShowPath quotes a path that holds a control character, a character a
// reader may take for a line break (U+0085, U+2028, U+2029) or one that
// does not show as itself, so that a file name cannot pose as more
// result or diff lines or hide what it is.
func ShowPath(p string) string {
	if strings.ContainsAny(p, "\n\t") || termtext.HasHidden(p) {
		return strconv.Quote(p)
	}
	return p
}
