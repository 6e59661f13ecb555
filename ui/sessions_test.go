package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"myclaw/agent"
	"myclaw/history"
)

// sessionsFake is the fake backend that can also switch sessions.
type sessionsFake struct {
	*fakeBackend
	opened  []string
	forked  []int
	prompts []agent.Prompt
}

func (f *sessionsFake) OpenSession(id string) (SessionView, error) {
	f.opened = append(f.opened, id)
	return SessionView{Notice: "Resumed session " + id, Earlier: []Earlier{{Role: "user", Text: "old prompt of " + id}, {Role: "assistant", Text: "old answer"}}}, nil
}

func (f *sessionsFake) Fork(before int) (SessionView, error) {
	f.forked = append(f.forked, before)
	v := SessionView{Notice: "Forked", Earlier: []Earlier{{Role: "user", Text: "first prompt"}}}
	if before > 0 {
		v.Draft = f.prompts[before-1].Text
	}
	return v, nil
}

func (f *sessionsFake) Prompts() ([]agent.Prompt, error) { return f.prompts, nil }

func TestSessionsPickerOpensTheChosenSession(t *testing.T) {
	f := &sessionsFake{fakeBackend: newFake()}
	f.status.SessionID = "20250314-0926-cur0"
	f.sessions = []history.SessionInfo{
		{ID: "20250314-0926-cur0", Updated: testTime, Title: "the current one"},
		{ID: "20250313-0800-old1", Updated: testTime, Title: "Add a note", Parent: "20250312-0700-par2"},
	}
	m := transcriptModel(t)
	m.backend = f
	m = runLine(t, m, "/sessions")
	if m.picker == nil {
		t.Fatal("/sessions shows no picker")
	}
	golden.RequireEqual(t, []byte(strings.Join(m.bottomView(), "\n")))
	view := strings.Join(m.bottomView(), "\n")
	if !strings.Contains(view, "(this one)") || !strings.Contains(view, "Add a note") || !strings.Contains(view, "fork of 20250312-0700-par2") {
		t.Fatalf("picker view:\n%s", view)
	}
	// Enter on the current session opens nothing and says so, once;
	// down, then enter, opens.
	m2, cmd := updateCmd(m, keyMsg("enter"))
	m2 = runCmd(t, m2, cmd)
	if m2.picker != nil || len(f.opened) != 0 {
		t.Fatalf("picking the current session: picker open %v, opened %v; want it closed, nothing opened", m2.picker != nil, f.opened)
	}
	if got := m2.tr.text(m2.c); strings.Count(got, "already the session in use") != 1 || !strings.Contains(lastBlock(m2), "Session 20250314-0926-cur0 is already the session in use.") {
		t.Fatalf("transcript after picking the current session:\n%s", got)
	}
	m = update(m, keyMsg("down"))
	next, cmd := updateCmd(m, keyMsg("enter"))
	m = runCmd(t, next, cmd)
	if strings.Join(f.opened, ",") != "20250313-0800-old1" {
		t.Fatalf("opened %v", f.opened)
	}
	text := m.tr.text(m.c)
	if !strings.Contains(text, "old prompt of 20250313-0800-old1") || strings.Contains(text, "fs_write") || !strings.Contains(text, "Resumed session") {
		t.Fatalf("transcript after opening:\n%s", text)
	}
	// /resume ID opens directly; Esc closes a picker.
	m = runLine(t, m, "/resume 20250314-0926-cur0")
	if len(f.opened) != 2 {
		t.Fatalf("/resume ID opened %v", f.opened)
	}
	m = runLine(t, m, "/resume")
	if m.picker == nil {
		t.Fatal("/resume alone shows no picker")
	}
	if m = update(m, keyMsg("esc")); m.picker != nil {
		t.Fatal("esc leaves the picker open")
	}
}

func TestForkPickerAndDraft(t *testing.T) {
	f := &sessionsFake{fakeBackend: newFake(), prompts: []agent.Prompt{{N: 1, Text: "first prompt"}, {N: 2, Text: "second prompt"}}}
	m := transcriptModel(t)
	m.backend = f
	m = runLine(t, m, "/fork")
	golden.RequireEqual(t, []byte(strings.Join(m.bottomView(), "\n")))
	view := strings.Join(m.bottomView(), "\n")
	if !strings.Contains(view, "here: the whole conversation") || !strings.Contains(view, "before prompt 2: second prompt") {
		t.Fatalf("fork picker:\n%s", view)
	}
	if i, j := strings.Index(view, "prompt 2"), strings.Index(view, "prompt 1"); i > j {
		t.Error("the newest prompt should come first")
	}
	m = update(m, keyMsg("down"))
	next, cmd := updateCmd(m, keyMsg("enter"))
	m = runCmd(t, next, cmd)
	if len(f.forked) != 1 || f.forked[0] != 2 {
		t.Fatalf("forked %v; want before prompt 2", f.forked)
	}
	if got := m.input.ta.value(); got != "second prompt" {
		t.Fatalf("input after the fork = %q; want the prompt back to edit", got)
	}
	m.input.setValue("")
	m = runLine(t, m, "/fork 1")
	if len(f.forked) != 2 || f.forked[1] != 1 {
		t.Fatalf("/fork 1 forked %v", f.forked)
	}
	m.input.setValue("")
	if m = runLine(t, m, "/fork x"); !strings.Contains(lastBlock(m), "usage: /fork [N]") {
		t.Errorf("/fork x: %q", lastBlock(m))
	}
}

