package ui

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/history"
)

// inlineRun plays the inline screen as Bubble Tea does: a batch handed to
// the renderer is printed, then its message goes back to Update. After
// every step it checks that the live region holds nothing finished.
type inlineRun struct {
	t       *testing.T
	m       Model
	printed []string
}

func newInlineRun(t *testing.T, b Backend, opts Options) *inlineRun {
	t.Helper()
	opts.Inline = true
	if opts.Workspace == "" {
		opts.Workspace = "/work/project"
	}
	r := &inlineRun{t: t, m: New(b, opts)}
	r.send(sizeMsg(testWidth, testHeight))
	return r
}

func (r *inlineRun) send(msgs ...tea.Msg) {
	r.t.Helper()
	for _, msg := range msgs {
		r.m = update(r.m, msg)
		for r.m.inl.flight != nil {
			batch := r.m.inl.flight
			r.printed = append(r.printed, batch...)
			r.m = update(r.m, tea.PrintAboveMsg{Lines: batch})
		}
		if bs := r.m.tr.blocks; len(bs) > 0 && r.m.settled(bs[0]) && !r.m.inl.quitting {
			r.t.Fatalf("after %T the live region starts with a finished block (%T)", msg, bs[0])
		}
	}
}

func (r *inlineRun) keys(s string) {
	r.t.Helper()
	for _, k := range s {
		r.send(keyMsg(string(k)))
	}
}

// events plays items of the running turn, then the publish tick.
func (r *inlineRun) events(evs ...agent.Event) {
	r.t.Helper()
	items := make([]turnItem, len(evs))
	for i, ev := range evs {
		items[i] = turnItem{ev: ev}
	}
	r.send(eventsMsg{turn: r.m.turn.id, items: items}, renderTickMsg{})
}

func (r *inlineRun) endTurn() {
	r.t.Helper()
	r.send(eventsMsg{turn: r.m.turn.id, items: []turnItem{{end: true}}})
}

// printedText is what was printed, without styles.
func (r *inlineRun) printedText() string { return ansi.Strip(strings.Join(r.printed, "\n")) }

// view is the live region, without styles.
func (r *inlineRun) view() string { return ansi.Strip(r.m.View()) }

// A turn's blocks are printed as they finish, each once and in order, and
// what is printed is what the transcript draws: the same turn on the
// alternate screen leaves, in its transcript, exactly the printed lines.
func TestInlinePrintsEachFinishedBlockOnceInOrder(t *testing.T) {
	card := call("c1", "shell_run", `{"command":"ls"}`)
	answer1 := "First paragraph ALPHA of the answer.\n\nSecond paragraph BRAVO, still\n"
	answer2 := "going on.\n\n"
	steps := func(send func(...tea.Msg), turn func() int, live func(string, string)) {
		ev := func(evs ...agent.Event) {
			items := make([]turnItem, len(evs))
			for i, e := range evs {
				items[i] = turnItem{ev: e}
			}
			send(eventsMsg{turn: turn(), items: items}, renderTickMsg{})
		}
		send(serverCheckedMsg{})
		for _, k := range "explain" {
			send(keyMsg(string(k)))
		}
		send(keyMsg("enter"))
		ev(agent.TextDelta{Text: answer1})
		live("BRAVO", "ALPHA")
		ev(agent.TextDelta{Text: answer2})
		ev(agent.ToolCallEvent{Call: card, Phase: "started", Summary: "Run ls"})
		live("shell_run", "BRAVO")
		ev(agent.ToolOutputEvent{CallID: "c1", Text: "a.txt\n"})
		ev(agent.ToolResultEvent{Call: card, Status: agent.StatusOK, Summary: "Ran ls", Untrusted: true, Source: "shell:ls", RetrievedAt: testTime, Body: "a.txt\n"})
		ev(agent.NoticeEvent{Text: "a notice CHARLIE"}, agent.TextDelta{Text: "Last words DELTA."})
		live("DELTA", "CHARLIE")
		send(eventsMsg{turn: turn(), items: []turnItem{{end: true}}})
	}

	r := newInlineRun(t, newFake(), Options{})
	if len(r.printed) != 0 {
		t.Fatalf("printed %q before the server check; want the welcome held until it says how it went", r.printedText())
	}
	steps(r.send, func() int { return r.m.turn.id }, func(inView, printed string) {
		t.Helper()
		if v := r.view(); !strings.Contains(v, inView) || strings.Contains(v, printed) {
			t.Fatalf("live region:\n%s\nwant %q in it and not %q", v, inView, printed)
		}
		if p := r.printedText(); !strings.Contains(p, printed) || strings.Contains(p, inView) {
			t.Fatalf("printed:\n%s\nwant %q in it and not %q", p, printed, inView)
		}
	})
	if len(r.m.tr.blocks) != 0 {
		t.Errorf("after the turn %d blocks are still live; want all printed", len(r.m.tr.blocks))
	}

	alt := newTestModel(t, newFake())
	steps(func(msgs ...tea.Msg) {
		for _, msg := range msgs {
			alt = update(alt, msg)
		}
	}, func() int { return alt.turn.id }, func(string, string) {})
	want := strings.Split(strings.TrimSuffix(alt.scrollbackText(), "\n"), "\n")
	if !slices.Equal(r.printed, want) {
		t.Errorf("printed:\n%s\nwant the transcript's lines:\n%s", strings.Join(r.printed, "\n"), strings.Join(want, "\n"))
	}
	for _, w := range []string{"ALPHA", "BRAVO", "shell_run", "CHARLIE", "DELTA"} {
		if n := strings.Count(r.printedText(), w); n != 1 {
			t.Errorf("%q printed %d times; want once", w, n)
		}
	}
	if v := r.view(); !strings.Contains(v, "Ask anything") || strings.Contains(v, "DELTA") {
		t.Errorf("live region after the turn:\n%s\nwant the input only", v)
	}
}

