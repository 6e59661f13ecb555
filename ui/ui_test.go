package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/tools"
)

var testTime = time.Date(2025, 3, 14, 9, 26, 53, 0, time.Local)

func call(id, tool, args string) agent.Call {
	return agent.Call{ID: id, Tool: tool, Wire: tool, Args: json.RawMessage(args)}
}

// transcriptModel is a model after a turn with an answer, a write, a
// failed read and a notice.
func transcriptModel(t *testing.T) Model {
	m := newTestModel(t, newFake())
	m = startFakeTurn(t, m, "Add a note about the release, then check the changelog.")
	write := call("c1", "fs_write", `{"path":"notes/release.md","content":"# Release\n"}`)
	read := call("c2", "fs_read", `{"path":"CHANGELOG.md"}`)
	m = events(m,
		agent.TextDelta{Text: "I'll write the note first.\n\n"},
		agent.ToolCallEvent{Call: write, Phase: "started", Summary: "Create notes/release.md (10 B)"},
		agent.ToolResultEvent{Call: write, Status: agent.StatusOK, Summary: "Created notes/release.md (10 B)",
			Duration: 14 * time.Millisecond, Reversible: true, Content: `{"ok":true,"path":"notes/release.md","size_bytes":10}`},
		agent.ToolCallEvent{Call: read, Phase: "started"},
		agent.ToolResultEvent{Call: read, Status: agent.StatusError, Kind: "not_found", Message: "CHANGELOG.md does not exist",
			Hint: "List the directory with glob_list to find the right name.", Duration: 2 * time.Millisecond},
		agent.TextDelta{Text: "The note is in **notes/release.md**. There is no `CHANGELOG.md` yet:\n\n- create one\n- or tell me where it lives"},
		agent.DoneEvent{Reason: agent.DoneStop, Rounds: 3},
	)
	return update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true}}})
}

func TestTranscriptGolden(t *testing.T) {
	t.Run("tool cards", func(t *testing.T) {
		golden.RequireEqual(t, []byte(screen(transcriptModel(t))))
	})
	t.Run("expanded", func(t *testing.T) {
		m := update(transcriptModel(t), keyMsg("ctrl+o"))
		golden.RequireEqual(t, []byte(screen(m)))
	})
}

func TestEventsBuildTranscript(t *testing.T) {
	m := transcriptModel(t)
	text := m.tr.text(m.c)
	for _, want := range []string{
		"❯ Add a note about the release",
		"● fs_write notes/release.md  ok · 14ms",
		"↶ /undo can revert this",
		"● fs_read CHANGELOG.md  error not_found · 2ms",
		"CHANGELOG.md does not exist",
		"hint: List the directory with glob_list",
		"• create one",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("got transcript without %q:\n%s", want, text)
		}
	}
	if m.turn != nil {
		t.Errorf("got a running turn after the end; want none")
	}
}

