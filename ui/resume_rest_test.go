package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"myclaw/agent"
)

// longSessionsFake opens a long session from its end, as the app does:
// its last turns, and a load of the earlier ones held at a gate.
type longSessionsFake struct {
	*fakeBackend
	all    []Earlier
	g      *gatedRest
	forked []int
}

func newLongSessionsFake(turns int) *longSessionsFake {
	all := seededEarlier(turns)
	return &longSessionsFake{fakeBackend: newFake(), all: all,
		g: newGatedRest(Rest{Before: all[:len(all)-60], Notice: "Resumed session S1 (900 earlier messages, last used 2026-12-01 10:00): the model remembers them."})}
}

func (f *longSessionsFake) OpenSession(id string) (SessionView, error) {
	return SessionView{Notice: "Resumed session " + id + " (last used 2026-12-01 10:00): the model remembers it.", Earlier: f.all[len(f.all)-60:], Rest: f.g.load}, nil
}

func (f *longSessionsFake) Fork(before int) (SessionView, error) {
	f.forked = append(f.forked, before)
	return SessionView{Notice: "Forked"}, nil
}

func (f *longSessionsFake) Prompts() ([]agent.Prompt, error) { return nil, nil }

// resumeLong runs /resume S1 against f in a new model and returns it once
// the switch is shown, with the channel its rest's message comes on once
// the gate opens.
func resumeLong(t *testing.T, f *longSessionsFake, opts Options) (Model, <-chan tea.Msg) {
	t.Helper()
	opts.Workspace = "/work/project"
	m := New(f, opts)
	m = update(m, sizeMsg(120, 40))
	m = typeText(m, "/resume S1")
	m.input.closed = true
	m, cmd := updateCmd(m, keyMsg("enter"))
	var switched *sessionSwitchedMsg
	for _, msg := range ranMsgs(cmd) {
		if s, ok := msg.(sessionSwitchedMsg); ok {
			switched = &s
		}
	}
	if switched == nil {
		t.Fatal("/resume S1 opened no session")
	}
	m, cmd = updateCmd(m, *switched)
	return m, restOf(t, cmd)
}

// ranMsgs runs cmd, batches and all, and returns its messages.
func ranMsgs(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, ranMsgs(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// restOf runs cmd's commands behind the test (the load waits at its
// gate) and gives the load's message once it comes.
func restOf(t *testing.T, cmd tea.Cmd) <-chan tea.Msg {
	t.Helper()
	out := make(chan tea.Msg, 1)
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			for _, c := range msg {
				go run(c)
			}
		case restMsg:
			out <- msg
		}
	}
	go run(cmd)
	return out
}

// /resume ID of a long session shows its last turns at once, under the
// loading line, and the earlier turns go above them once loaded; the
// notice then gives the count of messages.
func TestResumeIDOfALongSessionOpensFromItsEnd(t *testing.T) {
	f := newLongSessionsFake(300)
	m, loaded := resumeLong(t, f, Options{})
	if m.rest == nil {
		t.Fatal("/resume of a long session loads no rest")
	}
	if got := screen(m); !strings.Contains(got, "Turn 300.") || !strings.Contains(got, "Resumed session S1 (last used") {
		t.Fatalf("the first frame after /resume does not show the last turn and the notice:\n%s", got)
	}
	m = update(m, keyMsg("ctrl+home"))
	if top := screen(m); !strings.Contains(top, "earlier turns of the session are loading") || strings.Contains(top, "turn 1:") || !strings.Contains(top, "turn 281:") {
		t.Fatalf("before the load, the top is not the loading line over the last turns:\n%s", top)
	}
	m = update(m, keyMsg("ctrl+end"))
	close(f.g.gate)
	next, cmd := m.Update(<-loaded)
	m = runCmd(t, next.(Model), cmd)
	if m.rest != nil {
		t.Fatal("the rest is still loading after its message")
	}
	got := screen(m)
	if !strings.Contains(got, "Resumed session S1 (900 earlier messages") || strings.Contains(got, "(last used 2026-12-01 10:00): the model remembers it.") {
		t.Fatalf("the notice does not give the count once loaded:\n%s", got)
	}
	m = update(m, keyMsg("ctrl+home"))
	if top := screen(m); !strings.Contains(top, "turn 1:") || strings.Contains(top, "are loading") {
		t.Fatalf("ctrl+home does not reach the first turn after the load:\n%s", top)
	}
	text := ansi.Strip(m.scrollbackText())
	if n := strings.Count(text, "turn 281:"); n != 1 || strings.Index(text, "turn 280:") > strings.Index(text, "turn 281:") {
		t.Fatalf("turn 281 shown %d times, or out of order", n)
	}
	if n := strings.Count(text, "Resumed session S1"); n != 1 {
		t.Fatalf("the notice stands %d times", n)
	}
}

