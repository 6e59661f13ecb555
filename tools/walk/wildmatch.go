package walk

// wildmatch is git's wildmatch (wildmatch.c), byte for byte, so that a
// pattern means here what it means to git: * and ? do not match a slash
// when pathname is set, "**" between slashes (or at either end) matches
// any number of folders, and elsewhere acts as *; [...] sets take ! or ^
// to negate, ranges, [:class:] names and a ] first; a backslash makes the
// next byte literal. Names are bytes, so names that are not UTF-8 match
// as git matches them.
func wildmatch(pattern, text string, pathname bool) bool {
	return dowild(pattern, text, pathname) == wmMatch
}

const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// at returns s[i], or 0 past the end (the C code's NUL).
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func dowild(pat, text string, pathname bool) int {
	p, t := 0, 0
	for ; p < len(pat); p, t = p+1, t+1 {
		pch := pat[p]
		tch := at(text, t)
		if t >= len(text) && pch != '*' {
			return wmAbortAll
		}
		switch pch {
		case '\\':
			p++
			if at(pat, p) != tch || p >= len(pat) {
				return wmNoMatch
			}
			continue
		default: //nolint:staticcheck // the cases keep wildmatch.c's order, to read side by side
			if tch != pch {
				return wmNoMatch
			}
			continue
		case '?':
			if pathname && tch == '/' {
				return wmNoMatch
			}
			continue
		case '*':
			var matchSlash bool
			p++
			if at(pat, p) == '*' {
				prev := p - 2
				p++
				for at(pat, p) == '*' {
					p++
				}
				if (prev < 0 || pat[prev] == '/') &&
					(p >= len(pat) || pat[p] == '/' || (pat[p] == '\\' && at(pat, p+1) == '/')) {
					if at(pat, p) == '/' && dowild(pat[p+1:], text[t:], pathname) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				} else {
					matchSlash = !pathname
				}
			} else {
				matchSlash = !pathname
			}
			if p >= len(pat) {
				// A trailing ** matches everything, a trailing *
				// only what holds no more slashes.
				if !matchSlash && indexByte(text[t:], '/') >= 0 {
					return wmNoMatch
				}
				return wmMatch
			}
			if !matchSlash && pat[p] == '/' {
				// One * then a slash matches the next folder.
				i := indexByte(text[t:], '/')
				if i < 0 {
					return wmNoMatch
				}
				t += i
				continue // the slash is matched by the loop
			}
			for t < len(text) {
				// A literal after * must be found first; with
				// pathname, not past a slash.
				if !isGlobSpecial(pat[p]) {
					for t < len(text) && (matchSlash || text[t] != '/') && text[t] != pat[p] {
						t++
					}
					if t >= len(text) || text[t] != pat[p] {
						return wmNoMatch
					}
				}
				tch = text[t]
				if m := dowild(pat[p:], text[t:], pathname); m != wmNoMatch {
					if !matchSlash || m != wmAbortToStarStar {
						return m
					}
				} else if !matchSlash && tch == '/' {
					return wmAbortToStarStar
				}
				t++
			}
			return wmAbortAll
		case '[':
			p++
			c := at(pat, p)
			if c == '^' {
				c = '!'
			}
			negated := c == '!'
			if negated {
				p++
				c = at(pat, p)
			}
			var prev byte
			matched := false
			for {
				if p >= len(pat) {
					return wmAbortAll
				}
				switch {
				case c == '\\':
					p++
					if p >= len(pat) {
						return wmAbortAll
					}
					c = pat[p]
					if tch == c {
						matched = true
					}
				case c == '-' && prev != 0 && p+1 < len(pat) && pat[p+1] != ']':
					p++
					c = pat[p]
					if c == '\\' {
						p++
						if p >= len(pat) {
							return wmAbortAll
						}
						c = pat[p]
					}
					if tch <= c && tch >= prev {
						matched = true
					}
					c = 0 // the next byte cannot end a range
				case c == '[' && at(pat, p+1) == ':':
					p += 2
					s := p
					for p < len(pat) && pat[p] != ']' {
						p++
					}
					if p >= len(pat) {
						return wmAbortAll
					}
					if p-s-1 < 0 || pat[p-1] != ':' {
						// No ":]": a plain '[' in the set.
						p = s - 2
						c = '['
						if tch == c {
							matched = true
						}
						break
					}
					in, ok := inClass(pat[s:p-1], tch)
					if !ok {
						return wmAbortAll
					}
					if in {
						matched = true
					}
					c = 0
				default:
					if tch == c {
						matched = true
					}
				}
				prev = c
				p++
				if c = at(pat, p); c == ']' && p < len(pat) {
					break
				}
			}
			if matched == negated || (pathname && tch == '/') {
				return wmNoMatch
			}
			continue
		}
	}
	if t < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

func isGlobSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

// inClass reports whether c is in the POSIX class name, as git's ASCII
// ctype has it; ok is false for an unknown name.
func inClass(name string, c byte) (in, ok bool) {
	upper := c >= 'A' && c <= 'Z'
	lower := c >= 'a' && c <= 'z'
	digit := c >= '0' && c <= '9'
	space := c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
	switch name {
	case "alnum":
		return upper || lower || digit, true
	case "alpha":
		return upper || lower, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return digit, true
	case "graph":
		return c > 0x20 && c < 0x7f, true
	case "lower":
		return lower, true
	case "print":
		return c >= 0x20 && c < 0x7f, true
	case "punct":
		return c > 0x20 && c < 0x7f && !upper && !lower && !digit, true
	case "space":
		return space, true
	case "upper":
		return upper, true
	case "xdigit":
		return digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'), true
	}
	return false, false
}
