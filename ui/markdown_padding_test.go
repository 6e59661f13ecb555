package ui

import (
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/muesli/termenv"
)

// paddingSamples are markdown constructs whose blocks nest, have their
// own backgrounds (headings, code) or wrap wide characters.
var paddingSamples = []string{
	"# A heading of the first level\n\nText under it.",
	"## Second\n\n### Third\n\n#### Fourth\n\n##### Fifth\n\n###### Sixth",
	"- one\n- two with `code` and **bold** and *italic* and ~~struck~~\n  - nested item that is long enough to wrap at the narrow widths of this test\n    1. deeper\n    2. deeper still, also long enough to wrap around at twenty or forty columns",
	"> A quote that goes on long enough to wrap at the narrower widths here.\n>\n> - a list in it\n> - and `code` in it\n>\n> > nested quote with a [link](http://127.0.0.1/x) in it",
	"1. first\n\n   ```go\n   func main() { fmt.Println(\"a code block in a list item with a long line that will not fit\") }\n   ```\n\n2. second",
	"```\nplain code\n\twith a tab\n```\n\n```python\ndef f(x):\n    return x * 2  # a comment long enough to be wider than the narrow widths\n```",
	"| a | b |\n|---|---|\n| one | two |\n| a longer cell | `code` |",
	"- [ ] task\n- [x] done task with words enough to wrap at twenty columns",
	"Text with a hard  \nbreak and <b>html</b> and an ![image](http://127.0.0.1/i.png).\n\n---\n\nAfter a rule.",
	"中文的段落，足够长，可以在较窄的宽度下换行。😀 emoji 👍🏽 and wide 표 text mixed with ascii words.",
	"- 中文的列表项，足够长，可以在较窄的宽度下换行。\n- 😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀",
	"Term\n: definition?\n\n***\n\n    indented code block\n    second line",
}

// Leaving out the padding that shows nothing draws every line the same:
// the answer the benchmarks stream, the samples above, random text, in
// each theme and colour profile, at widths from narrow to wide. Lines are
// compared up to their trailing spaces: where a link, struck text or a
// heading wraps, glamour carries its underline, strike or background into
// the padding after it, a stray mark to the line's end that is now gone.
// (No block of these styles has a visible padding of its own; glamour's
// TestVisiblePaddingIsKept covers one that has.)
func TestLeavingOutInvisiblePaddingDrawsTheSame(t *testing.T) {
	answer, _ := benchAnswer(t)
	// Its first part has each kind of block it has.
	cut := strings.Index(answer[6000:], "\n\n") + 6000
	docs := append([]string{answer[:cut]}, paddingSamples...)
	rng := rand.New(rand.NewSource(34))
	for range 10 {
		docs = append(docs, randomMarkdown(rng, 200))
	}
	for _, theme := range []Theme{DarkTheme, LightTheme} {
		for _, profile := range []termenv.Profile{termenv.TrueColor, termenv.ANSI256, termenv.Ascii} {
			trimmed := newMarkdown(theme, profile, quietLog())
			padded := newMarkdown(theme, profile, quietLog())
			padded.padded = true
			for _, width := range []int{20, 41, 116} {
				for _, doc := range docs {
					got, want := trimEnds(trimmed.render(doc, width)), trimEnds(padded.render(doc, width))
					if !slices.Equal(got, want) {
						i := firstDiff(got, want)
						t.Fatalf("profile %v width %d: line %d differs\n got %q\nwant %q\nof %q", profile, width, i, at(got, i), at(want, i), firstLine(doc))
					}
				}
			}
		}
	}
}

// trimEnds takes the spaces and SGR sequences off the end of each line.
func trimEnds(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		for {
			t := strings.TrimRight(l, " ")
			if j := strings.LastIndex(t, "\x1b["); j >= 0 && strings.HasSuffix(t, "m") && strings.Trim(t[j+2:len(t)-1], "0123456789;") == "" {
				t = t[:j]
			}
			if t == l {
				break
			}
			l = t
		}
		out[i] = l
	}
	return out
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(none)"
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
