package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/cellbuf"
	"github.com/muesli/termenv"
)

// wrapWidths are the widths the wrapping tests draw at: the terminals
// a user has (80, 120 columns) and narrower ones, odd among them.
var wrapWidths = []int{120, 80, 41, 33}

// longItem is a list item's text long enough to wrap at every width,
// with markup whose colours must survive the wrap.
const longItem = "Start of an item whose text runs on well past the edge of the window, " +
	"so that it wraps onto a second line and more when narrow, with **bold words**, " +
	"`code()` and a [link that wraps](https://example.com/x) in it, 漢字 and 👍 too."

// styledRunes is what lines show, in order: every visible character but
// spaces and a quote's bar, with the SGR sequence of its style. Wrapping may move
// characters to other lines and drop spaces, never change these.
func styledRunes(t *testing.T, lines []string) []string {
	t.Helper()
	var out []string
	for _, l := range lines {
		w := max(ansi.StringWidth(l), 1)
		buf := cellbuf.NewBuffer(w, 1)
		cellbuf.SetContent(buf, l)
		for x := range w {
			c := buf.Cell(x, 0)
			if c == nil || c.Rune == 0 || c.Rune == ' ' || c.Rune == '│' {
				continue
			}
			out = append(out, c.String()+c.Style.Sequence())
		}
	}
	return out
}

// checkWidths fails if a line is wider than width.
func checkWidths(t *testing.T, lines []string, width int) {
	t.Helper()
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > width {
			t.Errorf("line %d cells wide at width %d: %q", w, width, ansi.Strip(l))
		}
	}
}

// A list item too long for the window continues under the first
// character of its text, past its marker, whatever the marker: bullets,
// numbers of one and two digits, a task box, in a nested list, in a
// quote; in the colours it has unwrapped.
func TestMarkdownListItemsHangUnderTheirText(t *testing.T) {
	md := newMarkdown(DarkTheme, termenv.ANSI256, quietLog())
	for name, src := range map[string]string{
		"dash":          "- " + longItem + "\n",
		"star":          "* " + longItem + "\n",
		"plus":          "+ " + longItem + "\n",
		"ordered":       "1. " + longItem + "\n",
		"ordered 10":    "9. short\n10. " + longItem + "\n",
		"paren":         "3) " + longItem + "\n",
		"nested":        "- parent\n  - " + longItem + "\n- after\n",
		"nested twice":  "1. parent\n   - child\n     - " + longItem + "\n",
		"task":          "- [ ] " + longItem + "\n",
		"quoted":        "> - " + longItem + "\n",
		"soft break":    "- " + longItem[:40] + "\n  " + longItem[40:] + "\n",
		"after nesting": "- parent\n  - child\n\n  " + longItem + "\n",
	} {
		wide := md.render(src, 400)
		for _, width := range wrapWidths {
			lines := md.render(src, width)
			checkWidths(t, lines, width)
			start := -1
			for i, l := range lines {
				if strings.Contains(ansi.Strip(l), "Start") {
					start = i
					break
				}
			}
			if start < 0 {
				t.Fatalf("%s: no item in %q", name, lines)
			}
			first := ansi.Strip(lines[start])
			textCol := ansi.StringWidth(first[:strings.Index(first, "Start")])
			rest := lines[start+1:]
			if name == "after nesting" {
				// The text after the nested list is the parent's: it
				// hangs under the parent's text, from its first line.
				p := ansi.Strip(lines[0])
				textCol, rest = ansi.StringWidth(p[:strings.Index(p, "parent")]), lines[start:]
			}
			if name == "nested" {
				rest = rest[:len(rest)-1] // "• after"
			}
			if len(rest) == 0 {
				t.Fatalf("%s at %d: the item did not wrap: %q", name, width, ansi.Strip(strings.Join(lines, "\n")))
			}
			for _, l := range rest {
				s := ansi.Strip(l)
				text := strings.TrimLeft(s, " │")
				if col := ansi.StringWidth(s) - ansi.StringWidth(text); col != textCol {
					t.Errorf("%s at %d: a wrapped line starts at column %d, its text at %d:\n%s", name, width, col, textCol,
						ansi.Strip(strings.Join(lines, "\n")))
					break
				}
			}
			if got, want := styledRunes(t, lines), styledRunes(t, wide); strings.Join(got, "") != strings.Join(want, "") {
				t.Errorf("%s at %d: the characters or their colours differ from the unwrapped item:\n got %q\nwant %q", name, width, got, want)
			}
		}
	}
}

