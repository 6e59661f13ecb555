// Package termtext makes text safe to show on a terminal or to write to a
// machine-readable stream. It holds the one parser of ECMA-48 control
// sequences in myclaw; every place that shows or prints text that did not
// come from myclaw itself goes through one of its functions:
//
//   - Strip removes control sequences and control characters: for text
//     that is read, not decided on (model answers, tool output);
//   - Screen is Strip plus invisible characters made visible and tag
//     characters removed with a note: for text drawn on the screen;
//   - Visible deletes nothing and renders every control, escape and
//     invisible character as a visible escape (\e, \a, ⟨U+200B⟩): for
//     what a person decides on (a command, a path, a rule);
//   - OneLine is Visible on one line, clipped: for labels;
//   - Stream applies Screen (or Strip) to text that arrives in pieces;
//   - Editable and ParseEditable put text in an editor and back, byte for
//     byte.
//
// None of their results holds an ESC byte, a C1 control or invalid UTF-8.
package termtext

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// seq is one control sequence or control string as a terminal reads it.
type seq struct {
	end   int  // index after it
	intro int  // index after its introducer
	open  bool // the text ends before it does: more text may complete it
	str   bool // a control string (OSC, DCS, SOS, PM, APC)
	byESC bool // a control string cut short by the ESC of another sequence
}

// scanSeq reads the sequence that starts at s[i], an ESC byte or the
// UTF-8 encoding of a C1 control (0xC2 0x80-0x9F):
//
//   - CSI: ESC '[' or U+009B, parameter and intermediate bytes, final byte;
//     a malformed one ends at the first byte that does not fit;
//   - OSC (ESC ']' or U+009D), DCS (ESC 'P', U+0090), SOS (ESC 'X',
//     U+0098), PM (ESC '^', U+009E), APC (ESC '_', U+009F): everything up
//     to ST (ESC '\' or U+009C) or BEL; CAN or SUB cancel the string and
//     another ESC ends it and starts a new sequence;
//   - any other ESC sequence: ESC, intermediate bytes, final byte;
//   - any other C1 control: itself.
func scanSeq(s string, i int) seq {
	if s[i] != 0x1b {
		switch s[i+1] {
		case 0x9b:
			return csi(s, i+2)
		case 0x90, 0x98, 0x9d, 0x9e, 0x9f:
			return controlString(s, i+2)
		}
		return seq{end: i + 2, intro: i + 2}
	}
	j := i + 1
	if j == len(s) {
		return seq{end: j, intro: j, open: true}
	}
	switch s[j] {
	case '[':
		return csi(s, j+1)
	case ']', 'P', 'X', '^', '_':
		return controlString(s, j+1)
	}
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
		j++
	}
	return final(s, i+1, j, 0x30)
}

func csi(s string, j int) seq {
	intro := j
	for j < len(s) && s[j] >= 0x20 && s[j] <= 0x3f {
		j++
	}
	return final(s, intro, j, 0x40)
}

// final ends a sequence at s[j]: after it when it is a final byte (from lo
// to '~'), before it otherwise; open at the end of s.
func final(s string, intro, j int, lo byte) seq {
	if j == len(s) {
		return seq{end: j, intro: intro, open: true}
	}
	if s[j] >= lo && s[j] <= 0x7e {
		j++
	}
	return seq{end: j, intro: intro}
}

func controlString(s string, j int) seq {
	for k := j; k < len(s); k++ {
		switch s[k] {
		case 0x07, 0x18, 0x1a:
			return seq{end: k + 1, intro: j, str: true}
		case 0x1b, 0xc2:
			if k+1 == len(s) {
				return seq{end: len(s), intro: j, str: true, open: true}
			}
			switch {
			case s[k] == 0x1b && s[k+1] == '\\', s[k] == 0xc2 && s[k+1] == 0x9c:
				return seq{end: k + 2, intro: j, str: true}
			case s[k] == 0x1b:
				return seq{end: k, intro: j, str: true, byESC: true}
			}
		}
	}
	return seq{end: len(s), intro: j, str: true, open: true}
}

// isC1Lead reports whether s[i:] starts with the UTF-8 encoding of a C1
// control.
func isC1Lead(s string, i int) bool {
	return s[i] == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f
}