// A resumed session's earlier turns are printed first, the calls once the
// journal has said where their changes stand; the new turn follows.
func TestInlineResumedSessionPrintedFirst(t *testing.T) {
	f := newFake()
	c := call("c1", "fs_write", `{"path":"a.txt"}`)
	f.entries = []history.Entry{{Seq: 1, CallID: "c1", Tool: "fs_write", Summary: "Create a.txt", State: history.StateUndone, Time: testTime}}
	earlier := []Earlier{
		{Role: "user", Text: "first question ECHO"},
		{Role: "assistant", Text: "first answer FOXTROT"},
		{Role: "tool", Call: &agent.CallRecord{Result: agent.ToolResultEvent{Call: c, Status: agent.StatusOK, Summary: "Create a.txt", Reversible: true}}},
		{Role: "assistant", Text: "second answer GOLF"},
	}
	r := newInlineRun(t, f, Options{Earlier: earlier})
	r.send(serverCheckedMsg{})
	if p := r.printedText(); !strings.Contains(p, "FOXTROT") || strings.Contains(p, "fs_write") {
		t.Fatalf("printed before the journal:\n%s\nwant the turns up to the call, not the call", p)
	}
	r.send(journalMsg{entries: f.entries})
	r.keys("new question")
	r.send(keyMsg("enter"))
	r.events(agent.TextDelta{Text: "new answer HOTEL"})
	r.endTurn()
	p := r.printedText()
	order := []string{"myclaw", "ECHO", "FOXTROT", "fs_write a.txt", "undone", "GOLF", "new question", "HOTEL"}
	at := -1
	for _, w := range order {
		i := strings.Index(p, w)
		if i <= at {
			t.Fatalf("printed:\n%s\nwant %q once, after %v", p, w, order[:slices.Index(order, w)])
		}
		at = i
	}
}

// A journal that cannot be read does not hold the resumed cards back.
func TestInlineJournalErrorStillPrints(t *testing.T) {
	f := newFake()
	c := call("c1", "fs_write", `{"path":"a.txt"}`)
	r := newInlineRun(t, f, Options{Earlier: []Earlier{{Role: "tool", Call: &agent.CallRecord{Result: agent.ToolResultEvent{Call: c, Status: agent.StatusOK}}}}})
	r.send(serverCheckedMsg{})
	msg := loadJournal(errHistory{f})()
	if msg == nil {
		t.Fatal("loadJournal gave nothing for an unreadable journal; want an empty answer")
	}
	r.send(msg)
	if !strings.Contains(r.printedText(), "fs_write a.txt") {
		t.Errorf("printed:\n%s\nwant the card", r.printedText())
	}
}