func TestTurnEnd(t *testing.T) {
	tests := []struct {
		name    string
		evs     []agent.Event
		err     error
		cancel  bool
		want    []string
		notWant []string
	}{
		{
			name: "cancelled is a mark, not an error",
			evs:  []agent.Event{agent.TextDelta{Text: "partial"}, agent.DoneEvent{Reason: agent.DoneCancelled}},
			err:  fmt.Errorf("turn: %w", context.Canceled), cancel: true,
			want: []string{"partial", "⊘ cancelled"}, notWant: []string{"✗"},
		},
		{
			name: "running tool card is marked cancelled",
			evs:  []agent.Event{agent.ToolCallEvent{Call: call("x", "shell_run", `{"command":"sleep 100"}`), Phase: "started"}},
			err:  context.Canceled, cancel: true,
			want: []string{"shell_run sleep 100  cancelled", "⊘ cancelled"},
		},
		{
			name: "error from Run is shown once with its hint",
			err:  &tools.Error{Kind: tools.KindNetworkError, Message: "the model server is unreachable", Hint: "Start the server or fix OPENAI_BASE_URL."},
			want: []string{"✗ the model server is unreachable", "Start the server or fix OPENAI_BASE_URL."},
		},
		{
			name: "an error event is not repeated by Run's error",
			evs:  []agent.Event{agent.ErrorEvent{Message: "stream broke", Hint: "try again"}, agent.DoneEvent{Reason: agent.DoneError}},
			err:  errors.New("stream broke"),
			want: []string{"✗ stream broke", "try again"},
		},
		{
			name: "a user error shows its hint",
			err:  &agent.UserError{Msg: "cannot reach the model server.", Hint: "Is it running? Check OPENAI_BASE_URL.", Err: errors.New("dial tcp: refused")},
			want: []string{"✗ cannot reach the model server. dial tcp: refused", "Is it running? Check OPENAI_BASE_URL."},
		},
		{
			name: "round limit says so",
			evs:  []agent.Event{agent.DoneEvent{Reason: agent.DoneLimit, Rounds: 20}},
			want: []string{"stopped after 20 rounds"},
		},
		{
			name: "notices and retries",
			evs: []agent.Event{agent.NoticeEvent{Text: "old tool output elided"},
				agent.RetryEvent{Attempt: 2, Max: 5, Wait: 1500 * time.Millisecond, Reason: "429 rate limited"}},
			want: []string{"old tool output elided", "retrying in 1.5s (attempt 2 of 5): 429 rate limited"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := startFakeTurn(t, newTestModel(t, newFake()), "go")
			if tt.cancel {
				m = update(m, keyMsg("esc"))
				if !m.turn.cancelling {
					t.Fatalf("got no cancelling turn after esc; want one")
				}
			}
			m = events(m, tt.evs...)
			m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true, err: tt.err}}})
			text := m.tr.text(m.c)
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("got transcript without %q:\n%s", w, text)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(text, w) {
					t.Errorf("got transcript with %q; want none:\n%s", w, text)
				}
			}
			if n := strings.Count(text, "✗"); n > 1 {
				t.Errorf("got %d error lines; want at most 1:\n%s", n, text)
			}
		})
	}
}

// Servers that number calls per response reuse ids: each call still gets
// its own card.
func TestReusedCallIDsGetTheirOwnCards(t *testing.T) {
	m := startFakeTurn(t, newTestModel(t, newFake()), "go")
	first := call("call_0", "fs_read", `{"path":"a.txt"}`)
	second := call("call_0", "fs_read", `{"path":"b.txt"}`)
	m = events(m,
		agent.ToolCallEvent{Call: first, Phase: "started"},
		agent.ToolResultEvent{Call: first, Status: agent.StatusOK, Summary: "Read a.txt"},
		agent.ToolCallEvent{Call: second, Phase: "started"},
		agent.ToolResultEvent{Call: second, Status: agent.StatusError, Kind: "not_found", Message: "b.txt does not exist"},
	)
	text := m.tr.text(m.c)
	if !strings.Contains(text, "fs_read a.txt  ok") || !strings.Contains(text, "fs_read b.txt  error not_found") {
		t.Errorf("got transcript without both cards:\n%s", text)
	}
}

func TestCtrlC(t *testing.T) {
	t.Run("twice when idle quits, with a hint after the first", func(t *testing.T) {
		m := newTestModel(t, newFake())
		m, cmd := updateCmd(m, keyMsg("ctrl+c"))
		if cmd != nil {
			t.Fatalf("got a command after one ctrl+c; want none")
		}
		if !strings.Contains(screen(m), "press ctrl+c again to quit") {
			t.Errorf("got no hint after one ctrl+c:\n%s", screen(m))
		}
		_, cmd = updateCmd(m, keyMsg("ctrl+c"))
		if cmd == nil || cmd() != tea.Quit() {
			t.Errorf("got no quit after the second ctrl+c")
		}
	})
	t.Run("another key disarms", func(t *testing.T) {
		m := newTestModel(t, newFake())
		m = update(m, keyMsg("ctrl+c"))
		m = update(m, keyMsg("x"))
		if strings.Contains(screen(m), "again to quit") {
			t.Errorf("got the quit hint after another key; want it gone")
		}
		if _, cmd := updateCmd(m, keyMsg("ctrl+c")); cmd != nil {
			t.Errorf("got a command from ctrl+c after a disarming key; want none")
		}
	})
	t.Run("cancels a running turn", func(t *testing.T) {
		m := startFakeTurn(t, newTestModel(t, newFake()), "go")
		m, cmd := updateCmd(m, keyMsg("ctrl+c"))
		if cmd != nil {
			t.Errorf("got a command; want the turn cancelled, not a quit")
		}
		if !m.turn.cancelling || !strings.Contains(screen(m), "cancelling") {
			t.Errorf("got no cancelling turn after ctrl+c:\n%s", screen(m))
		}
	})
}