// Strip removes terminal control sequences and control characters: the
// sequences scanSeq reads (a control string that is never terminated loses
// only its introducer, so a stray ESC ']' cannot swallow the rest of a
// text), C0 controls except '\n' and '\t' ("\r\n" and a lone '\r' become
// '\n'), DEL, and C1 controls. Invalid UTF-8 becomes U+FFFD, one per run
// of bad bytes. The result holds no ESC byte and no C1 control, so nothing
// in it can drive a terminal.
func Strip(s string) string {
	i := cleanPrefix(s)
	if i == len(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	bad := false // the last thing written was U+FFFD for invalid bytes
	for i < len(s) {
		if n := cleanPrefix(s[i:]); n > 0 {
			b = append(b, s[i:i+n]...)
			i += n
			bad = false
			if i == len(s) {
				break
			}
		}
		c := s[i]
		switch {
		case c == 0x1b || isC1Lead(s, i):
			q := scanSeq(s, i)
			i = q.end
			if q.open && q.str {
				i = q.intro
			}
			bad = false
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				if !bad {
					b = append(b, "\uFFFD"...)
				}
				bad = true
				i++
				continue
			}
			b = append(b, s[i:i+n]...)
			i += n
			bad = false
		case c == '\r':
			b = append(b, '\n')
			i++
			if i < len(s) && s[i] == '\n' {
				i++
			}
			bad = false
		default: // other C0 controls and DEL; '\n' and '\t' are in cleanPrefix
			i++
			bad = false
		}
	}
	return string(b)
}

// cleanPrefix returns the length of the longest prefix of s that Strip
// leaves as it is: printable ASCII, '\n', '\t', and valid UTF-8 sequences
// other than C1 controls. It reads eight ASCII bytes at a time where it
// can.
func cleanPrefix(s string) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	i, n := 0, len(s)
	for i < n {
		for i+8 <= n && s[i] < utf8.RuneSelf {
			_ = s[i+7]
			w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			// All ASCII, no byte below 0x20 and none equal to 0x7f.
			if w&highs != 0 || (w-0x20*ones)&^w&highs != 0 || (w^0x7f*ones-ones)&^(w^0x7f*ones)&highs != 0 {
				break
			}
			i += 8
		}
		// The next eight bytes or so, one character at a time.
		for end := min(i+8, n); i < end; {
			c := s[i]
			switch {
			case c < utf8.RuneSelf:
				if c < ' ' && c != '\n' && c != '\t' || c == 0x7f {
					return i
				}
				i++
			case c >= 0xc2 && c < 0xe0:
				if i+1 >= n || s[i+1]&0xc0 != 0x80 || c == 0xc2 && s[i+1] < 0xa0 {
					return i // invalid, or a C1 control
				}
				i += 2
			case c >= 0xe0 && c < 0xf0:
				if i+2 >= n || s[i+1]&0xc0 != 0x80 || s[i+2]&0xc0 != 0x80 ||
					c == 0xe0 && s[i+1] < 0xa0 || c == 0xed && s[i+1] >= 0xa0 {
					return i // invalid, overlong or a surrogate
				}
				i += 3
			default:
				if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
					return i
				}
				i += 4
			}
		}
	}
	return i
}

// Invisible reports whether r would not show as itself on a terminal, or
// would change how the text around it shows: format characters (zero-width
// spaces and joiners, bidi controls, U+2060-U+2064, U+FEFF, the soft
// hyphen, tag characters, ...), the combining grapheme joiner, the Hangul
// fillers, and the line and paragraph separators. Controls are not
// included: Strip and Visible deal with them.
func Invisible(r rune) bool {
	if r < 0xa0 {
		return false
	}
	switch r {
	case '\u034f', '\u115f', '\u1160', '\u3164', '\uffa0', '\u2028', '\u2029':
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// IsTag reports whether r is a Unicode tag character (U+E0000-U+E007F):
// invisible, yet read by some models as the ASCII it mirrors.
func IsTag(r rune) bool { return r >= 0xe0000 && r <= 0xe007f }

// TagNote replaces a run of tag characters in Screen's result and in
// untrusted text for the prompt.
const TagNote = "⟨hidden tag characters removed⟩"

// StripTags replaces every run of tag characters in s by TagNote: they
// hide whole ASCII instructions from a reader while a model reads them.
func StripTags(s string) string {
	// Every tag character's UTF-8 starts F3 A0: most text has none.
	if !strings.Contains(s, "\xf3\xa0") {
		return s
	}
	i := firstNonASCIIAt(s, tagAt)
	if i == len(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	for {
		b = append(b, s[:i]...)
		for i < len(s) {
			r, n := utf8.DecodeRuneInString(s[i:])
			if !IsTag(r) {
				break
			}
			i += n
		}
		b = append(b, TagNote...)
		s = s[i:]
		i = firstNonASCIIAt(s, tagAt)
		if i == len(s) {
			return string(append(b, s...))
		}
	}
}

func tagAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return IsTag(r)
}

// Screen is Strip, then: every run of tag characters replaced by TagNote,
// U+2028 and U+2029 made '\n', and every other invisible character (see
// Invisible) shown as ⟨U+XXXX⟩, except a zero-width joiner between two
// pictographs (an emoji sequence).
func Screen(s string) string {
	s = Strip(s)
	i := firstNonASCIIAt(s, invisibleAt)
	if i == len(s) {
		return s
	}
	b := make([]byte, 0, len(s)+16)
	b = append(b, s[:i]...)
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case IsTag(r):
			for i < len(s) {
				r, n := utf8.DecodeRuneInString(s[i:])
				if !IsTag(r) {
					break
				}
				i += n
			}
			b = append(b, TagNote...)
			continue
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\n')
		case invisibleAt(s, i):
			b = appendCodePoint(b, r)
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(b)
}

// invisibleAt reports whether the character at s[i] is one Screen changes.
func invisibleAt(s string, i int) bool {
	r, n := utf8.DecodeRuneInString(s[i:])
	if !Invisible(r) {
		return false
	}
	if r == '\u200d' { // zero-width joiner: part of an emoji sequence?
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+n:])
		return !(pictograph(before) && pictograph(after))
	}
	return true
}