func TestClearSaysWhereTheEarlierUndoIs(t *testing.T) {
	f := newFake()
	f.status.SessionID = "20250314-0926-ab12"
	m := transcriptModel(t)
	m.backend = f
	m = runLine(t, m, "/clear")
	if got := strings.Join(strings.Fields(m.tr.text(m.c)), " "); !strings.Contains(got, "/resume 20250314-0926-ab12") || !strings.Contains(got, "myclaw undo --session 20250314-0926-ab12") {
		t.Fatalf("after /clear:\n%s", got)
	}
}

// slowCompactor's Compact waits until it is cancelled.
type slowCompactor struct {
	*fakeBackend
	started chan struct{}
}

func (s *slowCompactor) Compact(ctx context.Context, focus string) (agent.CompactionEvent, error) {
	close(s.started)
	<-ctx.Done()
	return agent.CompactionEvent{}, fmt.Errorf("the summary request failed, nothing was compacted: %w", ctx.Err())
}
func (s *slowCompactor) Uncompact() (string, error) { return "", nil }
func (s *slowCompactor) Keep() (string, error)      { return "", nil }

// startCompaction runs /compact on a backend whose summary waits for a
// cancel; done brings the command's message once it ends.
func startCompaction(t *testing.T) (m Model, done chan tea.Msg) {
	t.Helper()
	f := &slowCompactor{fakeBackend: newFake(), started: make(chan struct{})}
	m = transcriptModel(t)
	m.backend = f
	m = typeText(m, "/compact")
	m.input.closed = true
	m, cmd := updateCmd(m, keyMsg("enter"))
	if cmd == nil || m.compactCancel == nil {
		t.Fatal("/compact started nothing cancellable")
	}
	done = make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	<-f.started
	return m, done
}

func TestEscCancelsACompaction(t *testing.T) {
	m, done := startCompaction(t)
	if !strings.Contains(m.tr.text(m.c), "esc cancels") {
		t.Fatalf("no notice that esc cancels:\n%s", m.tr.text(m.c))
	}
	m = update(m, keyMsg("esc"))
	m = update(m, <-done)
	if m.compactCancel != nil || !strings.Contains(lastBlock(m), "compaction cancelled: nothing was compacted") {
		t.Fatalf("after esc: %q", lastBlock(m))
	}
	if strings.Contains(m.tr.text(m.c), "compacting: the model summarises") {
		t.Fatalf("the progress line stays after the compaction ended:\n%s", m.tr.text(m.c))
	}
}

// quickCompactor has nothing to compact.
type quickCompactor struct{ *fakeBackend }

func (quickCompactor) Compact(context.Context, string) (agent.CompactionEvent, error) {
	return agent.CompactionEvent{}, agent.ErrNothingToCompact
}
func (quickCompactor) Uncompact() (string, error) { return "", nil }
func (quickCompactor) Keep() (string, error)      { return "", nil }

// The progress line of /compact gives way to its result.
func TestCompactionProgressLineGoes(t *testing.T) {
	m := transcriptModel(t)
	m.backend = quickCompactor{newFake()}
	m = runLine(t, m, "/compact")
	got := m.tr.text(m.c)
	if strings.Contains(got, "compacting: the model summarises") || !strings.Contains(lastBlock(m), "nothing to compact") {
		t.Fatalf("after /compact with nothing to compact:\n%s", got)
	}
}

// While a compaction runs, a prompt is queued (and sent after it), and a
// command that changes the conversation waits.
func TestPromptsWaitForACompaction(t *testing.T) {
	m, done := startCompaction(t)
	m = update(typeText(m, "after the compaction"), keyMsg("enter"))
	if len(m.queued) != 1 || m.turn != nil {
		t.Fatalf("queue %q, turn %v; want the prompt queued", m.queued, m.turn != nil)
	}
	m = runLine(t, m, "/undo")
	if status := lines(screen(m))[testHeight-1]; m.input.ta.value() != "/undo" || !strings.Contains(status, "/undo waits for the compaction: kept in the input · esc cancels it") {
		t.Fatalf("/undo during a compaction: input %q, status line %q", m.input.ta.value(), status)
	}
	m.input.setValue("")
	m = update(m, keyMsg("esc"))
	m = update(m, <-done)
	// Cancelled: the queued prompt comes back to the input, unsent.
	if m.turn != nil || len(m.queued) != 0 || m.input.ta.value() != "after the compaction" {
		t.Fatalf("after the cancelled compaction: turn %v, queue %q, input %q", m.turn != nil, m.queued, m.input.ta.value())
	}
}

// /fork lists and gives back a custom command as typed, not the prompt it
// expanded to.
func TestForkShowsCustomCommandAsTyped(t *testing.T) {
	f := &sessionsFake{fakeBackend: newFake()}
	m := newTestModel(t, f)
	m.c.setCustom([]CustomCommand{{Name: "review", Body: "Review $ARGUMENTS with care.\nList every bug.", Path: "/cfg/review.md", Scope: "user"}})
	m = typeText(m, "/review calc.go")
	m.input.closed = true
	m, cmd := updateCmd(m, keyMsg("enter"))
	m = drainTurn(t, m, cmd)
	sent := f.fakeBackend.prompts
	if len(sent) != 1 || !strings.HasPrefix(sent[0], "Review calc.go with care.") {
		t.Fatalf("prompts %q", sent)
	}
	f.prompts = []agent.Prompt{{N: 1, Text: sent[0]}}
	m = runLine(t, m, "/fork")
	view := strings.Join(m.bottomView(), "\n")
	if !strings.Contains(view, "before prompt 1: /review calc.go") || strings.Contains(view, "with care") {
		t.Fatalf("fork picker:\n%s", view)
	}
	m = update(m, keyMsg("down"))
	next, cmd := updateCmd(m, keyMsg("enter"))
	m = runCmd(t, next, cmd)
	if got := m.input.ta.value(); got != "/review calc.go" {
		t.Fatalf("input after the fork = %q; want the line typed", got)
	}
}
