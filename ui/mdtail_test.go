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
		{"first *line\nsecond", "first *line\nsecond"},
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
