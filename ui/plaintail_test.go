package ui

import (
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/muesli/termenv"
)

// randomPlain is a paragraph of random words and punctuation, none
// longer than maxLen, some with marks glamour draws otherwise.
func randomPlain(rng *rand.Rand, words, maxLen int) string {
	pieces := []string{"the", "a", "of", "stream", "render", "terminal", "x", "I", "42", "3.5", "end.", "(this", "that)",
		"'quoted'", "\"said\"", "note:", "why?", "yes!", "so,", "then;", "Go", "URL", "aaaaaaaaaaaaaaaaaaaa",
		"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "e.g.", "i.e.,", "it's", "don't", "O'Neil", "1.", "2)", "example.com", "v1.2.3"}
	// Marks plainText must turn down: drawn otherwise by glamour.
	marked := []string{"well-known", "**b**", "`c`", "www.example.com", "http://127.0.0.1/x", "a_b", "[l](x)", "<b>", "&amp;",
		"x|y", "#h", "~s~", "a:b", "\\*"}
	var b strings.Builder
	b.WriteString("Then")
	for range words {
		b.WriteByte(' ')
		w := pieces[rng.Intn(len(pieces))]
		if rng.Intn(40) == 0 {
			w = marked[rng.Intn(len(marked))]
		}
		if rng.Intn(5) == 0 || len(w) > maxLen {
			w = strings.Repeat(string(rune('a'+rng.Intn(26))), 1+rng.Intn(min(12, maxLen)))
		}
		b.WriteString(w)
	}
	return b.String()
}

// What the plain style draws is what glamour draws, at every width, in
// each theme and colour profile, for paragraphs and list items, for every
// text plainText lets through.
func TestPlainTailIsGlamours(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for _, theme := range []Theme{DarkTheme, LightTheme} {
		for _, profile := range []termenv.Profile{termenv.TrueColor, termenv.ANSI256, termenv.Ascii} {
			md := newMarkdown(theme, profile, quietLog())
			for _, width := range []int{12, 20, 33, 41, 64, 80, 116, 150, 200} {
				for _, marker := range []string{"", "- ", "* ", "+ ", "1. ", "7) ", "10. "} {
					p := md.plain(width, marker)
					if !p.ok {
						t.Fatalf("profile %v width %d marker %q: the plain style was not learnt", profile, width, marker)
					}
					drawn := 0
					for range 30 {
						s := randomPlain(rng, 1+rng.Intn(60), p.limit)
						if !plainText(s, p.limit) {
							continue
						}
						drawn++
						if got, want := p.render(s), md.render(marker+s, width); !slices.Equal(got, want) {
							i := firstDiff(got, want)
							t.Fatalf("profile %v width %d, %q: line %d\n got %q\nwant %q", profile, width, marker+s, i, at(got, i), at(want, i))
						}
					}
					if drawn < 5 {
						t.Fatalf("width %d: only %d of 30 texts were plain", width, drawn)
					}
				}
			}
		}
	}
}

func TestPlainText(t *testing.T) {
	for s, want := range map[string]bool{
		"plain words, and (more) of them; why? yes! 'q' \"d\" note: end.": true,
		"":                         false,
		"2) a list":                false,
		"(starts with a mark)":     false,
		" leading":                 false,
		"trailing ":                false,
		"two  spaces":              false,
		"**bold**":                 false,
		"a `code` span":            false,
		"a_b":                      false,
		"a [link](x)":              false,
		"see http://127.0.0.1/":    false,
		"see www.example.com":      false,
		"mail a@b.c":               false,
		"a-b":                      false,
		"x < y":                    false,
		"a & b":                    false,
		"a \\ b":                   false,
		"tab\there":                false,
		"é":                        false,
		"a | b":                    false,
		"#hash":                    false,
		"ten chars!":               true,
		"elevenchars":              false, // longer than the limit of 10
		"scheme:like without gaps": false,
	} {
		if got := plainText(s, 10); got != want {
			t.Errorf("plainText(%q) = %v, want %v", s, got, want)
		}
	}
}