// codeBlock has lines longer than the window: words, a tab-indented call,
// wide characters, and a URL with no space to break at.
const codeBlock = "```go\nfunc main() {\n" +
	"\tfmt.Println(\"a long line of code that will not fit in the window at all\", aVeryLongIdentifierName, anotherOne, yetAnotherArgument, 42)\n" +
	"\ts := \"漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字\" // 👍👍👍👍👍👍👍👍👍👍👍👍👍👍👍👍👍👍👍👍\n" +
	"\turl := \"https://example.com/a/very/long/path/without/any/spaces/in/it/at/all/that/goes/on/and/on/and/on/until/the/end\"\n" +
	"}\n```\n"

// A code line too long for the window goes on inside the code block's
// margin, a tab stop past its own indentation, in the colours it has
// unwrapped: the block stays one block.
func TestMarkdownLongCodeLineKeepsTheBlocksMargin(t *testing.T) {
	for _, theme := range []Theme{DarkTheme, LightTheme} {
		md := newMarkdown(theme, termenv.ANSI256, quietLog())
		for _, src := range []string{codeBlock, "- item\n\n  " + strings.ReplaceAll(strings.TrimSuffix(codeBlock, "\n"), "\n", "\n  ") + "\n"} {
			wide := md.render(src, 400)
			for _, width := range wrapWidths {
				lines := md.render(src, width)
				checkWidths(t, lines, width)
				margin := -1
				for _, l := range lines {
					if s := ansi.Strip(l); strings.HasPrefix(strings.TrimLeft(s, " "), "func main") {
						margin = len(s) - len(strings.TrimLeft(s, " "))
					}
				}
				if margin < 0 {
					t.Fatalf("no code in %q", lines)
				}
				code := 0 // lines of the block
				for _, l := range lines {
					s := ansi.Strip(l)
					if s == "" || strings.Contains(s, "item") {
						continue
					}
					code++
					if lead := len(s) - len(strings.TrimLeft(s, " ")); lead < margin {
						t.Errorf("at %d a code line starts at column %d, left of the block's margin %d:\n%s", width, lead, margin,
							ansi.Strip(strings.Join(lines, "\n")))
					}
				}
				// The call's rest goes on a tab stop past its indentation
				// (the block's margin and a tab), where that leaves room.
				for i, l := range lines[:len(lines)-1] {
					if !strings.Contains(ansi.Strip(l), "fmt.Println(") || width < 80 {
						continue
					}
					s := ansi.Strip(lines[i+1])
					if lead := len(s) - len(strings.TrimLeft(s, " ")); lead != margin+2*tabWidth {
						t.Errorf("at %d the call goes on at column %d, not %d:\n%s", width, lead, margin+2*tabWidth,
							ansi.Strip(strings.Join(lines, "\n")))
					}
				}
				if code <= 5 {
					t.Errorf("at %d the long lines did not wrap: %d lines", width, code)
				}
				if got, want := styledRunes(t, lines), styledRunes(t, wide); strings.Join(got, "") != strings.Join(want, "") {
					t.Errorf("at %d the code's characters or colours differ from the unwrapped block:\n got %q\nwant %q", width, got, want)
				}
			}
		}
	}
}