func pictograph(r rune) bool {
	return r >= 0x1f000 && r <= 0x1faff || r >= 0x2600 && r <= 0x27bf || r == 0xfe0f
}

// appendCodePoint writes ⟨U+XXXX⟩.
func appendCodePoint(b []byte, r rune) []byte {
	b = append(b, "⟨U+"...)
	h := strconv.FormatInt(int64(r), 16)
	for k := len(h); k < 4; k++ {
		b = append(b, '0')
	}
	b = append(b, strings.ToUpper(h)...)
	return append(b, "⟩"...)
}

// Visible renders s so that what shows is what s is, deleting nothing:
// ESC as \e, BEL as \a, BS \b, FF \f, VT \v, CR \r, other C0 controls and
// DEL as \xHH, C1 controls and invisible characters (see Invisible) as
// ⟨U+XXXX⟩, and each invalid byte as \xHH. '\n' and '\t' stay. A sequence
// such as ESC ']' ... BEL therefore shows whole, payload included, as
// `\e]...\a`, and nothing in the result can act on a terminal.
func Visible(s string) string {
	i := firstAt(s, needsVisible)
	if i == len(s) {
		return s
	}
	b := make([]byte, 0, len(s)+16)
	b = append(b, s[:i]...)
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\n' || c == '\t' || c >= ' ' && c != 0x7f:
				b = append(b, c)
			case c == 0x1b:
				b = append(b, `\e`...)
			case c == 0x07:
				b = append(b, `\a`...)
			case c == 0x08:
				b = append(b, `\b`...)
			case c == 0x0c:
				b = append(b, `\f`...)
			case c == 0x0b:
				b = append(b, `\v`...)
			case c == '\r':
				b = append(b, `\r`...)
			default:
				b = appendHexByte(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = appendHexByte(b, c)
		case r < 0xa0 || Invisible(r):
			b = appendCodePoint(b, r)
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(b)
}

func needsVisible(s string, i int) bool {
	c := s[i]
	if c < utf8.RuneSelf {
		return c < ' ' && c != '\n' && c != '\t' || c == 0x7f
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return r == utf8.RuneError && n == 1 || r < 0xa0 || Invisible(r)
}

func appendHexByte(b []byte, c byte) []byte {
	const hex = "0123456789abcdef"
	return append(b, '\\', 'x', hex[c>>4], hex[c&15])
}

// HasHidden reports whether s holds anything a terminal would not show as
// itself: an ESC or other C0 control besides '\n' and '\t', DEL, a C1
// control, an invisible character (see Invisible) or invalid UTF-8. A
// command line that does is not what it looks like.
func HasHidden(s string) bool { return firstAt(s, needsVisible) < len(s) }

// firstNonASCIIAt is firstAt for a test that no ASCII character passes:
// runs of ASCII are skipped byte by byte, without calling it.
func firstNonASCIIAt(s string, at func(s string, i int) bool) int {
	i := 0
	for i < len(s) {
		for i < len(s) && s[i] < utf8.RuneSelf {
			i++
		}
		if i == len(s) || at(s, i) {
			return i
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		i += n
	}
	return i
}

// firstAt returns the index of the first character of s for which at is
// true, or len(s).
func firstAt(s string, at func(s string, i int) bool) int {
	i := 0
	for i < len(s) && !at(s, i) {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		i += n
	}
	return i
}

// OneLine is Visible(s) on one line: every run of white space made one
// space, leading and trailing space trimmed, and cut to at most n
// characters, the last of them "…" when it was cut (n <= 0: no limit).
func OneLine(s string, n int) string {
	s = Visible(s)
	if strings.ContainsAny(s, "\n\t\r\v\f") || strings.Contains(s, "  ") ||
		strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		s = strings.Join(strings.Fields(s), " ")
	}
	if n <= 0 || len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// IsInert reports whether s holds nothing a terminal acts on: it is valid
// UTF-8 without ESC or any other C0 control than '\n' and '\t', without DEL
// and without C1 controls. Every function of this package returns inert
// text.
func IsInert(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < ' ' && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f {
			return false
		}
	}
	return true
}
