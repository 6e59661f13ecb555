package ui

import (
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/muesli/termenv"
)

// checkTail streams chunks and, after each, draws the closed tail both
// ways: tailRender must draw what rendering it whole draws. It returns
// how many lines tailRender kept at most, so that a test can tell that
// the incremental path ran.
func checkTail(t *testing.T, md *markdown, chunks []string, width int) (kept int) {
	kept, _ = checkTailItems(t, md, chunks, width)
	return kept
}

// checkTailItems is checkTail that also counts the publications that drew
// a list's last item alone.
func checkTailItems(t *testing.T, md *markdown, chunks []string, width int) (kept, items int) {
	t.Helper()
	s := newMDStream()
	var tr tailRender
	for i, c := range chunks {
		s.write(c)
		if len(s.take()) > 0 {
			tr = tailRender{} // a new tail, as publish makes a new one
		}
		src := closeTail(s.tail())
		if strings.TrimSpace(src) == "" {
			continue
		}
		got, want := tr.render(md, src, width), md.render(src, width)
		if !slices.Equal(got, want) {
			t.Fatalf("chunk %d, width %d, tail %q:\n got %q\nwant %q", i, width, src, got, want)
		}
		kept = max(kept, len(tr.baseLines))
		if tr.itemOK && strings.HasPrefix(tr.itemKey, src[:max(strings.LastIndexByte(src, '\n'), 0)]+"\x00") {
			items++
		}
	}
	return kept, items
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestTailRenderMatchesWholeOnTheBenchAnswer streams the benchmark's
// answer a token at a time, at two widths.
func TestTailRenderMatchesWholeOnTheBenchAnswer(t *testing.T) {
	_, toks := benchAnswer(t)
	toks = toks[:2000]
	md := newMarkdown(DarkTheme, termenv.ANSI256, quietLog())
	for _, w := range []int{116, 41} {
		kept, items := checkTailItems(t, md, toks, w)
		if kept < 3 || items < 50 {
			t.Errorf("width %d: the incremental path kept at most %d lines, and drew %d last items alone", w, kept, items)
		}
	}
}

// randomMarkdown is text made of words, marks and block starts in
// random order: emphasis, code spans, links, escapes, HTML, list items,
// headings and blank lines, often unbalanced.
func randomMarkdown(rng *rand.Rand, n int) string {
	pieces := []string{
		"word", "longerword", "a", "it", "x1", "é", "漢字", "snake_case", "2*3",
		"**strong**", "*em*", "`code()`", "``a`b``", "**", "*", "_", "__", "`", "~~", "~",
		"[link](https://ex.am/ple)", "[", "]", "](", "(", ")", "<b>", "<", ">", "\\*", "&amp;",
		"!", "|", "#", "-", "well-known", "1.", "http://x.y/z", "www.ab.cd", "***", ":",
		" ", " ", " ", " ", " ", " ", "  ", "\n", "\n\n", "\n\n", "\n- ", "\n1. ", "\n## ", "\n> ",
		"\n```\n", "\n    ", "\t", ".", ",", "?",
	}
	var b strings.Builder
	for range n {
		b.WriteString(pieces[rng.Intn(len(pieces))])
		for range rng.Intn(6) {
			b.WriteString(" word")
		}
	}
	return b.String()
}

// TestTailRenderMatchesWholeOnRandomText streams random markdown in
// random chunks at several widths and colour profiles. (Twenty rounds a
// profile: random markup seldom leaves lines to keep, and at 12 columns
// its longer words are broken, which the incremental path does not keep
// past.)
func TestTailRenderMatchesWholeOnRandomText(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	kept := 0
	for _, profile := range []termenv.Profile{termenv.ANSI256, termenv.Ascii, termenv.TrueColor} {
		md := newMarkdown(LightTheme, profile, quietLog())
		for round := range 20 {
			src := randomMarkdown(rng, 15+rng.Intn(40))
			var chunks []string
			for src != "" {
				n := min(len(src), 1+rng.Intn(6))
				chunks, src = append(chunks, src[:n]), src[n:]
			}
			w := []int{12, 23, 40, 77}[round%4]
			kept = max(kept, checkTail(t, md, chunks, w))
		}
	}
	if kept < 3 {
		t.Errorf("the incremental path kept at most %d lines", kept)
	}
}

// TestTailRenderMatchesWholeOnProse streams long paragraphs of prose
// with some inline markup, after a heading and alone, the shape it is
// made for.
func TestTailRenderMatchesWholeOnProse(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	words := []string{"the", "frame", "is", "drawn", "once", "and", "kept,", "so", "a", "paragraph",
		"**strong**", "*em*", "`code()`", "**two words**", "well-known", "cannot.", "change!", "why?",
		"snake_case", "(aside)", "\"quoted\"", "x", "interoperability", "ünïcödé", "漢字"}
	md := newMarkdown(DarkTheme, termenv.ANSI256, quietLog())
	kept := 0
	for round := range 30 {
		var b strings.Builder
		if round%2 == 0 {
			b.WriteString("## Heading\n\n")
		}
		b.WriteString("Start")
		for range 60 + rng.Intn(100) {
			b.WriteString(" " + words[rng.Intn(len(words))])
		}
		src := b.String()
		var chunks []string
		for src != "" {
			n := min(len(src), 1+rng.Intn(8))
			chunks, src = append(chunks, src[:n]), src[n:]
		}
		kept = max(kept, checkTail(t, md, chunks, []int{30, 57, 116}[round%3]))
	}
	if kept < 6 {
		t.Errorf("the incremental path kept at most %d lines", kept)
	}
}

// TestTailRenderMatchesWholeOnLists streams flat lists, bulleted and
// numbered (in order and not, past 9), with inline markup.
func TestTailRenderMatchesWholeOnLists(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	words := []string{"item", "**strong**", "`code()`", "*em*", "text", "a", "[link](x)", "well-known", "漢字", "- x", "1. y"}
	md := newMarkdown(DarkTheme, termenv.ANSI256, quietLog())
	items := 0
	for round := range 24 {
		var b strings.Builder
		for i := range 2 + rng.Intn(11) {
			switch round % 4 {
			case 0:
				b.WriteString("- ")
			case 1:
				b.WriteString("* ")
			case 2:
				fmt.Fprintf(&b, "%d. ", i+1)
			default:
				fmt.Fprintf(&b, "%d) ", 1+rng.Intn(12))
			}
			b.WriteString("Word")
			for range 1 + rng.Intn(25) {
				b.WriteString(" " + words[rng.Intn(len(words))])
			}
			b.WriteString("\n")
		}
		src := b.String()
		var chunks []string
		for src != "" {
			n := min(len(src), 1+rng.Intn(7))
			chunks, src = append(chunks, src[:n]), src[n:]
		}
		_, n := checkTailItems(t, md, chunks, []int{25, 60, 116}[round%3])
		items += n
	}
	if items < 100 {
		t.Errorf("drew a list's last item alone %d times", items)
	}
}

func TestClosedInline(t *testing.T) {
	for s, want := range map[string]bool{
		"plain words, and more!":         true,
		"a **strong** b":                 true,
		"a *em* and `code()` b":          true,
		"**`code`** b":                   true,
		"a **two words** b":              true,
		"a **strong b":                   false,
		"a **b *c** d*":                  false,
		"snake_case":                     true,
		"_em_":                           false,
		"a `open":                        false,
		"a ``x ` y`` b":                  true,
		"see [x](y)":                     false,
		"a <b> c":                        false,
		"a ~~s~~":                        false,
		"2*3":                            false,
		"a \\* b":                        false,
		"x***y***":                       false,
		"**f()**, then":                  true,
		"**a**b":                         false,
		"it's (fine) | really > so # ok": true,
	} {
		if got := closedInline(s); got != want {
			t.Errorf("closedInline(%q) = %v, want %v", s, got, want)
		}
	}
}

// BenchmarkTailRender draws the live tail of the benchmark answer's first
// 4,000 tokens at each publication (every 6 tokens, as at 185 tokens a
// second and 30 publications a second), with tailRender and whole, as
// it was drawn before: ns/op is one publication's render.
func BenchmarkTailRender(b *testing.B) {
	_, toks := benchAnswer(b)
	toks = toks[:4000]
	var tails []string
	s := newMDStream()
	for i, tok := range toks {
		s.write(tok)
		if len(s.take()) > 0 {
			tails = append(tails, "") // a new tail starts
		}
		if i%6 == 5 {
			tails = append(tails, closeTail(s.tail()))
		}
	}
	md := newMarkdown(DarkTheme, termenv.ANSI256, quietLog())
	b.Run("incremental", func(b *testing.B) {
		var tr tailRender
		for i := 0; b.Loop(); i++ {
			src := tails[i%len(tails)]
			if src == "" || i%len(tails) == 0 {
				tr = tailRender{}
				continue
			}
			tr.render(md, src, 116)
		}
	})
	b.Run("whole", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if src := tails[i%len(tails)]; src != "" {
				md.render(src, 116)
			}
		}
	})
}
