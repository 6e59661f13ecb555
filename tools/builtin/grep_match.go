package builtin

import (
	"bytes"
	"regexp"
	"regexp/syntax"
)

// grepMatcher finds the lines of a file that a regular expression matches.
//
// Running the regexp on every line is what makes a search slow. So a
// literal that every match must contain is taken from the regexp's syntax
// tree (the longest one), looked for in the whole file by scanning for its
// rarest byte with bytes.IndexByte, and the regexp runs only on the lines
// that hold it; when the regexp is that literal and nothing more, not even
// there. Without such a literal (an alternation, `\w+`), every line is
// matched as before.
type grepMatcher struct {
	re     *regexp.Regexp
	lit    []byte // the required literal, lowercase if fold; nil if none
	fold   bool   // lit matches regardless of ASCII case
	anchor int    // index in lit of the byte scanned for
	exact  bool   // a line matches exactly when it holds lit
}

func newGrepMatcher(re *regexp.Regexp) *grepMatcher {
	m := &grepMatcher{re: re}
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return m
	}
	tree = tree.Simplify()
	var best grepPiece
	for _, p := range grepRequired(tree) {
		if len(p.b) > len(best.b) {
			best = p
		}
	}
	if len(best.b) == 0 {
		return m
	}
	m.lit, m.fold = best.b, best.fold
	m.exact = tree.Op == syntax.OpLiteral && best.whole
	cost := func(c byte) int {
		n := int(grepByteRank[c])
		if m.fold && 'a' <= c && c <= 'z' {
			n += int(grepByteRank[c-'a'+'A'])
		}
		return n
	}
	for i := range m.lit {
		if cost(m.lit[i]) < cost(m.lit[m.anchor]) {
			m.anchor = i
		}
	}
	return m
}

// grepPiece is a literal that every match of a regexp contains.
type grepPiece struct {
	b     []byte
	fold  bool // ASCII letters of b (lowercase) match either case
	whole bool // b is the whole of the literal it came from
}

// grepRequired returns literals that every match of re contains.
func grepRequired(re *syntax.Regexp) []grepPiece {
	switch re.Op {
	case syntax.OpLiteral:
		return grepLiteralPieces(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCapture, syntax.OpPlus:
		return grepRequired(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return grepRequired(re.Sub[0])
		}
	case syntax.OpConcat:
		var out []grepPiece
		for _, sub := range re.Sub {
			out = append(out, grepRequired(sub)...)
		}
		return out
	}
	return nil
}

// grepLiteralPieces turns a literal into pieces. Case-insensitive, only
// runs of ASCII without k and s are kept: Go folds k with the Kelvin sign
// and s with the long s, which a byte comparison would miss.
func grepLiteralPieces(runes []rune, fold bool) []grepPiece {
	if !fold {
		return []grepPiece{{b: []byte(string(runes)), whole: true}}
	}
	var out []grepPiece
	var run []byte
	flush := func(whole bool) {
		if len(run) > 0 {
			out = append(out, grepPiece{b: run, fold: true, whole: whole})
		}
		run = nil
	}
	for _, r := range runes {
		l := r
		if 'A' <= l && l <= 'Z' {
			l += 'a' - 'A'
		}
		if l >= 0x80 || l == 'k' || l == 's' {
			flush(false)
			continue
		}
		run = append(run, byte(l))
	}
	flush(len(out) == 0 && len(run) == len(runes))
	return out
}

// grepByteRank says how common a byte is in source code and prose, higher
// for commoner; bytes not listed are the rarest. The scan anchors on the
// rarest byte of the literal, so that IndexByte stops rarely.
var grepByteRank = func() [256]uint8 {
	const common = " etnrioas\nlcd\tuphm.f_()g,=\"b;/ywSvTE*:CR{}kNAxIL0-DP1FM[]O&2>GB<!#'H+U$%@jq\\zXWV3456789KYJQZ|^~`?\r"
	var rank [256]uint8
	for i := 0; i < len(common); i++ {
		rank[common[i]] = uint8(len(common) - i)
	}
	return rank
}()

// each calls fn with the number and text (without its line ending) of
// each line of data that the regexp matches, in order, until fn returns
// false.
func (m *grepMatcher) each(data []byte, fn func(no int, line []byte) bool) {
	if m.lit == nil {
		for no := 1; len(data) > 0; no++ {
			var line []byte
			line, data = grepNextLine(data)
			if m.re.Match(line) && !fn(no, line) {
				return
			}
		}
		return
	}
	no, counted := 1, 0
	sc := grepScan{m: m, data: data, next: [2]int{-2, -2}}
	for pos := 0; ; {
		i := sc.find(pos)
		if i < 0 {
			return
		}
		start := bytes.LastIndexByte(data[:i], '\n') + 1
		end := len(data)
		if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
			end = i + j
		}
		no += bytes.Count(data[counted:start], []byte{'\n'})
		counted = start
		line := bytes.TrimSuffix(data[start:end], []byte{'\r'})
		if (m.exact && i+len(m.lit) <= start+len(line)) || m.re.Match(line) {
			if !fn(no, line) {
				return
			}
		}
		pos = end + 1
	}
}

// grepScan finds the literal of a matcher in data. next caches where the
// anchor byte (and, folding, its upper case) occurs next: -2 not yet
// looked for, -1 nowhere after.
type grepScan struct {
	m    *grepMatcher
	data []byte
	next [2]int
}

// find returns the index of the first occurrence of the literal at or
// after pos, or -1.
func (s *grepScan) find(pos int) int {
	m, lit := s.m, s.m.lit
	a := lit[m.anchor]
	variants := []byte{a}
	if m.fold && 'a' <= a && a <= 'z' {
		variants = append(variants, a-'a'+'A')
	}
	for {
		from := pos + m.anchor
		if from+len(lit)-m.anchor > len(s.data) {
			return -1
		}
		j := -1
		for v, c := range variants {
			if s.next[v] == -2 || (s.next[v] >= 0 && s.next[v] < from) {
				s.next[v] = -1
				if k := bytes.IndexByte(s.data[from:], c); k >= 0 {
					s.next[v] = from + k
				}
			}
			if s.next[v] >= 0 && (j < 0 || s.next[v] < j) {
				j = s.next[v]
			}
		}
		if j < 0 {
			return -1
		}
		start := j - m.anchor
		if start+len(lit) > len(s.data) {
			return -1
		}
		if grepEqual(s.data[start:start+len(lit)], lit, m.fold) {
			return start
		}
		pos = start + 1
	}
}

// grepEqual compares b with lit, ASCII letters of b in either case if
// fold (lit is lowercase then).
func grepEqual(b, lit []byte, fold bool) bool {
	if !fold {
		return bytes.Equal(b, lit)
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lit[i] {
			return false
		}
	}
	return true
}

// grepNextLine splits the first line off data, without its line ending.
func grepNextLine(data []byte) (line, rest []byte) {
	line, rest = data, nil
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		line, rest = data[:i], data[i+1:]
	}
	return bytes.TrimSuffix(line, []byte{'\r'}), rest
}