func TestEscClosesPopupBeforeCancelling(t *testing.T) {
	m := startFakeTurn(t, newTestModel(t, newFake()), "go")
	m = typeText(m, "/he")
	if !m.input.popupVisible() {
		t.Fatalf("got no popup for /he")
	}
	m = update(m, keyMsg("esc"))
	if m.input.popupVisible() || m.turn.cancelling {
		t.Fatalf("got popup %v, cancelling %v after esc; want the popup closed and the turn running", m.input.popupVisible(), m.turn.cancelling)
	}
	m = update(m, keyMsg("esc"))
	if !m.turn.cancelling {
		t.Errorf("got the turn running after a second esc; want it cancelling")
	}
}

func TestHistoryRecall(t *testing.T) {
	m := newTestModel(t, newFake())
	for _, p := range []string{"first", "second\nline two"} {
		m = typeText(m, p)
		m = update(m, keyMsg("enter"))
		m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true}}})
	}
	m = typeText(m, "draft")
	steps := []struct {
		key, want string
	}{
		{"up", "second\nline two"},
		{"up", "second\nline two"}, // cursor was on the last line: moves up a line first
		{"up", "first"},
		{"up", "first"},
		{"down", "second\nline two"},
		{"down", "draft"},
	}
	for i, s := range steps {
		m = update(m, keyMsg(s.key))
		if got := m.input.ta.value(); got != s.want {
			t.Fatalf("step %d (%s): got %q; want %q", i, s.key, got, s.want)
		}
	}
}

func TestNewlineKeys(t *testing.T) {
	for _, k := range []string{"alt+enter", "ctrl+j"} {
		t.Run(k, func(t *testing.T) {
			m := typeText(newTestModel(t, newFake()), "a")
			m = update(m, keyMsg(k))
			m = typeText(m, "b")
			if got := m.input.ta.value(); got != "a\nb" {
				t.Errorf("got %q; want %q", got, "a\nb")
			}
			if m.turn != nil {
				t.Errorf("got a turn started by %s; want none", k)
			}
		})
	}
}

func TestScrollKeys(t *testing.T) {
	m := newTestModel(t, newFake())
	for i := range 40 {
		m = m.addBlock(noticeBlock(fmt.Sprintf("line %02d", i)))
	}
	bottom := screen(m)
	tests := []struct {
		name   string
		keys   []tea.Msg
		follow bool
		has    string
	}{
		{"pgup leaves the bottom", []tea.Msg{keyMsg("pgup")}, false, "line 29"},
		{"pgup then pgdown returns", []tea.Msg{keyMsg("pgup"), keyMsg("pgdown")}, true, "line 39"},
		{"ctrl+home shows the start", []tea.Msg{keyMsg("ctrl+home")}, false, "myclaw ·"},
		{"ctrl+end follows", []tea.Msg{keyMsg("ctrl+home"), keyMsg("ctrl+end")}, true, "line 39"},
		{"home stays in the prompt", []tea.Msg{keyMsg("home")}, true, "line 39"},
		{"wheel up", []tea.Msg{tea.MouseMsg{Action: tea.MouseActionPress, Button: tea.MouseButtonWheelUp}}, false, "line 36"},
		{"wheel down back", []tea.Msg{
			tea.MouseMsg{Action: tea.MouseActionPress, Button: tea.MouseButtonWheelUp},
			tea.MouseMsg{Action: tea.MouseActionPress, Button: tea.MouseButtonWheelDown}}, true, "line 39"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := m
			for _, k := range tt.keys {
				m = update(m, k)
			}
			s := screen(m)
			if m.tr.follow != tt.follow || !strings.Contains(s, tt.has) {
				t.Errorf("got follow %v; want %v, and %q on screen:\n%s", m.tr.follow, tt.follow, tt.has, s)
			}
			if tt.follow && s != bottom {
				t.Errorf("got a different screen at the bottom:\n%s", s)
			}
		})
		m.tr.toBottom()
	}
}

