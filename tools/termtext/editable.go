package termtext

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Editable renders s for a text editor so that ParseEditable gives back s
// byte for byte: every character Visible would escape, and '\t', becomes
// ⟨U+XXXX⟩ (an invalid byte ⟨0xHH⟩), and a literal '⟨' becomes ⟨U+27E8⟩
// so that it cannot be read as the start of an escape. '\n' stays.
func Editable(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == '\t' || c != '\n' && needsVisible(s, i) {
				b.Write(appendCodePoint(nil, rune(c)))
			} else {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString("⟨0x")
			b.WriteString(strings.ToUpper(strconv.FormatUint(uint64(c)|0x100, 16)[1:]))
			b.WriteString("⟩")
		case r == '⟨' || needsVisible(s, i):
			b.Write(appendCodePoint(nil, r))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// ParseEditable reads text written by Editable, possibly edited: each
// ⟨U+XXXX⟩ becomes its character and each ⟨0xHH⟩ its byte; anything else
// is kept as typed.
func ParseEditable(s string) string {
	if !strings.Contains(s, "⟨") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "⟨")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		s = s[i:]
		body := s[len("⟨"):]
		end := strings.Index(body, "⟩")
		if end >= 0 && end <= 10 {
			code := body[:end]
			if h, ok := strings.CutPrefix(code, "U+"); ok && len(h) >= 4 && len(h) <= 6 {
				if v, err := strconv.ParseUint(h, 16, 32); err == nil && v <= utf8.MaxRune && utf8.ValidRune(rune(v)) {
					b.WriteRune(rune(v))
					s = body[end+len("⟩"):]
					continue
				}
			}
			if h, ok := strings.CutPrefix(code, "0x"); ok && len(h) == 2 {
				if v, err := strconv.ParseUint(h, 16, 8); err == nil {
					b.WriteByte(byte(v))
					s = body[end+len("⟩"):]
					continue
				}
			}
		}
		b.WriteString("⟨")
		s = body
	}
}