type errHistory struct{ *fakeBackend }

func (errHistory) History() ([]history.Entry, error) { return nil, errTest }

var errTest = &agent.UserError{Msg: "unreadable"}

// An approval pane works inline: the waiting card is live above it, y
// approves, and the card is printed once, when it is finished.
func TestInlineApprovalPane(t *testing.T) {
	r := newInlineRun(t, newFake(), Options{})
	r.send(serverCheckedMsg{})
	r.keys("write it")
	r.send(keyMsg("enter"))
	req := writeRequest()
	c := agent.Call{ID: req.CallID, Tool: req.Tool, Args: req.Args}
	r.events(agent.ToolCallEvent{Call: c, Phase: "proposed", Summary: req.Summary})
	p := &pendingApproval{req: req, ctx: context.Background(), reply: make(chan approval.Decision, 1)}
	r.send(approvalRequestMsg{p})
	if v := r.view(); !strings.Contains(v, "approve fs_write?") || !strings.Contains(v, "fs_write notes/todo.md") {
		t.Fatalf("live region:\n%s\nwant the card and the pane", v)
	}
	r.m = press(t, r.m, "y")
	r.send(refreshStatus(r.m.backend)()) // and print what the key finished
	d, ok := decision(t, p)
	if !ok || !d.Approved() {
		t.Fatalf("got %+v; want approved", d)
	}
	if strings.Contains(r.printedText(), "fs_write") {
		t.Fatalf("printed the card while it runs:\n%s", r.printedText())
	}
	r.events(agent.ToolResultEvent{Call: c, Status: agent.StatusOK, Summary: "wrote notes/todo.md", Reversible: true})
	r.events(agent.TextDelta{Text: "Done."})
	r.endTurn()
	if n := strings.Count(r.printedText(), "fs_write notes/todo.md"); n != 1 {
		t.Errorf("printed:\n%s\ngot the card %d times; want once", r.printedText(), n)
	}
	if v := r.view(); strings.Contains(v, "fs_write") || strings.Contains(v, "approve") {
		t.Errorf("live region after the turn:\n%s\nwant neither card nor pane", v)
	}
}

// The live region is bounded by the screen: a streaming block taller than
// the room shows its end.
func TestInlineLiveRegionFitsTheScreen(t *testing.T) {
	r := newInlineRun(t, newFake(), Options{})
	r.send(serverCheckedMsg{})
	r.keys("go")
	r.send(keyMsg("enter"))
	var b strings.Builder
	b.WriteString("```\n")
	for i := range 60 {
		b.WriteString("code line " + strings.Repeat("x", i%7) + "\n")
	}
	b.WriteString("LAST LINE")
	r.events(agent.TextDelta{Text: b.String()})
	v := r.view()
	if n := len(lines(v)); n != testHeight {
		t.Errorf("live region of %d lines; want the screen's %d", n, testHeight)
	}
	if !strings.Contains(v, "LAST LINE") {
		t.Errorf("live region:\n%s\nwant the end of the block", v)
	}
}

// Scrolling keys have nothing to scroll inline, the mouse stays the
// terminal's, and quitting leaves an empty last frame with the rest for
// Run to print.
func TestInlineKeysMouseAndQuit(t *testing.T) {
	r := newInlineRun(t, newFake(), Options{})
	r.send(serverCheckedMsg{})
	r.keys("go")
	r.send(keyMsg("enter"))
	r.events(agent.TextDelta{Text: "streaming INDIA"})
	before := r.view()
	for _, k := range []string{"pgup", "pgdown", "ctrl+home", "ctrl+end"} {
		r.send(keyMsg(k))
	}
	if after := r.view(); after != before {
		t.Errorf("a scrolling key changed the live region:\n%s\nwas:\n%s", after, before)
	}
	r.send(keyMsg("esc"))
	r.endTurn()
	r.keys("/mouse")
	r.send(keyMsg("enter"))
	if !strings.Contains(r.printedText(), "the mouse stays the terminal's") || r.m.c.mouseOff {
		t.Errorf("printed:\n%s\nwant /mouse to say the terminal keeps the mouse", r.printedText())
	}
	r.keys("pending")
	r.send(keyMsg("enter")) // a turn that runs on at quit
	r.events(agent.TextDelta{Text: "unfinished JULIET"})
	r.keys("/quit")
	r.send(keyMsg("enter"))
	if v := r.m.View(); v != "" {
		t.Errorf("last frame:\n%s\nwant it empty", v)
	}
	rest := ansi.Strip(r.m.inlineRest())
	if !strings.Contains(rest, "JULIET") || strings.Contains(rest, "INDIA") || strings.Contains(rest, "pending") {
		t.Errorf("left for Run to print:\n%s\nwant only the unprinted answer", rest)
	}
}