func TestReasoningToggle(t *testing.T) {
	m := startFakeTurn(t, newTestModel(t, newFake()), "go")
	m = events(m, agent.ReasoningDelta{Text: "The user wants a file. "}, agent.ReasoningDelta{Text: "I should check first."},
		agent.TextDelta{Text: "Checking."})
	if s := screen(m); !strings.Contains(s, "▸ reasoning · 9 words") || strings.Contains(s, "check first") {
		t.Errorf("got collapsed reasoning wrong:\n%s", s)
	}
	m = update(m, keyMsg("ctrl+r"))
	if s := screen(m); !strings.Contains(s, "I should check first.") {
		t.Errorf("got no reasoning text after ctrl+r:\n%s", s)
	}
}

func TestStartupBannerAndServerCheck(t *testing.T) {
	f := newFake()
	f.checkErr = &tools.Error{Kind: tools.KindNotFound, Message: "model bench-x is not served", Hint: "Pick one of: a, b."}
	m := New(f, Options{Banner: []Notice{{Text: "ignored .myclaw.toml: folder not trusted", Warning: true}}})
	m = update(m, sizeMsg(testWidth, testHeight))
	if s := screen(m); !strings.Contains(s, "ignored .myclaw.toml: folder not trusted") || !strings.Contains(s, "test-model") {
		t.Errorf("got first frame without banner or model:\n%s", s)
	}
	m = update(m, checkServer(context.Background(), f)())
	if s := screen(m); !strings.Contains(s, "model bench-x is not served") || !strings.Contains(s, "Pick one of: a, b.") {
		t.Errorf("got no server check failure with its hint:\n%s", s)
	}
}

func TestStatusLine(t *testing.T) {
	m := startFakeTurn(t, newTestModel(t, newFake()), "go")
	m = events(m, agent.UsageEvent{TotalTokens: 45_300, ContextWindow: 200_000})
	m = update(m, spinnerTickMsg{turn: m.turn.id, now: m.turn.start.Add(2500 * time.Millisecond)})
	last := lines(screen(m))[testHeight-1]
	for _, want := range []string{"test-model", "ask", "project", "45.3k/200k tokens", "undo 2", "2s"} {
		if !strings.Contains(last, want) {
			t.Errorf("got status line %q; want %q in it", last, want)
		}
	}
	frame, id := m.turn.frame, m.turn.id
	stale, cmd := updateCmd(m, spinnerTickMsg{turn: id + 1, now: m.turn.start.Add(time.Minute)})
	if stale.turn.frame != frame || stale.turn.elapsed != 2500*time.Millisecond || cmd != nil {
		t.Errorf("got frame %d, elapsed %s, cmd %v after a tick of another turn; want %d, 2.5s and no new tick",
			stale.turn.frame, stale.turn.elapsed, cmd != nil, frame)
	}
	m = events(m, agent.UsageEvent{TotalTokens: 51_000, ContextWindow: 200_000})
	if last := lines(screen(m))[testHeight-1]; !strings.Contains(last, "51k/200k tokens") {
		t.Errorf("got status line %q after new usage; want 51k/200k tokens", last)
	}
	// A compaction's request is the summary's, not the conversation's.
	m = events(m, agent.UsageEvent{Kind: agent.RequestCompaction, TotalTokens: 60_000, ContextWindow: 200_000})
	if last := lines(screen(m))[testHeight-1]; !strings.Contains(last, "51k/200k tokens") {
		t.Errorf("got status line %q after a compaction's usage; want 51k/200k tokens still", last)
	}
	// The meter the agent reports wins over the request's own count: a
	// request the server did not count (cut short) is only an estimate.
	m = events(m, agent.UsageEvent{TotalTokens: 40_000, Estimated: true, ContextWindow: 200_000, Context: 52_000})
	if last := lines(screen(m))[testHeight-1]; !strings.Contains(last, " 52k/200k tokens") {
		t.Errorf("got status line %q after a usage with the meter; want 52k/200k tokens, not estimated", last)
	}
	m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true}}})
	if _, cmd := updateCmd(m, spinnerTickMsg{turn: id}); cmd != nil {
		t.Errorf("got a new tick after the turn ended; want the spinner to stop")
	}
	if last := lines(screen(m))[testHeight-1]; strings.Contains(last, "esc cancels") {
		t.Errorf("got status line %q after the turn ended; want no spinner", last)
	}
}

