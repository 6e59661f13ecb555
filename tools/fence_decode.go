package tools

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// unitAt decodes the unit at s[i]: an entity, an escape or one character
// (utf8.RuneError for an invalid byte). n is its length in bytes, at least 1.
func unitAt(s string, i int) (r rune, n int) {
	c := s[i]
	if c >= utf8.RuneSelf {
		return utf8.DecodeRuneInString(s[i:])
	}
	switch c {
	case '&':
		if r, n := entityAt(s, i); n > 0 {
			return r, n
		}
	case '\\':
		if r, n := backslashAt(s, i); n > 0 {
			return r, n
		}
	case '%':
		if i+2 < len(s) {
			if h, ok := hexValue(s[i+1 : i+3]); ok && h < utf8.RuneSelf {
				return rune(h), 3
			}
		}
	}
	return rune(c), 1
}

// namedEntities holds the HTML entities that spell a bracket, a slash or an
// invisible character. Names marked legacy are decoded without ';' too.
var namedEntities = map[string]rune{
	"lt": '<', "LT": '<', "Lt": '≪', "lsaquo": '‹', "laquo": '«', "lang": '⟨', "langle": '⟨',
	"LeftAngleBracket": '⟨', "le": '≤', "leq": '≤',
	"sol": '/', "bsol": '\\', "frasl": '⁄',
	"nbsp": '\u00a0', "NonBreakingSpace": '\u00a0', "ensp": '\u2002', "emsp": '\u2003',
	"thinsp": '\u2009', "hairsp": '\u200a', "zwj": '\u200d', "zwnj": '\u200c', "shy": '\u00ad',
	"ZeroWidthSpace": '\u200b', "NoBreak": '\u2060', "lrm": '\u200e', "rlm": '\u200f',
	"NewLine": '\n', "Tab": '\t', "InvisibleTimes": '\u2062', "af": '\u2061',
}

// legacyEntities are decoded by HTML even without the ';'; longest first.
var legacyEntities = []string{"laquo", "nbsp", "shy", "lt", "LT"}

// entityAt decodes an HTML character reference at s[i] ('&'); n is 0 if
// there is none.
func entityAt(s string, i int) (rune, int) {
	j := i + 1
	if j < len(s) && s[j] == '#' {
		j++
		hex := j < len(s) && (s[j] == 'x' || s[j] == 'X')
		if hex {
			j++
		}
		start := j
		v := 0
		for j < len(s) {
			d, ok := digitValue(s[j], hex)
			if !ok {
				break
			}
			if hex {
				v = v*16 + d
			} else {
				v = v*10 + d
			}
			v = min(v, unicode.MaxRune+1) // saturate: no overflow on long runs of digits
			j++
		}
		if j == start {
			return 0, 0
		}
		if j < len(s) && s[j] == ';' {
			j++
		}
		if v > unicode.MaxRune || (v >= 0xd800 && v < 0xe000) {
			return utf8.RuneError, j - i
		}
		return rune(v), j - i
	}
	for j < len(s) && j-i <= 32 && IsASCIIAlnum(s[j]) {
		j++
	}
	name := s[i+1 : j]
	if j < len(s) && s[j] == ';' {
		if r, ok := namedEntities[name]; ok {
			return r, j + 1 - i
		}
	}
	for _, l := range legacyEntities {
		if strings.HasPrefix(name, l) {
			return namedEntities[l], 1 + len(l)
		}
	}
	return 0, 0
}

// backslashAt decodes a backslash escape at s[i] ('\'); n is 0 if there
// is none.
func backslashAt(s string, i int) (rune, int) {
	if i+1 >= len(s) {
		return 0, 0
	}
	switch s[i+1] {
	case 'n':
		return '\n', 2
	case 't':
		return '\t', 2
	case 'r':
		return '\r', 2
	case 'f':
		return '\f', 2
	case 'v':
		return '\v', 2
	case '/':
		return '/', 2
	case 'x':
		if i+4 <= len(s) {
			if h, ok := hexValue(s[i+2 : i+4]); ok {
				return rune(h), 4
			}
		}
	case 'U':
		if i+10 <= len(s) {
			if h, ok := hexValue(s[i+2 : i+10]); ok && h <= unicode.MaxRune {
				return rune(h), 10
			}
		}
	case 'u':
		if i+2 < len(s) && s[i+2] == '{' {
			end := strings.IndexByte(s[i+3:min(len(s), i+13)], '}')
			if end > 0 {
				if h, ok := hexValue(s[i+3 : i+3+end]); ok && h <= unicode.MaxRune {
					return rune(h), end + 4
				}
			}
			return 0, 0
		}
		if i+6 <= len(s) {
			if h, ok := hexValue(s[i+2 : i+6]); ok {
				return rune(h), 6
			}
		}
	}
	return 0, 0
}

func hexValue(s string) (int, bool) {
	v := 0
	for i := 0; i < len(s); i++ {
		d, ok := digitValue(s[i], true)
		if !ok {
			return 0, false
		}
		v = v*16 + d
	}
	return v, len(s) > 0
}

func digitValue(c byte, hex bool) (int, bool) {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0'), true
	case hex && c >= 'a' && c <= 'f':
		return int(c-'a') + 10, true
	case hex && c >= 'A' && c <= 'F':
		return int(c-'A') + 10, true
	}
	return 0, false
}

