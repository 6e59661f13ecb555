package chat

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// fastChunk decodes the common shape of a streamed chunk, a text or
// reasoning delta of one choice, without encoding/json's reflection: a
// model streaming a few hundred tokens a second sends one per token.
// It reports false for anything it does not take exactly as
// json.Unmarshal into wireChunk would (tool calls, usage or timings other
// than null, an error, text as a list of parts, a field named in another case, a
// repeated field, a number that is not a small integer, invalid UTF-8,
// bad JSON), and the caller then decodes with encoding/json; when it
// reports true, ch is what json.Unmarshal would have made of data.
func fastChunk(data []byte, ch *wireChunk) bool {
	p := fastParser{s: data}
	var out wireChunk
	seen := 0
	ok := p.object(func(key []byte) bool {
		var bit int
		switch string(key) {
		case "object":
			bit = 1
			s, ok := p.stringOrNull()
			if !ok {
				return false
			}
			out.Object = s
		case "choices":
			bit = 2
			if p.null() {
				out.Choices = nil
				break
			}
			ok := p.array(func() bool {
				c, ok := p.choice()
				out.Choices = append(out.Choices, c)
				return ok
			})
			if ok && out.Choices == nil {
				out.Choices = []wireChoice{} // "choices":[] is an empty slice
			}
			return ok && seen&bit == 0 && p.mark(&seen, bit)
		case "usage", "timings":
			// Only null: Usage and Timings stay nil.
			bit = 4
			if string(key) == "timings" {
				bit = 8
			}
			if !p.null() {
				return false
			}
		case "error":
			return false
		default:
			return p.otherField(key, "object", "choices", "usage", "timings", "error")
		}
		return seen&bit == 0 && p.mark(&seen, bit)
	})
	if !ok || !p.end() {
		return false
	}
	*ch = out
	return true
}

// fastParser reads JSON from s at i, strictly: whatever it is not sure
// of makes it fail.
type fastParser struct {
	s []byte
	i int
}

func (p *fastParser) mark(seen *int, bit int) bool {
	*seen |= bit
	return true
}

