package ui

import (
	"strings"
)

// plainStyle draws a paragraph of plain words the way glamour draws it,
// without glamour: most of a streamed answer's live tail is the end of a
// paragraph of words and full stops, and glamour's parse, render and
// margins cost tens of microseconds for the two lines that change at each
// publication. What glamour puts around a line (the margin, the text's
// colour) and how wide it fills lines are learnt from glamour at each
// width, and checked once against it on a sample; if anything differs
// the width is drawn by glamour.
type plainStyle struct {
	ok             bool
	prefix, suffix string // around each line's text
	limit          int    // the text's width
}

// plainSample is drawn both ways when a width is learnt (the words that
// fit in it): words of every length, each punctuation mark plainText
// lets through.
const plainSample = "Streaming a paragraph (of words: some short, others longer) is " +
	"what models do; the 3 tails seen most are \"plain\" and 'quoted' text. " +
	"Does it wrap at the same place? It must! Every line, whatever its " +
	"length, breaks where glamour breaks it: a b cc ddd eeee fffff gggggg " +
	"hhhhhhh iiiiiiii and so on until the text ends here."

// plain returns the style learnt for width, learning it the first time.
func (m *markdown) plain(width int) plainStyle {
	if p, ok := m.plainStyles[width]; ok {
		return p
	}
	if m.plainStyles == nil || len(m.plainStyles) >= maxRenderers {
		// A window dragged wider goes through many widths.
		m.plainStyles = map[int]plainStyle{}
	}
	p := m.learnPlain(width)
	m.plainStyles[width] = p
	return p
}

func (m *markdown) learnPlain(width int) plainStyle {
	var p plainStyle
	x := m.render("x", width)
	if len(x) != 1 || strings.Count(x[0], "x") != 1 {
		return p
	}
	p.prefix, p.suffix, _ = strings.Cut(x[0], "x")
	// A line of one-letter words fills the width or stops one short of
	// it; the same after a two-letter word tells which.
	ones := strings.TrimSpace(strings.Repeat("a ", width))
	first := m.render(ones, width)
	second := m.render("bb "+ones, width)
	if len(first) < 2 || len(second) < 2 {
		return p
	}
	odd, even := len(p.text(first[0])), len(p.text(second[0]))
	p.limit = odd
	if even == odd+1 {
		p.limit = even
	}
	// The sample's words that fit.
	var words []string
	for w := range strings.FieldsSeq(plainSample) {
		if len(w) <= p.limit {
			words = append(words, w)
		}
	}
	sample := strings.Join(words, " ")
	if p.limit < 1 || !plainText(sample, p.limit) {
		return p
	}
	p.ok = true
	want := m.render(sample, width)
	got := p.render(sample)
	if len(got) != len(want) {
		p.ok = false
	}
	for i := range got {
		if p.ok && got[i] != want[i] {
			p.ok = false
		}
	}
	return p
}

// text is a drawn line without what the style puts around it.
func (p plainStyle) text(line string) string {
	return strings.TrimSuffix(strings.TrimPrefix(line, p.prefix), p.suffix)
}

// render draws s, which plainText passed, as glamour would.
func (p plainStyle) render(s string) []string {
	if s == "" {
		return nil
	}
	var lines []string
	start, end := 0, 0 // the line being filled, s[start:end]
	for i := 0; i <= len(s); {
		j := strings.IndexByte(s[i:], ' ')
		if j < 0 {
			j = len(s) - i
		}
		wordEnd := i + j
		if end > start && wordEnd-start > p.limit {
			lines = append(lines, p.prefix+s[start:end]+p.suffix)
			start = i
		}
		end = wordEnd
		i = wordEnd + 1
	}
	return append(lines, p.prefix+s[start:end]+p.suffix)
}

// plainText reports whether s is a paragraph's text that glamour draws as
// words in one colour, wrapped greedily at limit: starting with a letter
// (as nothing but a paragraph does), printable ASCII words no longer than
// limit, one space apart, without anything that may be
// markup (emphasis, code, links, HTML, entities, escapes), start a link of
// its own (a URL, www., an e-mail address) or be a place to break a word
// (a hyphen).
func plainText(s string, limit int) bool {
	if s == "" || !isLetterByte(s[0]) || s[len(s)-1] == ' ' {
		return false
	}
	word := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == ' ':
			if s[i-1] == ' ' {
				return false
			}
			word = 0
			continue
		case c == ':':
			// Only where no scheme can be: before a space or the end.
			if i+1 < len(s) && s[i+1] != ' ' {
				return false
			}
		case strings.IndexByte(".,;?!()'\"", c) >= 0:
		default:
			return false
		}
		if word++; word > limit {
			return false
		}
	}
	return !strings.Contains(strings.ToLower(s), "www.")
}

func isLetterByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