// At 80×24 every line fits the width and the frame is exactly the height.
func TestFrameFits(t *testing.T) {
	m := transcriptModel(t)
	for _, size := range [][2]int{{80, 24}, {40, 12}, {120, 40}} {
		m = update(m, sizeMsg(size[0], size[1]))
		ls := lines(screen(m))
		if len(ls) != size[1] {
			t.Errorf("%dx%d: got %d lines; want %d", size[0], size[1], len(ls), size[1])
		}
		for i, l := range ls {
			if w := ansi.StringWidth(l); w > size[0] {
				t.Errorf("%dx%d: line %d is %d wide: %q", size[0], size[1], i, w, l)
			}
		}
	}
}

func TestResumedConversationIsShown(t *testing.T) {
	m := New(newFake(), Options{Earlier: []Earlier{
		{Role: "user", Text: "what is in main.go?"},
		{Role: "tool", Text: "↳ fs_read main.go"},
		{Role: "assistant", Text: "It holds **the entry point**.\x1b]0;title\x07"},
	}})
	next, _ := m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	view := next.(Model).View()
	for _, want := range []string{"what is in main.go?", "fs_read main.go", "the entry point"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	for _, junk := range []string{"\x1b]0;", "]0;", "title"} {
		if strings.Contains(view, junk) {
			t.Errorf("got %q from the stored answer's OSC sequence on screen:\n%s", junk, view)
		}
	}
}

// What the UI adds while an answer streams (a command, a notice) goes
// above the live block: the
// answer carries on below it as one text, its code fence still open, and
// the reasoning stays one block.
func TestUIBlocksDoNotBreakTheStream(t *testing.T) {
	const first, rest = "```go\nfunc a() {", "\n}\n```\n\nAfter **bold**."
	interrupt := []struct {
		name string
		do   func(t *testing.T, m Model) Model
		want string
	}{
		{"command", func(t *testing.T, m Model) Model { return runLine(t, m, "/help") }, "approval pane"},
		{"command run in a Cmd", func(t *testing.T, m Model) Model { return runLine(t, m, "/history") }, "no calls yet in this session"},
		{"notice", func(t *testing.T, m Model) Model {
			return update(m, noticeMsg{n: Notice{Text: "MCP server docs failed", Warning: true}})
		}, "MCP server docs failed"},
	}
	for _, tt := range interrupt {
		t.Run(tt.name, func(t *testing.T) {
			m := startFakeTurn(t, newTestModel(t, newFake()), "go")
			n := len(m.tr.blocks)
			m = events(m, agent.ReasoningDelta{Text: "Think of a"})
			m = tt.do(t, m)
			m = events(m, agent.ReasoningDelta{Text: " function."}, agent.TextDelta{Text: first})
			m = tt.do(t, m)
			m = events(m, agent.TextDelta{Text: rest})
			m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true}}})
			text := ansi.Strip(m.tr.text(m.c))
			if got := strings.Count(text, "▸ reasoning"); got != 1 {
				t.Errorf("got %d reasoning blocks; want 1:\n%s", got, text)
			}
			if !strings.Contains(text, "▸ reasoning · 4 words") {
				t.Errorf("got reasoning without its 4 words:\n%s", text)
			}
			// The block put in the answer's way says that the answer goes
			// on below it (the one put in the reasoning's way needs not).
			if i, j := strings.LastIndex(text, tt.want), strings.Index(text, "⋯ the answer goes on"); j < i || strings.Count(text, "⋯ the answer goes on") != 1 || !strings.Contains(text[j:], "After bold.") {
				t.Errorf("the answer's resumption is not marked once, below the block:\n%s", text)
			}
			if strings.Count(text, tt.want) != 2 {
				t.Errorf("got %q %d times; want twice:\n%s", tt.want, strings.Count(text, tt.want), text)
			}
			// Without the UI blocks, the answer is what one render of
			// its whole text gives.
			var answer []block
			for _, b := range m.tr.blocks[n:] {
				if _, ok := b.(*mdBlock); ok {
					answer = append(answer, b)
				}
			}
			var got strings.Builder
			for _, b := range answer {
				for _, l := range b.lines(m.c) {
					got.WriteString(l + "\n")
				}
			}
			if want := wholeRender(m, first+rest); got.String() != want {
				t.Errorf("got the answer\n%s\nwant\n%s", got.String(), want)
			}
			if strings.Contains(text, "**bold**") || !strings.Contains(text, "After bold.") {
				t.Errorf("got the text after the fence rendered as code:\n%s", text)
			}
			last := m.tr.blocks[len(m.tr.blocks)-1]
			if _, ok := last.(*mdBlock); !ok {
				t.Errorf("got %T as the last block; want the answer's", last)
			}
		})
	}
}