// isBracket reports whether r reads as an opening angle bracket. None of
// these is a letter or a digit, so defusing never removes one.
func isBracket(r rune) bool {
	switch r {
	case '<',
		'\u00ab',     // « left-pointing double angle quotation mark
		'\u02c2',     // ˂ modifier letter left arrowhead
		'\u02f1',     // ˱ modifier letter low left arrowhead
		'\u2039',     // ‹ single left-pointing angle quotation mark
		'\u2264',     // ≤
		'\u2266',     // ≦
		'\u226a',     // ≪
		'\u226e',     // ≮ ('<' with a combining solidus, composed)
		'\u227a',     // ≺
		'\u2329',     // 〈 left-pointing angle bracket
		'\u25c1',     // ◁
		'\u25c3',     // ◃
		'\u276c',     // ❬
		'\u276e',     // ❮
		'\u2770',     // ❰
		'\u27e8',     // ⟨ mathematical left angle bracket
		'\u27ea',     // ⟪
		'\u29fc',     // ⧼
		'\u2a7d',     // ⩽
		'\u2aa1',     // ⪡
		'\u3008',     // 〈 CJK left angle bracket
		'\u300a',     // 《
		'\ufe3d',     // ︽ vertical double angle bracket
		'\ufe3f',     // ︿ vertical angle bracket
		'\ufe64',     // ﹤ small less-than sign
		'\uff1c',     // ＜ full-width less-than sign
		'\U000E003C': // tag less-than: invisible, yet read by some models
		return true
	}
	return false
}

// isSlash reports whether r reads as a slash (or a backslash) in a tag.
func isSlash(r rune) bool {
	switch r {
	case '/', '\\',
		'\u2044',     // ⁄ fraction slash
		'\u2215',     // ∕ division slash
		'\u2216',     // ∖ set minus
		'\u2571',     // ╱
		'\u2572',     // ╲
		'\u27cb',     // ⟋
		'\u27cd',     // ⟍
		'\u29f5',     // ⧵
		'\u29f8',     // ⧸
		'\u29f9',     // ⧹
		'\u2f03',     // ⼃ Kangxi radical slash
		'\u3033',     // 〳
		'\ufe68',     // ﹨ small reverse solidus
		'\uff0f',     // ／ full-width solidus
		'\uff3c',     // ＼ full-width reverse solidus
		'\U000E002F', // tag solidus
		'\U000E005C': // tag reverse solidus
		return true
	}
	return false
}

// isFiller reports whether r is white space or invisible: something a
// model reading a tag would skip over.
func isFiller(r rune) bool {
	if r < utf8.RuneSelf {
		return r <= ' ' || r == 0x7f
	}
	switch r {
	case '\u034f', '\u115f', '\u1160', '\u3164', '\uffa0', '\u2800':
		// Combining grapheme joiner, Hangul fillers, braille blank.
		return true
	case '\U000E003C':
		return false // a bracket, though a format character
	}
	return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Mn, unicode.Me)
}

// homoglyphs maps letters that look like those of "untrusted" to them.
// Keys are looked up as written and lowercased: Greek capital nu reads as N
// while its lowercase reads as v.
var homoglyphs = map[rune]byte{
	// u
	'υ': 'u', 'ս': 'u', 'ᴜ': 'u', 'ʊ': 'u', 'ц': 'u', 'μ': 'u', 'ʋ': 'u', 'ꓴ': 'u',
	// n
	'η': 'n', 'ո': 'n', 'п': 'n', 'ɴ': 'n', 'ռ': 'n', 'Ν': 'n', 'ꓠ': 'n',
	// t
	'т': 't', 'τ': 't', 'ᴛ': 't', 'ƚ': 't', 'ŧ': 't', 'ƫ': 't', 'ƭ': 't', 'ʈ': 't', 'Ꭲ': 't', 'ꓔ': 't',
	// r
	'г': 'r', 'ʀ': 'r', 'ᴦ': 'r', 'ɼ': 'r', 'ɽ': 'r', 'ɾ': 'r', 'ᚱ': 'r', 'Ꮢ': 'r', 'ꓣ': 'r',
	// s
	'ѕ': 's', 'ꜱ': 's', 'ʂ': 's', 'ƽ': 's', 'Ꮪ': 's', 'ꓢ': 's',
	// e
	'е': 'e', 'ε': 'e', 'ᴇ': 'e', 'ҽ': 'e', 'ɛ': 'e', 'є': 'e', 'ҿ': 'e', 'ɇ': 'e', 'ꬲ': 'e', 'Ꭼ': 'e', 'ꓰ': 'e',
	// d
	'ԁ': 'd', 'ᴅ': 'd', 'ɗ': 'd', 'ɖ': 'd', 'đ': 'd', 'Ꭰ': 'd', 'ꓓ': 'd',
}

// foldLetter returns the lowercase ASCII letter r reads as, or 0.
func foldLetter(r rune) byte {
	if r < utf8.RuneSelf {
		if r >= 'A' && r <= 'Z' {
			r += 'a' - 'A'
		}
		return byte(r)
	}
	switch {
	case r >= '\U000E0041' && r <= '\U000E005A', r >= '\U000E0061' && r <= '\U000E007A':
		// Tag characters mirror ASCII: invisible on screen, but some
		// models read them as the letters.
		return foldLetter(r - 0xE0000)
	case r >= 'Ａ' && r <= 'Ｚ':
		return byte(r-'Ａ') + 'a'
	case r >= 'ａ' && r <= 'ｚ':
		return byte(r-'ａ') + 'a'
	}
	if b, ok := homoglyphs[r]; ok {
		return b
	}
	r = unicode.ToLower(r)
	if b, ok := homoglyphs[r]; ok {
		return b
	}
	var buf [utf8.UTFMax]byte
	d := norm.NFKD.Properties(buf[:utf8.EncodeRune(buf[:], r)]).Decomposition()
	if len(d) == 0 {
		return 0
	}
	base, _ := utf8.DecodeRune(d)
	if base == r {
		return 0
	}
	return foldLetter(base)
}
