package approval

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The glob syntax of rules, small on purpose so a rule reads the same to
// everyone:
//
//	*       any run of characters, including '/' (so "src/**" is "src/*")
//	?       exactly one character
//	{a,b}   either alternative; alternatives may nest and hold globs
//	\x      the character x itself (to write a literal * ? { } , or \)
//
// Everything else, '[' included, stands for itself.

// maxAlternatives bounds brace expansion so that a hostile or mistaken
// pattern cannot make matching slow.
const maxAlternatives = 256

// glob is a compiled pattern: a list of brace-free alternatives.
type glob struct {
	alts [][]globTok
}

// globTok is one literal rune, or a wildcard when kind is '*' or '?'.
type globTok struct {
	kind byte // 0 literal, '*' or '?'
	r    rune
}

// compileGlob parses a pattern. It refuses unbalanced braces, a trailing
// backslash, invalid UTF-8 and more than maxAlternatives alternatives.
func compileGlob(pattern string) (glob, error) {
	if !utf8.ValidString(pattern) {
		return glob{}, errors.New("is not valid UTF-8")
	}
	p := globParser{src: []rune(pattern)}
	alts, err := p.alternatives(false)
	if err != nil {
		return glob{}, err
	}
	return glob{alts: alts}, nil
}

type globParser struct {
	src []rune
	pos int
}

// alternatives parses up to the end of the pattern (or, inside braces, up to
// the closing brace) and returns every brace-free expansion.
func (p *globParser) alternatives(inBraces bool) ([][]globTok, error) {
	var all [][]globTok
	cur := [][]globTok{nil}
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		p.pos++
		switch c {
		case '\\':
			if p.pos == len(p.src) {
				return nil, errors.New(`ends with a lone backslash (write \\ for a literal one)`)
			}
			cur = appendTok(cur, globTok{r: p.src[p.pos]})
			p.pos++
		case '*', '?':
			cur = appendTok(cur, globTok{kind: byte(c)})
		case '{':
			open := p.pos - 1
			inner, err := p.alternatives(true)
			if err != nil {
				return nil, err
			}
			if p.pos > len(p.src) || p.src[p.pos-1] != '}' {
				return nil, fmt.Errorf("has an unclosed '{' at character %d", open+1)
			}
			var next [][]globTok
			for _, prefix := range cur {
				for _, suffix := range inner {
					alt := make([]globTok, 0, len(prefix)+len(suffix))
					next = append(next, append(append(alt, prefix...), suffix...))
				}
			}
			if len(all)+len(next) > maxAlternatives {
				return nil, fmt.Errorf("expands to more than %d alternatives", maxAlternatives)
			}
			cur = next
		case ',':
			if !inBraces {
				cur = appendTok(cur, globTok{r: c})
				continue
			}
			all = append(all, cur...)
			cur = [][]globTok{nil}
		case '}':
			if !inBraces {
				return nil, fmt.Errorf("has a '}' without '{' at character %d", p.pos)
			}
			return append(all, cur...), nil
		default:
			cur = appendTok(cur, globTok{r: c})
		}
	}
	if inBraces {
		// The caller reports the unclosed brace with its position.
		p.pos = len(p.src) + 1
		return nil, nil
	}
	return append(all, cur...), nil
}

func appendTok(alts [][]globTok, t globTok) [][]globTok {
	for i := range alts {
		alts[i] = append(alts[i], t)
	}
	return alts
}

// match reports whether s matches any alternative of the pattern.
func (g glob) match(s string) bool {
	if len(g.alts) == 0 {
		return false
	}
	rs := []rune(s)
	for _, alt := range g.alts {
		if matchTokens(alt, rs) {
			return true
		}
	}
	return false
}

// matchTokens is the classic wildcard match: on a mismatch, backtrack to
// the last '*' and let it swallow one more character. It runs in
// O(len(toks)*len(s)) time, never exponentially.
func matchTokens(toks []globTok, s []rune) bool {
	ti, si := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case ti < len(toks) && toks[ti].kind == '*':
			star, mark = ti, si
			ti++
		case ti < len(toks) && (toks[ti].kind == '?' || (toks[ti].kind == 0 && toks[ti].r == s[si])):
			ti++
			si++
		case star >= 0:
			mark++
			ti, si = star+1, mark
		default:
			return false
		}
	}
	for ti < len(toks) && toks[ti].kind == '*' {
		ti++
	}
	return ti == len(toks)
}

// globQuote escapes s so that it matches itself and nothing else.
func globQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '*', '?', '{', '}', ',':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ToolPattern is a compiled glob on tool display names, in the syntax of
// the rules' tool field; hooks select their tools with it too.
type ToolPattern struct{ g glob }

// CompileToolPattern parses a pattern; "" matches every tool.
func CompileToolPattern(pattern string) (ToolPattern, error) {
	if pattern == "" {
		pattern = "*"
	}
	g, err := compileGlob(pattern)
	if err != nil {
		return ToolPattern{}, fmt.Errorf("tool pattern %q %w", pattern, err)
	}
	return ToolPattern{g}, nil
}

// Match reports whether the tool named name matches.
func (p ToolPattern) Match(name string) bool { return p.g.match(name) }