// A turn's own events still end the live answer: a tool call after text
// starts below it.
func TestTurnEventsFinishTheAnswer(t *testing.T) {
	m := startFakeTurn(t, newTestModel(t, newFake()), "go")
	m = events(m, agent.TextDelta{Text: "Let me look."}, agent.ToolCallEvent{Call: call("c1", "fs_read", `{"path":"a.txt"}`), Phase: "started"})
	if m.live != nil {
		t.Fatalf("got the answer still live after a tool call")
	}
	text := m.tr.text(m.c)
	if i, j := strings.Index(text, "Let me look."), strings.Index(text, "fs_read a.txt"); i < 0 || j < i {
		t.Errorf("got the card at %d and the answer at %d; want the card below the answer:\n%s", j, i, text)
	}
}

// Escape sequences that a model streams token by token do not show as
// text, in the answer or in the reasoning.
func TestStreamedEscapesAreDropped(t *testing.T) {
	toks := []string{"hello ", "\x1b", "[31", "m", "red", "\x1b[", "0m", " and a ", "\x1b]0;", "pwned", "\x07", "title", "\x1b"}
	m := startFakeTurn(t, newTestModel(t, newFake()), "go")
	var evs []agent.Event
	for _, tok := range toks {
		evs = append(evs, agent.ReasoningDelta{Text: tok})
	}
	for _, tok := range toks {
		evs = append(evs, agent.TextDelta{Text: tok})
	}
	m = events(m, evs...)
	m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true}}})
	m = update(m, keyMsg("ctrl+r"))
	text := m.tr.text(m.c)
	if got := strings.Count(text, "hello red and a title"); got != 2 {
		t.Errorf("got the clean text %d times; want twice (reasoning and answer):\n%s", got, text)
	}
	for _, junk := range []string{"[31m", "[0m", "]0;", "pwned", "\x1b"} {
		if strings.Contains(text, junk) {
			t.Errorf("got %q in the transcript:\n%s", junk, text)
		}
	}
}

// Shown, the reasoning is its text trimmed and wrapped, the same however
// it streamed and whenever it was drawn; collapsed, it counts the words.
func TestReasoningStreamsIncrementally(t *testing.T) {
	text := "\n\n  First, read the file.\tThen\n\nanswer " + strings.Repeat("with a rather long line that has to wrap ", 5) +
		"\n\n\nlast line  \n\n"
	c := testCommon()
	c.showThink = true
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		for _, w := range wrapPlain(expandTabs(l), c.contentWidth()-2) {
			want = append(want, "  "+c.styles.Reasoning.Render(w))
		}
	}
	for _, step := range []int{1, 3, 7, len(text)} {
		t.Run(fmt.Sprint(step), func(t *testing.T) {
			r := &reasoningBlock{live: true}
			for i := 0; i < len(text); i += step {
				r.write(text[i:min(i+step, len(text))])
				r.publish()
				r.lines(c)
			}
			r.finish()
			got := r.lines(c)
			if len(got) < 2 || !slices.Equal(got[1:len(got)-1], want) {
				t.Errorf("got\n%q\nwant\n%q", got, want)
			}
			if r.words != len(strings.Fields(text)) || r.shownWords != r.words {
				t.Errorf("got %d words (%d shown); want %d", r.words, r.shownWords, len(strings.Fields(text)))
			}
			c.width = 50
			narrow := r.lines(c)
			c.width = testWidth
			if len(narrow) <= len(got) {
				t.Errorf("got %d lines at width 50, %d at %d; want it re-wrapped", len(narrow), len(got), testWidth)
			}
		})
	}
}

func TestShortenHome(t *testing.T) {
	tests := []struct{ name, path, home, want string }{
		{"inside", "/home/ada/src/app", "/home/ada", "~/src/app"},
		{"the home itself", "/home/ada", "/home/ada", "~"},
		{"a sibling that shares the prefix", "/home/adam/src", "/home/ada", "/home/adam/src"},
		{"outside", "/work/project", "/home/ada", "/work/project"},
		{"no home", "/home/ada/src", "", "/home/ada/src"},
		{"root as home", "/etc", "/", "/etc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := shortenHome(tt.path, tt.home); got != tt.want {
				t.Errorf("got %q; want %q", got, tt.want)
			}
		})
	}
}

