package ui

import (
	"io"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/cellbuf"
	"github.com/muesli/termenv"
)

// benchTokenRE splits text the way the benchmark's fake server streams it:
// a short word with its leading space, a number, one punctuation mark, or
// a run of whitespace.
var benchTokenRE = regexp.MustCompile(`[ \t]*[A-Za-z]{1,6}|[ \t]*\d{1,3}|[ \t]*[^\sA-Za-z\d]|\s+`)

// benchAnswer is the 20,039-token markdown answer the benchmark streams,
// and its tokens.
func benchAnswer(t testing.TB) (string, []string) {
	t.Helper()
	b, err := os.ReadFile("testdata/answer20k.md")
	if err != nil {
		t.Fatal(err)
	}
	toks := benchTokenRE.FindAllString(string(b), -1)
	if strings.Join(toks, "") != string(b) {
		t.Fatal("tokenizer lost text")
	}
	return string(b), toks
}

func streamBlocks(chunks []string) []string {
	s := newMDStream()
	var out []string
	for _, c := range chunks {
		s.write(c)
		out = append(out, s.take()...)
	}
	s.finish()
	return append(out, s.take()...)
}

func TestMDStreamBlocks(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"paragraphs", "one\ntwo\n\nthree\n", []string{"one\ntwo\n", "three\n"}},
		{"no trailing newline", "one\n\ntwo", []string{"one\n", "two"}},
		{"leading blank lines stay with the first block", "\n\none\n\ntwo\n", []string{"\n\none\n", "two\n"}},
		{"several blank lines", "a\n\n\n\nb\n", []string{"a\n", "b\n"}},
		{"fence keeps its blank lines", "```go\na\n\nb\n```\n\nafter\n", []string{"```go\na\n\nb\n```\n", "after\n"}},
		{"tilde fence", "~~~\nx\n\ny\n~~~\n\nz\n", []string{"~~~\nx\n\ny\n~~~\n", "z\n"}},
		{"longer fence closes only with as many", "````\n```\n\nx\n````\n\ny\n", []string{"````\n```\n\nx\n````\n", "y\n"}},
		{"indented continuation stays", "- item\n\n  more of it\n\nnext\n", []string{"- item\n\n  more of it\n", "next\n"}},
		{"indented code stays", "para\n\n    code\n\n    more\n\nend\n", []string{"para\n\n    code\n\n    more\n", "end\n"}},
		{"one space does not continue", "- item\n\n next\n", []string{"- item\n", " next\n"}},
		{"tab continues", "- item\n\n\tmore\n", []string{"- item\n\n\tmore\n"}},
		{"unclosed fence is one block", "```\na\n\nb\n", []string{"```\na\n\nb\n"}},
		{"blank only", "\n\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := streamBlocks([]string{tt.in})
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q; want %q", got, tt.want)
			}
			var bytes []string
			for _, r := range tt.in {
				bytes = append(bytes, string(r))
			}
			if got := streamBlocks(bytes); !slices.Equal(got, tt.want) {
				t.Errorf("one rune at a time: got %q; want %q", got, tt.want)
			}
		})
	}
}