// A streamed answer replaced by its text without the calls written in it
// prints again only what differs from what was printed.
func TestInlineTextCallsReplacementNotReprinted(t *testing.T) {
	r := newInlineRun(t, newFake(), Options{})
	r.send(serverCheckedMsg{})
	r.keys("go")
	r.send(keyMsg("enter"))
	r.events(agent.TextDelta{Text: "Intro KILO.\n\n<tool_call>x</tool_call>\n\nOutro LIMA"})
	r.events(agent.NoticeEvent{TextCalls: true, Answer: "Intro KILO.\n\nOutro LIMA", Text: "ran the calls written as text"})
	r.endTurn()
	p := r.printedText()
	if strings.Count(p, "KILO") != 1 || strings.Count(p, "LIMA") != 1 {
		t.Errorf("printed:\n%s\nwant KILO and LIMA once each", p)
	}
}

// frameModel draws fixed lines, for the renderer's inline path.
type frameModel struct{ lines []string }

func (f frameModel) Init() tea.Cmd                       { return nil }
func (f frameModel) Update(tea.Msg) (tea.Model, tea.Cmd) { return f, nil }
func (f frameModel) View() string                        { return strings.Join(f.lines, "\n") }

// After a narrowing, a terminal that rewraps its lines has the last
// inline frame on more rows: the next frame starts where its first line
// went (the rows of its lines' text, trailing spaces left out), and where
// the terminal does not rewrap, on the rows it took.
func TestInlineFrameAfterNarrowing(t *testing.T) {
	view := []string{strings.Repeat("a", 80), "short", strings.Repeat("b", 60) + "      ", "last"}
	for _, tc := range []struct {
		reflow bool
		up     string
	}{{true, "\x1b[5A"}, {false, "\x1b[3A"}} {
		out := &syncBuffer{}
		p := tea.NewProgram(frameModel{view}, tea.WithInput(nil), tea.WithOutput(out), tea.WithoutSignalHandler())
		done := make(chan struct{})
		go func() {
			_, _ = p.Run()
			close(done)
		}()
		p.Send(tea.InlineReflowMsg(tc.reflow))
		p.Send(tea.WindowSizeMsg{Width: 80, Height: 24})
		waitOutput(t, out, func(s string) bool { return strings.Count(s, "last") >= 1 })
		n := len(out.String())
		p.Send(tea.WindowSizeMsg{Width: 40, Height: 24})
		waitOutput(t, out, func(s string) bool { return strings.Contains(s[n:], "last") })
		p.Quit()
		<-done
		if s := out.String()[n:]; !strings.HasPrefix(strings.TrimPrefix(s, "\x1b[?2026h"), tc.up) {
			t.Errorf("reflow %v: the frame after narrowing begins %q; want %q", tc.reflow, s[:min(len(s), 12)], tc.up)
		}
	}
}

func waitOutput(t *testing.T, out *syncBuffer, ok func(string) bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !ok(out.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("waited in vain; the output is %q", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestRewraps(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{"TERM": "xterm-256color"}, true},
		{map[string]string{"TERM": "xterm-256color", "XTERM_VERSION": "XTerm(390)"}, false},
		{map[string]string{"TERM": "tmux-256color", "TMUX": "/tmp/tmux-0/default,1,0", "XTERM_VERSION": "XTerm(390)"}, true},
		{map[string]string{"TERM": "screen-256color", "STY": "1.pts-0"}, false},
		{map[string]string{"TERM": "linux"}, false},
		{map[string]string{"TERM": "rxvt-unicode-256color"}, false},
		{map[string]string{"TERM": "xterm-kitty"}, true},
	} {
		if got := rewraps(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("rewraps(%v) = %v, want %v", tc.env, got, tc.want)
		}
	}
}
