package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"myclaw/agent"
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
		m = typeText(m, "draft")
		m, cmd := updateCmd(m, keyMsg("ctrl+c"))
		if cmd != nil {
			t.Fatalf("got a command after one ctrl+c; want none")
		}
		if !strings.Contains(screen(m), "press ctrl+c again to quit") {
			t.Errorf("got no hint after one ctrl+c:\n%s", screen(m))
		}
		if got := m.input.value(); got != "draft" {
			t.Errorf("got input %q after ctrl+c; want it kept", got)
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
		if got := m.input.value(); got != s.want {
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
			if got := m.input.value(); got != "a\nb" {
				t.Errorf("got %q; want %q", got, "a\nb")
			}
			if m.turn != nil {
				t.Errorf("got a turn started by %s; want none", k)
			}
		})
	}
}

func TestPromptWhileRunningIsKept(t *testing.T) {
	m := startFakeTurn(t, newTestModel(t, newFake()), "go")
	m = typeText(m, "next question")
	m = update(m, keyMsg("enter"))
	if got := m.input.value(); got != "next question" {
		t.Errorf("got input %q; want the prompt kept", got)
	}
	if !strings.Contains(m.tr.text(m.c), "a turn is running") {
		t.Errorf("got no explanation in the transcript")
	}
}

func TestScrollKeys(t *testing.T) {
	m := newTestModel(t, newFake())
	for i := range 40 {
		m.addBlock(noticeBlock(fmt.Sprintf("line %02d", i)))
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
		{"home shows the start", []tea.Msg{keyMsg("home")}, false, "myclaw ·"},
		{"end follows", []tea.Msg{keyMsg("home"), keyMsg("end")}, true, "line 39"},
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
	m := New(f, Options{Banner: "ignored .myclaw.toml: folder not trusted"})
	m = update(m, sizeMsg(testWidth, testHeight))
	if s := screen(m); !strings.Contains(s, "ignored .myclaw.toml: folder not trusted") || !strings.Contains(s, "test-model") {
		t.Errorf("got first frame without banner or model:\n%s", s)
	}
	m = update(m, checkServer(f, context.Background())())
	if s := screen(m); !strings.Contains(s, "model bench-x is not served") || !strings.Contains(s, "Pick one of: a, b.") {
		t.Errorf("got no server check failure with its hint:\n%s", s)
	}
}

func TestStatusLine(t *testing.T) {
	m := startFakeTurn(t, newTestModel(t, newFake()), "go")
	m = events(m, agent.UsageEvent{TotalTokens: 45_300, ContextWindow: 200_000})
	m = update(m, spinnerTickMsg{turn: m.turn.id, now: m.turn.start.Add(2500 * time.Millisecond)})
	last := lines(screen(m))[testHeight-1]
	for _, want := range []string{"test-model", "ask", "project", "45.3k/200k tokens", "undo 2", "2.5s"} {
		if !strings.Contains(last, want) {
			t.Errorf("got status line %q; want %q in it", last, want)
		}
	}
	m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true}}})
	if m2 := update(m, spinnerTickMsg{turn: 1}); m2.turn != nil {
		t.Errorf("got a turn from a stale spinner tick")
	}
	if _, cmd := updateCmd(m, spinnerTickMsg{turn: 1}); cmd != nil {
		t.Errorf("got a new tick after the turn ended; want the spinner to stop")
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
			if w := len([]rune(l)); w > size[0] {
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
	if strings.Contains(view, "\x1b]0;") {
		t.Error("an OSC sequence from the stored answer reached the screen")
	}
}
