package ui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"myclaw/agent"
)

// countBlock is a block of n numbered lines that counts how often it is
// drawn.
type countBlock struct {
	name  string
	n     int
	calls *int
}

func (b countBlock) lines(c *common) []string {
	*b.calls++
	out := make([]string, b.n)
	for i := range out {
		out[i] = b.name + "." + strconv.Itoa(i)
	}
	return out
}

// text returns the whole transcript as lines, every block drawn.
func (t *transcript) text(c *common) string {
	var b strings.Builder
	for _, bl := range t.blocks {
		for _, l := range bl.lines(c) {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func testCommon() *common {
	m := New(newFake(), Options{})
	m.c.width, m.c.height = testWidth, testHeight
	return m.c
}

func newCountTranscript(blocks, linesEach int) (*transcript, *int) {
	calls := 0
	tr := newTranscript()
	for i := range blocks {
		tr.add(countBlock{name: "b" + strconv.Itoa(i), n: linesEach, calls: &calls})
	}
	return tr, &calls
}

func TestTranscriptScroll(t *testing.T) {
	c := testCommon()
	const h = 5
	tests := []struct {
		name   string
		do     func(tr *transcript)
		first  string
		follow bool
	}{
		{"follows the bottom", func(tr *transcript) {}, "b8.3", true},
		{"scroll up", func(tr *transcript) { tr.scroll(c, h, -3) }, "b8.0", false},
		{"scroll up across blocks", func(tr *transcript) { tr.scroll(c, h, -7) }, "b7.0", false},
		{"scroll up past the top stops there", func(tr *transcript) { tr.scroll(c, h, -1000) }, "b0.0", false},
		{"scroll down to the end follows again", func(tr *transcript) { tr.scroll(c, h, -4); tr.scroll(c, h, 4) }, "b8.3", true},
		{"scroll down past the end follows", func(tr *transcript) { tr.scroll(c, h, -10); tr.scroll(c, h, 100) }, "b8.3", true},
		{"top", func(tr *transcript) { tr.toTop(c, h) }, "b0.0", false},
		{"top then bottom", func(tr *transcript) { tr.toTop(c, h); tr.toBottom() }, "b8.3", true},
		{"scrolling down while following does nothing", func(tr *transcript) { tr.scroll(c, h, 3) }, "b8.3", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, _ := newCountTranscript(10, 4)
			tt.do(tr)
			got := tr.view(c, h)
			if len(got) != h {
				t.Fatalf("got %d lines; want %d", len(got), h)
			}
			if got[0] != tt.first || tr.follow != tt.follow {
				t.Errorf("got first line %q, follow %v; want %q, %v", got[0], tr.follow, tt.first, tt.follow)
			}
		})
	}
}

// Scrolled up, the view stays put while new blocks arrive below; when
// following, it shows them.
func TestTranscriptAnchorHoldsWhileStreaming(t *testing.T) {
	c := testCommon()
	tr, calls := newCountTranscript(10, 4)
	tr.scroll(c, 5, -10)
	before := tr.view(c, 5)
	tr.add(countBlock{name: "new", n: 3, calls: calls})
	if got := tr.view(c, 5); !slices.Equal(got, before) {
		t.Errorf("got %q after a new block; want the view unchanged %q", got, before)
	}
	tr.toBottom()
	if got := tr.view(c, 5); got[4] != "new.2" {
		t.Errorf("got last line %q; want %q", got[4], "new.2")
	}
}

func TestTranscriptShortContentPads(t *testing.T) {
	c := testCommon()
	tr, _ := newCountTranscript(1, 2)
	got := tr.view(c, 4)
	want := []string{"b0.0", "b0.1", "", ""}
	if !slices.Equal(got, want) {
		t.Errorf("got %q; want %q", got, want)
	}
	tr.scroll(c, 4, -2)
	if !tr.follow {
		t.Errorf("got follow false after scrolling content shorter than the screen; want true")
	}
}

// A frame draws only the blocks on screen, however long the transcript:
// this is what keeps frames as fast with 2,000 messages as with 10.
func TestTranscriptFrameTouchesOnlyVisibleBlocks(t *testing.T) {
	c := testCommon()
	for _, n := range []int{10, 2000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			tr, calls := newCountTranscript(n, 3)
			tr.view(c, 20)
			if *calls > 8 {
				t.Errorf("following: drew %d blocks for a 20-line view of 3-line blocks; want at most 8", *calls)
			}
			tr.scroll(c, 20, -(n * 3 / 2))
			*calls = 0
			tr.view(c, 20)
			if *calls > 8 {
				t.Errorf("scrolled: drew %d blocks; want at most 8", *calls)
			}
		})
	}
}

// Removing the live tail while scrolled up keeps the anchor on the same
// content.
func TestTranscriptRemoveKeepsAnchor(t *testing.T) {
	c := testCommon()
	tr, calls := newCountTranscript(10, 4)
	tail := countBlock{name: "tail", n: 2, calls: calls}
	tr.blocks = slices.Insert(tr.blocks, 2, block(tail))
	tr.scroll(c, 5, -1000)
	tr.scroll(c, 5, 12) // b0 (4) + b1 (4) + tail (2) + 2 lines of b2
	if got := tr.view(c, 5)[0]; got != "b2.2" {
		t.Fatalf("got first line %q; want b2.2", got)
	}
	tr.remove(tail)
	if got := tr.view(c, 5)[0]; got != "b2.2" {
		t.Errorf("got first line %q after removing a block above; want b2.2", got)
	}
}

