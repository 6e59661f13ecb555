package ui

import (
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// plainStyle draws a paragraph of plain words, or a list item of them,
// the way glamour draws it, without glamour: most of a streamed answer's
// live tail is the end of a paragraph or an item of words and full stops,
// and glamour's parse, render and margins cost tens of microseconds for
// the lines that change at each publication. What glamour puts around a
// line (the margin, the marker, the hanging indent, the text's colour) and
// how wide it fills lines are learnt from glamour at each width and for
// each marker, and checked once against it on a sample; if anything
// differs, glamour draws them.
type plainStyle struct {
	ok bool
	// first and rest come before the text of the first line and of the
	// others, suffix after every line's.
	first, rest, suffix string
	limit               int  // the text's width
	item                bool // wrapped as a list item's text
}

// itemBreakpoints are where glamour breaks a list item's lines besides
// spaces (its listBreakpoints; TestPlainTailIsGlamours compares).
const itemBreakpoints = " ,.;-+|"

// plainKey names a learnt style: the width and the list item's marker
// ("" for a paragraph).
type plainKey struct {
	width  int
	marker string
}

// plainSample is drawn both ways when a style is learnt (the words that
// fit in it): words of every length, each punctuation mark plainText
// lets through.
const plainSample = "Streaming a paragraph (of words: some short, others longer) is " +
	"what models do; the 3 tails seen most are \"plain\" and 'quoted' text. " +
	"Does it wrap at the same place? It must! Every line, whatever its " +
	"length, breaks where glamour breaks it: a b cc ddd eeee fffff gggggg " +
	"hhhhhhh iiiiiiii and so on until the text ends here."

// plain returns the style learnt for a paragraph (marker "") or a list
// item with marker at width, learning it the first time.
func (m *markdown) plain(width int, marker string) plainStyle {
	key := plainKey{width, marker}
	if p, ok := m.plainStyles[key]; ok {
		return p
	}
	if m.plainStyles == nil || len(m.plainStyles) >= 4*maxRenderers {
		// A window dragged wider goes through many widths.
		m.plainStyles = map[plainKey]plainStyle{}
	}
	p := m.learnPlain(width, marker)
	m.plainStyles[key] = p
	return p
}

func (m *markdown) learnPlain(width int, marker string) plainStyle {
	p := plainStyle{item: marker != ""}
	x := m.render(marker+"x", width)
	if len(x) != 1 || strings.Count(x[0], "x") != 1 {
		return p
	}
	p.first, p.suffix, _ = strings.Cut(x[0], "x")
	// A line of one-letter words fills the width or stops one short of
	// it; the same after a two-letter word tells which. Its second line
	// tells what comes before the text of the lines after the first.
	ones := strings.TrimSpace(strings.Repeat("a ", width))
	first := m.render(marker+ones, width)
	second := m.render(marker+"bb "+ones, width)
	if len(first) < 2 || len(second) < 2 {
		return p
	}
	rest, _, ok := strings.Cut(first[1], "a")
	if !ok {
		return p
	}
	p.rest = rest
	odd, even := len(p.firstText(first[0])), len(p.firstText(second[0]))
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
	p.ok = slices.Equal(p.render(sample), m.render(marker+sample, width))
	return p
}

// firstText is a drawn first line without what the style puts around it.
func (p plainStyle) firstText(line string) string {
	return strings.TrimSuffix(strings.TrimPrefix(line, p.first), p.suffix)
}

// render draws s, which plainText passed, as glamour would.
func (p plainStyle) render(s string) []string {
	if s == "" {
		return nil
	}
	if p.item {
		// An item's text is wrapped by x/ansi, as glamour's list does.
		lines := strings.Split(ansi.Wrap(s, p.limit, itemBreakpoints), "\n")
		for i, l := range lines {
			lines[i] = p.before(i) + strings.TrimRight(l, " ") + p.suffix
		}
		return lines
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
			lines = append(lines, p.before(len(lines))+s[start:end]+p.suffix)
			start = i
		}
		end = wordEnd
		i = wordEnd + 1
	}
	return append(lines, p.before(len(lines))+s[start:end]+p.suffix)
}

// before is what comes before the text of line i.
func (p plainStyle) before(i int) string {
	if i == 0 {
		return p.first
	}
	return p.rest
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