func (p *fastParser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// end reports whether only white space is left.
func (p *fastParser) end() bool {
	p.ws()
	return p.i == len(p.s)
}

func (p *fastParser) byte(c byte) bool {
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// object reads an object, calling field for each key with the parser at
// its value.
func (p *fastParser) object(field func(key []byte) bool) bool {
	if !p.byte('{') {
		return false
	}
	if p.byte('}') {
		return true
	}
	for {
		p.ws()
		key, ok := p.key()
		if !ok || !p.byte(':') || !field(key) {
			return false
		}
		if p.byte('}') {
			return true
		}
		if !p.byte(',') {
			return false
		}
	}
}

func (p *fastParser) array(elem func() bool) bool {
	if !p.byte('[') {
		return false
	}
	if p.byte(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if p.byte(']') {
			return true
		}
		if !p.byte(',') {
			return false
		}
	}
}

// otherField skips the value of a field wireChunk does not have, unless
// its name is one of names in another case, which encoding/json would
// take as that field.
func (p *fastParser) otherField(key []byte, names ...string) bool {
	for _, n := range names {
		if bytes.EqualFold(key, []byte(n)) {
			return false
		}
	}
	return p.skip(0)
}

func (p *fastParser) choice() (wireChoice, bool) {
	var c wireChoice
	seen := 0
	ok := p.object(func(key []byte) bool {
		var bit int
		switch string(key) {
		case "index":
			bit = 1
			n, ok := p.smallInt()
			if !ok {
				return false
			}
			c.Index = n
		case "delta":
			bit = 2
			if p.null() {
				c.Delta = nil
				break
			}
			d, ok := p.delta()
			if !ok {
				return false
			}
			c.Delta = d
		case "finish_reason":
			bit = 4
			s, ok := p.stringOrNull()
			if !ok {
				return false
			}
			c.FinishReason = s
		case "message":
			return false
		default:
			return p.otherField(key, "index", "delta", "message", "finish_reason")
		}
		return seen&bit == 0 && p.mark(&seen, bit)
	})
	return c, ok
}

func (p *fastParser) delta() (*wireDelta, bool) {
	d := &wireDelta{}
	seen := 0
	ok := p.object(func(key []byte) bool {
		var dst *string
		var bit int
		switch string(key) {
		case "content":
			dst, bit = &d.Content, 1
		case "refusal":
			dst, bit = &d.Refusal, 2
		case "reasoning":
			dst, bit = &d.Reasoning, 4
		case "reasoning_content":
			dst, bit = &d.ReasoningContent, 8
		case "tool_calls":
			return false
		default:
			return p.otherField(key, "content", "refusal", "reasoning", "reasoning_content", "tool_calls")
		}
		s, ok := p.stringOrNull()
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		*dst = s
		return true
	})
	return d, ok
}

// null reads a null if there is one.
func (p *fastParser) null() bool {
	p.ws()
	if len(p.s)-p.i >= 4 && string(p.s[p.i:p.i+4]) == "null" {
		p.i += 4
		return true
	}
	return false
}

// stringOrNull reads a string, or null as "" (json.Unmarshal leaves a
// string as it was on null, and out's are empty).
func (p *fastParser) stringOrNull() (string, bool) {
	if p.null() {
		return "", true
	}
	p.ws()
	return p.str()
}

// smallInt reads a non-negative integer of at most nine digits.
func (p *fastParser) smallInt() (int, bool) {
	p.ws()
	j := p.i
	for j < len(p.s) && j-p.i < 10 && p.s[j] >= '0' && p.s[j] <= '9' {
		j++
	}
	n := j - p.i
	if n == 0 || n > 9 || n > 1 && p.s[p.i] == '0' || j < len(p.s) && strings.IndexByte(".eE", p.s[j]) >= 0 {
		return 0, false
	}
	v, err := strconv.Atoi(string(p.s[p.i:j]))
	p.i = j
	return v, err == nil
}

// key reads an object's key: its bytes in s when it has no escapes.
func (p *fastParser) key() ([]byte, bool) {
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		return nil, false
	}
	j := p.i + 1
	for j < len(p.s) && p.s[j] != '"' && p.s[j] != '\\' && p.s[j] >= 0x20 && p.s[j] < utf8.RuneSelf {
		j++
	}
	if j < len(p.s) && p.s[j] == '"' {
		k := p.s[p.i+1 : j]
		p.i = j + 1
		return k, true
	}
	s, ok := p.str()
	return []byte(s), ok
}

// str reads a string at p.i: valid UTF-8, escapes decoded, no lone
// surrogate (json.Unmarshal would replace what is invalid; here it fails).
func (p *fastParser) str() (string, bool) {
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		return "", false
	}
	start := p.i + 1
	j := start
	for j < len(p.s) && p.s[j] != '"' && p.s[j] != '\\' && p.s[j] >= 0x20 {
		j++
	}
	if j < len(p.s) && p.s[j] == '"' {
		raw := p.s[start:j]
		if !utf8.Valid(raw) {
			return "", false
		}
		p.i = j + 1
		return string(raw), true
	}
	b := make([]byte, 0, j-start+16)
	b = append(b, p.s[start:j]...)
	for j < len(p.s) {
		c := p.s[j]
		switch {
		case c == '"':
			if !utf8.Valid(b) {
				return "", false
			}
			p.i = j + 1
			return string(b), true
		case c < 0x20:
			return "", false
		case c != '\\':
			b = append(b, c)
			j++
			continue
		}
		if j+1 >= len(p.s) {
			return "", false
		}
		j += 2
		switch p.s[j-1] {
		case '"', '\\', '/':
			b = append(b, p.s[j-1])
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := p.hex4(j)
			if !ok {
				return "", false
			}
			j += 4
			if utf16.IsSurrogate(r) {
				if j+1 >= len(p.s) || p.s[j] != '\\' || p.s[j+1] != 'u' {
					return "", false
				}
				r2, ok := p.hex4(j + 2)
				if !ok {
					return "", false
				}
				r = utf16.DecodeRune(r, r2)
				if r == utf8.RuneError {
					return "", false
				}
				j += 6
			}
			b = utf8.AppendRune(b, r)
		default:
			return "", false
		}
	}
	return "", false
}

func (p *fastParser) hex4(j int) (rune, bool) {
	if j+4 > len(p.s) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.s[j:j+4]), 16, 32)
	return rune(v), err == nil
}

// skip reads any JSON value, strictly, nested at most a few levels.
func (p *fastParser) skip(depth int) bool {
	if depth > 8 {
		return false
	}
	p.ws()
	if p.i >= len(p.s) {
		return false
	}
	switch c := p.s[p.i]; {
	case c == '"':
		_, ok := p.key() // read without making a string
		return ok
	case c == '{':
		return p.object(func([]byte) bool { return p.skip(depth + 1) })
	case c == '[':
		return p.array(func() bool { return p.skip(depth + 1) })
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	for _, lit := range []string{"null", "true", "false"} {
		if len(p.s)-p.i >= len(lit) && string(p.s[p.i:p.i+len(lit)]) == lit {
			p.i += len(lit)
			return true
		}
	}
	return false
}

// number reads a JSON number: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?
func (p *fastParser) number() bool {
	s, i := p.s, p.i
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i < len(s) && s[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	p.i = i
	return true
}