// The status line shows the workspace shortened once, when the model is
// built, from the path as given.
func TestStatusLineShortensHome(t *testing.T) {
	t.Setenv("HOME", "/home/ada")
	m := update(New(newFake(), Options{Workspace: "/home/ada/src/app"}), sizeMsg(testWidth, testHeight))
	if last := lines(screen(m))[testHeight-1]; !strings.Contains(last, "~/src/app") || strings.Contains(last, "/home/ada") {
		t.Errorf("got status line %q; want the workspace as ~/src/app", last)
	}
}

// The KeyMap is the one source of the keys: bind another key and the
// editor, the approval pane and the help follow.
func TestKeyMapDrivesKeys(t *testing.T) {
	remap := func(m Model) Model {
		m.c.keys.Newline = key.NewBinding(key.WithKeys("ctrl+n"), key.WithHelp("ctrl+n", "insert a newline"))
		m.c.keys.ApproveOnce = key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "approve this call once"))
		return m
	}
	t.Run("newline", func(t *testing.T) {
		m := remap(newTestModel(t, newFake()))
		m = typeText(m, "a")
		m = update(m, tea.KeyMsg{Type: tea.KeyCtrlN})
		m = update(m, keyMsg("ctrl+j"))
		m = typeText(m, "b")
		if got := m.input.ta.value(); got != "a\nb" {
			t.Errorf("got %q; want %q (ctrl+n a newline, ctrl+j nothing)", got, "a\nb")
		}
	})
	t.Run("pane", func(t *testing.T) {
		m := remap(startFakeTurn(t, newTestModel(t, newFake()), "go"))
		p := &pendingApproval{req: shellRequest(), ctx: context.Background(), reply: make(chan approval.Decision, 1)}
		m = update(m, approvalRequestMsg{p})
		if s := screen(m); !strings.Contains(s, "o approve (not enter)") || strings.Contains(s, "y approve") {
			t.Errorf("got keys without the new key:\n%s", s)
		}
		m = press(t, m, "y")
		if _, ok := decision(t, p); ok {
			t.Fatalf("got a decision from y, no longer bound")
		}
		press(t, m, "o")
		if d, ok := decision(t, p); !ok || d.Choice != approval.ApproveOnce {
			t.Errorf("got %+v, %v from o; want approve once", d, ok)
		}
	})
	t.Run("help", func(t *testing.T) {
		m := remap(newTestModel(t, newFake()))
		m = runLine(t, m, "/help")
		if got := ansi.Strip(lastBlock(m)); !strings.Contains(got, "ctrl+n") || strings.Contains(got, "alt+enter") {
			t.Errorf("got help without the new newline key:\n%s", got)
		}
	})
}

// Retries take one line that each attempt updates, not a paragraph each.
func TestRetriesTakeOneLine(t *testing.T) {
	m := startFakeTurn(t, newTestModel(t, newFake()), "go")
	m = events(m,
		agent.RetryEvent{Attempt: 1, Max: 4, Wait: time.Second, Reason: "503"},
		agent.RetryEvent{Attempt: 2, Max: 4, Wait: 2 * time.Second, Reason: "503"},
		agent.RetryEvent{Attempt: 3, Max: 4, Wait: 4 * time.Second, Reason: "503"})
	got := m.tr.text(m.c)
	if n := strings.Count(got, "retrying in"); n != 1 || !strings.Contains(got, "attempt 3 of 4") {
		t.Fatalf("%d retry lines, want one saying attempt 3:\n%s", n, got)
	}
}

func TestCtrlCClearsTheDraftBeforeQuitting(t *testing.T) {
	m := typeText(newTestModel(t, newFake()), "half a thought")
	m, cmd := updateCmd(m, keyMsg("ctrl+c"))
	if m.input.ta.value() != "" || cmd != nil || m.quitArmed {
		t.Fatalf("ctrl+c with a draft: input %q, armed %v", m.input.ta.value(), m.quitArmed)
	}
	m = update(m, keyMsg("ctrl+c"))
	if !m.quitArmed {
		t.Fatal("ctrl+c on an empty prompt does not arm quitting")
	}
}

func TestExitIsQuit(t *testing.T) {
	m := typeText(newTestModel(t, newFake()), "/exit")
	_, cmd := updateCmd(m, keyMsg("enter"))
	if cmd == nil || cmd() != tea.Quit() {
		t.Fatal("/exit does not quit")
	}
}
