package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"myclaw/agent"
	"myclaw/history"
)

// shellChange is a command that changed five files, as its card shows it.
func shellChange() (agent.Call, agent.ToolResultEvent) {
	c := call("c1", "shell_run", `{"command":"sed -i s/a/b/ *.txt"}`)
	code := 0
	return c, agent.ToolResultEvent{Call: c, Status: agent.StatusOK, Summary: "Ran `sed -i s/a/b/ *.txt`: exit 0 in 20ms, changed 5 files",
		Duration: 40 * time.Millisecond, Reversible: true, ExitCode: &code,
		UndoPlan: "Undo restores 5 files in the workspace (5 modified)"}
}

func journalEntry(state history.State, redone bool) history.Entry {
	return history.Entry{Seq: 1, CallID: "c1", Tool: "shell_run", Summary: "changed 5 files", Reversible: true, State: state, Redone: redone}
}

// typeWalk types an /undo or /redo and runs what it starts.
func typeWalk(t *testing.T, m Model, line string) Model {
	t.Helper()
	m = typeText(m, line)
	m, cmd := updateCmd(m, keyMsg("enter"))
	return runCmd(t, m, cmd)
}

func TestCardSaysUndoneAndRedone(t *testing.T) {
	f := newFake()
	m := newTestModel(t, f)
	m = startFakeTurn(t, m, "change the texts")
	c, res := shellChange()
	m = events(m, agent.ToolCallEvent{Call: c, Phase: "started"}, res, agent.DoneEvent{Reason: agent.DoneStop, Rounds: 1})
	m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true}}})

	f.undoOut, f.entries = "Undid shell_run: changed 5 files", []history.Entry{journalEntry(history.StateUndone, false)}
	m = typeWalk(t, m, "/undo")
	view := screen(m)
	if strings.Contains(view, "Undo restores") {
		t.Errorf("the undone call's card still offers its undo:\n%s", view)
	}
	golden.RequireEqual(t, []byte(view))

	f.redoOut, f.entries = "Redid shell_run: changed 5 files", []history.Entry{journalEntry(history.StateApplied, true)}
	m = typeWalk(t, m, "/redo")
	t.Run("redone", func(t *testing.T) { golden.RequireEqual(t, []byte(screen(m))) })
}

// A resumed session's cards take the state of their calls from the
// journal: undone, redone, or still revertible.
func TestResumedCardsTakeTheJournalsState(t *testing.T) {
	_, res := shellChange()
	write := call("c2", "fs_write", `{"path":"notes.md","content":"x"}`)
	wres := agent.ToolResultEvent{Call: write, Status: agent.StatusOK, Summary: "Created notes.md (1 B)", Reversible: true}
	f := newFake()
	f.entries = []history.Entry{journalEntry(history.StateUndone, false),
		{Seq: 2, CallID: "c2", Tool: "fs_write", Reversible: true, State: history.StateApplied}}
	m := New(f, Options{Workspace: "/work/project", Earlier: []Earlier{
		{Role: "user", Text: "change the texts"},
		{Role: "tool", Call: &agent.CallRecord{Result: res}},
		{Role: "tool", Call: &agent.CallRecord{Result: wres}},
	}})
	m = update(m, tea.WindowSizeMsg{Width: testWidth, Height: testHeight})
	if !strings.Contains(screen(m), "changed 5 files") || strings.Contains(screen(m), "undone") {
		t.Fatalf("before the journal is read the card should be as recorded:\n%s", screen(m))
	}
	m = runCmd(t, m, loadJournalIfPast(t, m))
	golden.RequireEqual(t, []byte(screen(m)))
}

// loadJournalIfPast is the journal read that Init starts for a resumed
// session.
func loadJournalIfPast(t *testing.T, m Model) tea.Cmd {
	t.Helper()
	if !m.hasPastCards() {
		t.Fatal("the resumed cards are not marked as past")
	}
	return loadJournal(m.backend)
}