// While a wrapping list or code block streams in, the live tail draws
// what drawing it whole draws.
func TestTailRenderMatchesWholeOnWrappingItemsAndCode(t *testing.T) {
	md := newMarkdown(DarkTheme, termenv.ANSI256, quietLog())
	src := "Some text first, then the list.\n\n" +
		"- " + longItem + "\n- [ ] " + longItem + "\n  - " + longItem + "\n" +
		"9. " + longItem + "\n10. " + longItem + "\n\n" + codeBlock + "\n> - " + longItem + "\n"
	var chunks []string
	for i := 0; i < len(src); {
		n := min(len(src)-i, 1+i%5)
		for n < len(src)-i && !utf8Start(src[i+n]) {
			n++
		}
		chunks = append(chunks, src[i:i+n])
		i += n
	}
	for _, width := range wrapWidths {
		checkTail(t, md, chunks, width)
	}
}

func utf8Start(b byte) bool { return b&0xc0 != 0x80 }

// longURL is a word longer than any of wrapWidths.
const longURL = "https://example.com/a/very/long/path/without/any/spaces/in/it/at/all/that/goes/on/and/on/until/the/end/of/the/line/and/more"

// A word longer than the window (a URL) in a paragraph, a quote or a
// heading breaks at the width and goes on in its block, in its colours.
func TestMarkdownLongWordsStayInTheirBlock(t *testing.T) {
	md := newMarkdown(DarkTheme, termenv.ANSI256, quietLog())
	for name, tt := range map[string]struct{ src, lead string }{
		"paragraph": {"See " + longURL + " and **" + longURL[8:] + "** for more.\n", "  "},
		"quote":     {"> See " + longURL + " for more.\n", "  │ "},
		"heading":   {"## See " + longURL + "\n", "  "},
	} {
		wide := md.render(tt.src, 400)
		for _, width := range wrapWidths {
			lines := md.render(tt.src, width)
			checkWidths(t, lines, width)
			if len(lines) < 3 {
				t.Errorf("%s at %d did not wrap: %q", name, width, lines)
			}
			for _, l := range lines {
				s := ansi.Strip(l)
				if s == "" {
					continue
				}
				if !strings.HasPrefix(s, tt.lead) || strings.HasPrefix(s, tt.lead+" ") {
					t.Errorf("%s at %d: a line starts outside the block:\n%s", name, width, ansi.Strip(strings.Join(lines, "\n")))
					break
				}
			}
			if got, want := styledRunes(t, lines), styledRunes(t, wide); strings.Join(got, "") != strings.Join(want, "") {
				t.Errorf("%s at %d: the characters or their colours differ from the unwrapped text:\n got %q\nwant %q", name, width, got, want)
			}
		}
	}
	src := "Some words first, then " + longURL + " and more words after it, until the paragraph wraps again, " + longURL + " end."
	chunks := strings.SplitAfter(src, " ")
	for _, width := range wrapWidths {
		checkTail(t, md, chunks, width)
	}
}

// A line glamour leaves too wide (it counts a tab in prose as one column,
// the screen four) is broken at the width, its rest at the line's
// indentation and in its colours, not at column 0 in none.
func TestMarkdownOverlongLinesKeepIndentAndColour(t *testing.T) {
	md := newMarkdown(DarkTheme, termenv.ANSI256, quietLog())
	src := "Tabs\tin\tprose\tcount\tfour\tcolumns\ton\tscreen\tbut\tone\tin\tthe\twrap,\tso\tthe\tline\tis\t**too\twide**\tfor\tit.\n"
	wide := md.render(src, 400)
	for _, width := range wrapWidths {
		lines := md.render(src, width)
		checkWidths(t, lines, width)
		for _, l := range lines {
			if s := ansi.Strip(l); !strings.HasPrefix(s, "  ") || strings.HasPrefix(s, "   ") {
				t.Errorf("at %d a line starts outside the paragraph's margin:\n%s", width, ansi.Strip(strings.Join(lines, "\n")))
				break
			}
		}
		if got, want := styledRunes(t, lines), styledRunes(t, wide); strings.Join(got, "") != strings.Join(want, "") {
			t.Errorf("at %d the characters or their colours differ from the unwrapped text:\n got %q\nwant %q", width, got, want)
		}
	}
}