// A prompt sent while the session /resume opened loads waits for it, and
// says so.
func TestPromptDuringTheLoadOfAResumedSessionWaits(t *testing.T) {
	f := newLongSessionsFake(100)
	defer close(f.g.gate)
	m, _ := resumeLong(t, f, Options{})
	promptWaitsForTheLoad(t, m)
}

// The load of the session resumed at start, coming after /resume opened
// another, is not put into the other's transcript.
func TestRestOfTheSessionLeftIsDropped(t *testing.T) {
	f := newLongSessionsFake(100)
	defer close(f.g.gate)
	old := newGatedRest(Rest{Before: []Earlier{{Role: "user", Text: "a prompt of the session left"}}, Notice: "the notice of the session left"})
	close(old.gate)
	first := seededEarlier(40)
	m, _ := resumeLong(t, f, Options{Earlier: first[len(first)-30:], Rest: old.load})
	// Its message, as startRest would have sent it before the switch.
	m = update(m, restMsg{rest: old.load(), state: &restState{load: old.load}})
	m = update(m, keyMsg("ctrl+home"))
	text := ansi.Strip(m.scrollbackText())
	if strings.Contains(text, "session left") || !strings.Contains(screen(m), "earlier turns of the session are loading") {
		t.Fatalf("the rest of the session left went into the one opened:\n%s", screen(m))
	}
}

// /fork while the earlier turns load says the fork waits for them.
func TestForkDuringTheLoadSaysItWaits(t *testing.T) {
	f := newLongSessionsFake(100)
	m, loaded := resumeLong(t, f, Options{})
	m = typeText(m, "/fork 2")
	m.input.closed = true
	m, cmd := updateCmd(m, keyMsg("enter"))
	if !strings.Contains(screen(m), "still loading: a fork waits for them") {
		t.Fatalf("/fork during the load does not say it waits:\n%s", screen(m))
	}
	close(f.g.gate)
	m = update(m, <-loaded)
	for _, msg := range ranMsgs(cmd) {
		m = update(m, msg)
	}
	if len(f.forked) != 1 || f.forked[0] != 2 || !strings.Contains(screen(m), "Forked") {
		t.Fatalf("forked %v; want before prompt 2, shown", f.forked)
	}
}

// countingPrompts counts the reads of the prompts.
type countingPrompts struct {
	*sessionsFake
	reads int
}

func (f *countingPrompts) Prompts() ([]agent.Prompt, error) {
	f.reads++
	return f.sessionsFake.Prompts()
}

// /fork reads the prompts to offer behind the frame (a long session's
// transcript is megabytes), then offers them.
func TestForkReadsThePromptsBehindTheFrame(t *testing.T) {
	f := &countingPrompts{sessionsFake: &sessionsFake{fakeBackend: newFake(), prompts: []agent.Prompt{{N: 1, Text: "first prompt"}}}}
	m := New(f, Options{Workspace: "/work/project"})
	m = update(m, sizeMsg(120, 40))
	m = typeText(m, "/fork")
	m.input.closed = true
	m, cmd := updateCmd(m, keyMsg("enter"))
	if f.reads != 0 || m.picker != nil {
		t.Fatalf("the prompts were read in Update (%d reads, picker %v)", f.reads, m.picker != nil)
	}
	m = runCmd(t, m, cmd)
	if f.reads != 1 || m.picker == nil || !strings.Contains(strings.Join(m.bottomView(), "\n"), "before prompt 1: first prompt") {
		t.Fatalf("after the read: %d reads, picker %v", f.reads, m.picker != nil)
	}
}
