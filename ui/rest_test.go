package ui

import (
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// gatedRest is a Rest whose load waits for the test to open its gate.
type gatedRest struct {
	gate chan struct{}
	rest Rest
}

func newGatedRest(r Rest) *gatedRest { return &gatedRest{gate: make(chan struct{}), rest: r} }

func (g *gatedRest) load() Rest {
	<-g.gate
	return g.rest
}

// started runs the command that starts the load (it waits at the gate)
// and returns its message once the gate opens.
func started(t *testing.T, cmd tea.Cmd) <-chan tea.Msg {
	t.Helper()
	if cmd == nil {
		t.Fatal("the load was not started")
	}
	out := make(chan tea.Msg, 1)
	go func() { out <- cmd() }()
	return out
}

// A long session resumed from its end: the first frame shows the last
// turns, the earlier ones load behind it and go above them without
// moving the view, scrolled up or at the bottom, and ctrl+home then
// reaches the first turn.
func TestResumedFromTheEndTheEarlierTurnsGoAbove(t *testing.T) {
	all := seededEarlier(300)
	tail, before := all[len(all)-60:], all[:len(all)-60]
	g := newGatedRest(Rest{Before: before})
	m := New(newFake(), Options{Workspace: "/work/project", Earlier: tail, Rest: g.load})
	m, cmd := updateCmd(m, sizeMsg(120, 40))
	loaded := started(t, cmd)
	first := screen(m)
	if !strings.Contains(first, "Turn 300.") || !strings.Contains(first, "ten thousand") {
		t.Fatalf("the first frame does not show the last answer:\n%s", first)
	}
	// Only one load.
	if m, cmd = updateCmd(m, keyMsg("x")); cmd != nil {
		if _, ok := cmd().(restMsg); ok {
			t.Fatal("a second load was started")
		}
	}
	m = update(m, keyMsg("backspace"))
	m = update(m, keyMsg("ctrl+home"))
	if top := screen(m); !strings.Contains(top, "earlier turns of the session are loading") || strings.Contains(top, "turn 1:") || !strings.Contains(top, "turn 281:") {
		t.Fatalf("before the load, the top is not the loading line over the last turns:\n%s", top)
	}
	m = update(m, keyMsg("ctrl+end"))
	bottom := screen(m)
	m = update(m, keyMsg("pgup"))
	m = update(m, keyMsg("pgup"))
	up := screen(m)
	close(g.gate)
	next, cmd := m.Update(<-loaded)
	m = runCmd(t, next.(Model), cmd)
	if got := screen(m); got != up {
		t.Fatalf("the view scrolled up moved when the earlier turns came:\n%s\nwant:\n%s", got, up)
	}
	m = update(m, keyMsg("ctrl+end"))
	if got := screen(m); got != bottom {
		t.Fatalf("the bottom moved when the earlier turns came:\n%s\nwant:\n%s", got, bottom)
	}
	m = update(m, keyMsg("ctrl+home"))
	if top := screen(m); !strings.Contains(top, "turn 1:") || strings.Contains(top, "are loading") {
		t.Fatalf("ctrl+home does not reach the first turn after the load:\n%s", top)
	}
	text := ansi.Strip(m.scrollbackText())
	if n := strings.Count(text, "turn 281:"); n != 1 || strings.Index(text, "turn 280:") > strings.Index(text, "turn 281:") {
		t.Fatalf("turn 281 shown %d times, or out of order", n)
	}
	// /copy reaches back over the load: the last 100 answers, in order.
	if len(m.answers) != maxAnswers || !strings.HasPrefix(m.answers[0].text, "Turn 201.") || !strings.HasPrefix(m.answers[maxAnswers-1].text, "Turn 300.") {
		t.Fatalf("%d answers for /copy, from %.10q to %.10q", len(m.answers), m.answers[0].text, m.answers[len(m.answers)-1].text)
	}
}

// A prompt sent while the earlier turns load is sent (the backend waits
// for them), under a line that says it waits.
func TestPromptDuringTheLoadSaysItWaits(t *testing.T) {
	all := seededEarlier(100)
	g := newGatedRest(Rest{Before: all[:len(all)-30]})
	defer close(g.gate)
	m := New(newFake(), Options{Workspace: "/work/project", Earlier: all[len(all)-30:], Rest: g.load})
	m = update(m, sizeMsg(120, 40))
	promptWaitsForTheLoad(t, m)
}

// promptWaitsForTheLoad sends a prompt while the earlier turns load: it is
// sent, under a line that says it waits for them.
func promptWaitsForTheLoad(t *testing.T, m Model) {
	t.Helper()
	m = typeText(m, "go on")
	m, _ = updateCmd(m, keyMsg("enter"))
	if m.turn == nil || !strings.Contains(screen(m), "still loading: this waits for them") {
		t.Fatalf("the prompt was not sent with a line saying it waits:\n%s", screen(m))
	}
}

// A load that fails says so where the earlier turns would go, with what
// it skipped; the turns shown stay.
func TestFailedLoadIsShown(t *testing.T) {
	all := seededEarlier(100)
	g := newGatedRest(Rest{
		Err:     errors.New("the session's earlier turns could not be loaded: open the undo journal: is a directory"),
		Notices: []Notice{{Text: "skipped corrupt line 3 of transcript.jsonl", Warning: true}},
	})
	m := New(newFake(), Options{Workspace: "/work/project", Earlier: all[len(all)-30:], Rest: g.load})
	m, cmd := updateCmd(m, sizeMsg(120, 40))
	loaded := started(t, cmd)
	close(g.gate)
	m = update(m, <-loaded)
	text := ansi.Strip(m.scrollbackText())
	for _, want := range []string{"could not be loaded: open the undo journal", "skipped corrupt line 3", "turn 100:"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the transcript does not say %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "are loading") {
		t.Fatal("the loading line stays after a failed load")
	}
}

// When the end did not come out as the end of the whole, the whole
// conversation replaces the turns shown: nothing twice.
func TestWholeRestReplacesTheTurnsShown(t *testing.T) {
	all := seededEarlier(100)
	g := newGatedRest(Rest{Before: all, Whole: true})
	m := New(newFake(), Options{Workspace: "/work/project", Earlier: all[len(all)-30:], Rest: g.load})
	m, cmd := updateCmd(m, sizeMsg(120, 40))
	loaded := started(t, cmd)
	close(g.gate)
	m = update(m, <-loaded)
	text := ansi.Strip(m.scrollbackText())
	if strings.Count(text, "turn 100:") != 1 || strings.Count(text, "turn 1:") != 1 {
		t.Fatalf("the whole conversation does not stand once:\n%s", text)
	}
}

// On the inline screen, nothing after the loading line is printed before
// the earlier turns are: the scrollback gets the conversation in order.
func TestInlinePrintsTheEarlierTurnsFirst(t *testing.T) {
	all := seededEarlier(60)
	g := newGatedRest(Rest{Before: all[:len(all)-30]})
	r := newInlineRun(t, newFake(), Options{Earlier: all[len(all)-30:], Rest: g.load})
	r.send(serverCheckedMsg{})
	if strings.Contains(r.printedText(), "turn 31:") {
		t.Fatal("the last turns were printed before the earlier ones")
	}
	close(g.gate)
	r.send(restMsg{rest: g.load(), state: r.m.rest})
	text := r.printedText()
	if i, j := strings.Index(text, "turn 1:"), strings.Index(text, "turn 60:"); i < 0 || j < i {
		t.Fatalf("printed out of order (turn 1 at %d, turn 60 at %d)", i, j)
	}
}

// Quitting while the earlier turns load writes the whole conversation to
// the normal screen all the same: the end waits for them.
func TestQuitDuringTheLoadWritesTheWholeConversation(t *testing.T) {
	all := seededEarlier(60)
	g := newGatedRest(Rest{Before: all[:len(all)-30]})
	close(g.gate)
	m := New(newFake(), Options{Workspace: "/work/project", Earlier: all[len(all)-30:], Rest: g.load, Scrollback: true})
	m = update(m, sizeMsg(120, 40))
	m, _ = m.quit()
	text := ansi.Strip(m.finishRest().scrollbackText())
	if !strings.Contains(text, "turn 1:") || strings.Contains(text, "are loading") {
		t.Fatalf("the conversation written on quit is not whole:\n%.400s", text)
	}
}

// On exit a long session puts only its end into the terminal's
// scrollback, whole blocks up to scrollbackLines, after a line saying
// where the rest is; a short one goes whole.
func TestExitWritesOnlyTheEndOfALongSession(t *testing.T) {
	m := New(newFake(), Options{Workspace: "/work/project", Earlier: seededEarlier(3000)})
	m = update(m, sizeMsg(120, 40))
	text := ansi.Strip(m.scrollbackText())
	lines := strings.Count(text, "\n")
	if lines > scrollbackLines+20 || lines < scrollbackLines/2 {
		t.Fatalf("%d lines written on exit; want about %d", lines, scrollbackLines)
	}
	if !strings.HasPrefix(text, "⋯ ") || !strings.Contains(text, "myclaw --continue shows them") || !strings.Contains(text, "turn 3000:") || strings.Contains(text, "turn 1:") {
		t.Fatalf("exit text starts %.200q and ends %.200q", text, text[len(text)-200:])
	}
	short := New(newFake(), Options{Workspace: "/work/project", Earlier: seededEarlier(20)})
	short = update(short, sizeMsg(120, 40))
	if text := ansi.Strip(short.scrollbackText()); strings.HasPrefix(text, "⋯ ") || !strings.Contains(text, "turn 1:") {
		t.Fatalf("a short session's exit text: %.300q", text)
	}
}
