package ui

import (
	"slices"
	"testing"

	"myclaw/agent"
)

func TestCloseTail(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Let me *scroll", "Let me *scroll*"},
		{"Let me *scroll ", "Let me *scroll* "},
		{"Let me **bo", "Let me **bo**"},
		{"Let me **bold*", "Let me **bold**"},
		{"a *b* and **c", "a *b* and **c**"},
		{"Run `go te", "Run `go te`"},
		{"Run `a` then `b", "Run `a` then `b`"},
		{"*in `code *x", "*in `code *x`*"},
		{"a ~~gone", "a ~~gone~~"},
		{"see ~/path", "see ~/path"},
		{"2*3 is six", "2*3 is six"},
		{"snake_case_name", "snake_case_name"},
		{"ends with *", "ends with "},
		{"* ", " "},
		{"para\n\nnext *it", "para\n\nnext *it*"},
		{"first *line\nsecond", "first *line\nsecond*"},
		{"**bold\ncontinues", "**bold\ncontinues**"},
		{"- item *one\n- item two", "- item *one\n- item two"},
		{"1. first *it\n   more", "1. first *it\n   more*"},
		{"> quoted *x\n> next", "> quoted *x\n> next"},
		{"# Head *x\nbody", "# Head *x\nbody"},
		{"```\n*x\n```\nafter", "```\n*x\n```\nafter"},
		{"see [docs](https://exa", "see [docs](https://exa)"},
		{"*see [a](u", "*see [a](u)*"},
		{"see [docs](", "see [docs]("},
		{"a [b] c", "a [b] c"},
		{"x](y", "x](y"},
		{"[a](b) and [c](d e", "[a](b) and [c](d e"},
		{"```go\nx := 1\n", "```go\nx := 1\n```"},
		{"```go\nx := 1", "```go\nx := 1\n```"},
		{"```go\nx := *1\n``", "```go\nx := *1\n```"},
		{"~~~\ncode\n", "~~~\ncode\n~~~"},
		{"```go\nx\n```\nafter *it", "```go\nx\n```\nafter *it*"},
		{"text\n``", "text\n"},
		{"    indented *code", "    indented *code"},
		{`a \*literal`, `a \*literal`},
	} {
		if got := closeTail(tc.in); got != tc.want {
			t.Errorf("closeTail(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

// The live tail of a streamed answer is drawn as it will be once its
// markup is closed, and publishing it renders no finished block again.
func TestLiveTailDrawnClosed(t *testing.T) {
	for _, tc := range []struct{ streamed, closed string }{
		{"Done.\n\nFirst line.\nNow let me *scroll", "First line.\nNow let me *scroll*"},
		{"Done.\n\n```go\nfunc main() {\n``", "```go\nfunc main() {\n```"},
		{"Done.\n\nThis is *one\nlong thought", "This is *one\nlong thought*"},
		{"Done.\n\nRead it:\n[the guide](https://example.com/gu", "Read it:\n[the guide](https://example.com/gu)"},
	} {
		m := newTestModel(t, newFake())
		m = typeText(m, "go")
		m, _ = updateCmd(m, keyMsg("enter"))
		m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{ev: agent.TextDelta{Text: tc.streamed}}}})
		m = update(m, renderTickMsg{})
		m.View()
		if len(m.live.published) != 1 {
			t.Fatalf("%q: published %d finished blocks; want 1", tc.streamed, len(m.live.published))
		}
		done := m.live.published[0].lines(m.c)
		want := withGap(m.c.md.render(tc.closed, m.c.contentWidth()))
		if got := m.live.tail.lines(m.c); !slices.Equal(got, want) {
			t.Errorf("live tail of %q:\n%q\nwant, as closed:\n%q", tc.streamed, got, want)
		}
		m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{ev: agent.TextDelta{Text: " more"}}}})
		m = update(m, renderTickMsg{})
		m.View()
		if again := m.live.published[0].lines(m.c); &again[0] != &done[0] {
			t.Errorf("%q: the finished block was rendered again", tc.streamed)
		}
	}
}