// answerText is the text of the blocks from the n-th on.
func answerText(m Model, n int) string {
	var b strings.Builder
	for _, bl := range m.tr.blocks[n:] {
		for _, l := range bl.lines(m.c) {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// wholeRender is one render of the whole answer at the model's width,
// with the blank line that ends a block.
func wholeRender(m Model, answer string) string {
	return strings.Join(withGap(m.c.md.render(answer, m.c.contentWidth())), "\n") + "\n"
}

// The streamed answer on screen once finished, split into blocks and
// published piece by piece, is what one render of its whole text gives;
// a resize re-flows it the same way.
func TestStreamedAnswerMatchesFreshRender(t *testing.T) {
	answer, toks := benchAnswer(t)
	m := newTestModel(t, newFake())
	m = startFakeTurn(t, m, "go")
	n := len(m.tr.blocks)
	for i := 0; i < len(toks); i += 500 {
		var evs []agent.Event
		for _, tok := range toks[i:min(i+500, len(toks))] {
			evs = append(evs, agent.TextDelta{Text: tok})
		}
		m = events(m, evs...)
		m.View()
	}
	m = events(m, agent.DoneEvent{Reason: agent.DoneStop})
	m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true}}})
	got := answerText(m, n)
	if want := wholeRender(m, answer); got != want {
		t.Fatalf("streamed answer differs from one render of the whole answer (%d vs %d bytes)", len(got), len(want))
	}

	m = update(m, sizeMsg(100, testHeight))
	wide := answerText(m, n)
	if want := wholeRender(m, answer); wide != want {
		t.Fatalf("got the answer at width 100 different from one render at that width")
	}
	if wide == got {
		t.Fatalf("got the same answer at width 100; want it re-flowed")
	}
	m = update(m, sizeMsg(testWidth, testHeight))
	if again := answerText(m, n); again != got {
		t.Errorf("got a different answer after resizing back to %d", testWidth)
	}
	if !strings.Contains(got, "ZZBENCHENDZZ") {
		t.Errorf("got no end marker in the answer; want the last token on screen")
	}
}

// Blocks inserted before the live block keep a view anchored in it on
// the same content.
func TestTranscriptInsertBeforeLastKeepsAnchor(t *testing.T) {
	c := testCommon()
	tr, calls := newCountTranscript(3, 4)
	tail := countBlock{name: "tail", n: 10, calls: calls}
	tr.add(tail)
	tr.scroll(c, 5, -3) // anchored in the tail
	before := tr.view(c, 5)
	if tr.follow || tr.top != 3 {
		t.Fatalf("got follow %v, top %d; want the view anchored in the tail (block 3)", tr.follow, tr.top)
	}
	tr.insertBeforeLast(countBlock{name: "new", n: 2, calls: calls})
	if got := tr.view(c, 5); !slices.Equal(got, before) {
		t.Errorf("got %q after an insert before the tail; want the view unchanged %q", got, before)
	}
	if last := tr.blocks[len(tr.blocks)-1]; last != block(tail) {
		t.Errorf("got last block %v; want the tail to stay last", last)
	}
}

// Blocks put in place of others above the view keep it on its line.
func TestTranscriptReplaceKeepsAnchor(t *testing.T) {
	c := testCommon()
	tr, calls := newCountTranscript(10, 4)
	old1 := countBlock{name: "old1", n: 2, calls: calls}
	old2 := countBlock{name: "old2", n: 2, calls: calls}
	tr.blocks = slices.Insert(tr.blocks, 1, block(old1), block(old2))
	tr.scroll(c, 5, -1000)
	tr.scroll(c, 5, 10) // b0 (4) + old1 (2) + old2 (2) + 2 lines of b1
	if got := tr.view(c, 5)[0]; got != "b1.2" {
		t.Fatalf("got first line %q; want b1.2", got)
	}
	tr.replace([]block{old1, old2}, countBlock{name: "new", n: 3, calls: calls})
	if got := tr.view(c, 5)[0]; got != "b1.2" {
		t.Errorf("got first line %q after a replace above; want b1.2", got)
	}
	if names := []string{tr.blocks[0].(countBlock).name, tr.blocks[1].(countBlock).name, tr.blocks[2].(countBlock).name}; !slices.Equal(names, []string{"b0", "new", "b1"}) {
		t.Errorf("blocks %q; want the new one where the old ones stood", names)
	}
}

// Scrolled up while output arrives, the last row says so; following the
// bottom again clears it.
func TestNewOutputIndicator(t *testing.T) {
	m := newTestModel(t, newFake())
	for i := range 40 {
		m.tr.add(noticeBlock(fmt.Sprintf("line %d", i)))
	}
	const mark = "↓ new output · ctrl+end to follow"
	m = startFakeTurn(t, m, "go")
	m = update(m, keyMsg("pgup"))
	if strings.Contains(screen(m), mark) {
		t.Fatal("the indicator shows before any new output")
	}
	m = events(m, agent.TextDelta{Text: "streaming"})
	if got := lines(screen(m)); !strings.Contains(strings.Join(got, "\n"), mark) {
		t.Fatalf("scrolled up during a stream, no indicator:\n%s", strings.Join(got, "\n"))
	}
	m = update(m, keyMsg("ctrl+end"))
	if strings.Contains(screen(m), mark) {
		t.Fatal("the indicator stays after following the bottom again")
	}
}