// The blocks must not depend on how the text was cut into deltas, and
// together they must hold every line of the text, in order.
func TestMDStreamChunking(t *testing.T) {
	answer, toks := benchAnswer(t)
	whole := streamBlocks([]string{answer})
	var runes []string
	for _, r := range answer[:20000] {
		runes = append(runes, string(r))
	}
	tests := []struct {
		name   string
		chunks []string
		want   []string
	}{
		{"tokens", toks, whole},
		{"runes", append(runes, answer[20000:]), whole},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := streamBlocks(tt.chunks); !slices.Equal(got, tt.want) {
				t.Errorf("got %d blocks; want %d (first difference at %d)", len(got), len(tt.want), firstDiff(got, tt.want))
			}
		})
	}
	nonBlank := func(s string) []string {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if strings.TrimSpace(l) != "" {
				out = append(out, l)
			}
		}
		return out
	}
	if got, want := nonBlank(strings.Join(whole, "\n")), nonBlank(answer); !slices.Equal(got, want) {
		t.Errorf("blocks hold %d non-blank lines; want %d", len(got), len(want))
	}
	if len(whole) < 100 {
		t.Errorf("got %d blocks for the bench answer; want it split finely (>= 100)", len(whole))
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestCompactLine(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello  ", "hello"},
		{"repeated pen merges", "\x1b[38;5;252mthe\x1b[0m\x1b[38;5;252m \x1b[0m\x1b[38;5;252mfox\x1b[0m", "\x1b[38;5;252mthe fox\x1b[0m"},
		{"styled padding dropped", "\x1b[38;5;252mword\x1b[0m\x1b[38;5;252m \x1b[0m\x1b[38;5;252m \x1b[0m", "\x1b[38;5;252mword\x1b[0m"},
		{"background padding kept", "\x1b[48;5;236m code \x1b[0m  ", "\x1b[48;5;236m code \x1b[0m"},
		{"pen change", "\x1b[1ma\x1b[0m\x1b[31mb\x1b[0m", "\x1b[1ma\x1b[0;31mb\x1b[0m"},
		{"tabs expand", "a\tb", "a   b"},
		{"other sequences dropped", "\x1b]8;;http://x\x07link\x1b]8;;\x07\x1b[2J", "link"},
		{"truncated sequence dropped", "ok\x1b[38;5", "ok"},
		{"controls dropped", "a\rb\x07c", "abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compactLine(tt.in); got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}

// expandTabsStyled expands tabs to stops of tabWidth columns, counting
// columns the way a terminal does (escape sequences take none).
func expandTabsStyled(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '\t')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		col := ansi.StringWidth(b.String())
		b.WriteString(strings.Repeat(" ", tabWidth-col%tabWidth))
		s = s[i+1:]
	}
}

// blankCell reports whether a cell shows nothing: empty, or a space with
// no background, reverse, underline or strike.
func blankCell(c *cellbuf.Cell) bool {
	if c == nil || c.Rune == 0 {
		return true
	}
	st := c.Style
	return c.Rune == ' ' && st.Bg == nil && st.UlStyle == cellbuf.NoUnderline &&
		st.Attrs&(cellbuf.ReverseAttr|cellbuf.StrikethroughAttr) == 0
}

// Compacting glamour's output must show exactly the same cells, with far
// fewer bytes.
func TestCompactLineKeepsLook(t *testing.T) {
	answer, _ := benchAnswer(t)
	md := newMarkdown(DarkTheme, termenv.ANSI256, slog.New(slog.NewTextHandler(io.Discard, nil)))
	md.padded = true // glamour's output as upstream writes it
	r, err := md.renderer(rendererKey{width: 100})
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Render(answer[:20000])
	if err != nil {
		t.Fatal(err)
	}
	before, after := 0, 0
	for i, line := range strings.Split(out, "\n") {
		c := compactLine(line)
		before += len(line)
		after += len(c)
		line = expandTabsStyled(line)
		w := max(ansi.StringWidth(line), 1)
		a, b := cellbuf.NewBuffer(w, 1), cellbuf.NewBuffer(w, 1)
		cellbuf.SetContent(a, line)
		cellbuf.SetContent(b, c)
		for x := range w {
			ca, cb := a.Cell(x, 0), b.Cell(x, 0)
			if blankCell(ca) && blankCell(cb) {
				continue
			}
			if blankCell(ca) != blankCell(cb) || ca.Rune != cb.Rune || ca.Style.Sequence() != cb.Style.Sequence() {
				t.Fatalf("line %d, column %d: got %q; want %q\nline: %q\ncompact: %q", i, x, cb.String()+cb.Style.Sequence(), ca.String()+ca.Style.Sequence(), line, c)
			}
		}
	}
	if after*3 > before {
		t.Errorf("compacted to %d bytes from %d; want at most a third", after, before)
	}
}
