package ui

import (
	"errors"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"fmt"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/history"
	"myclaw/tools"
)

func catalog() []agent.ToolInfo {
	b := tools.SourceBuiltin
	return []agent.ToolInfo{
		{Meta: tools.Meta{Name: "fs_read", ReadOnly: true, ReturnsUntrusted: true, Idempotent: true, SupportsDryRun: true, Capability: "fs:read", Source: b}, Wire: "fs_read", Visible: true},
		{Meta: tools.Meta{Name: "fs_write", Risk: tools.RiskMedium, SupportsDryRun: true, Capability: "fs:write", Source: b}, Wire: "fs_write", Visible: true},
		{Meta: tools.Meta{Name: "shell_run", Risk: tools.RiskHigh, ReturnsUntrusted: true, Capability: "shell:exec", Source: b}, Wire: "shell_run", Visible: true},
		{Meta: tools.Meta{Name: "web_fetch", ReadOnly: true, ReturnsUntrusted: true, Idempotent: true, Capability: "net:http", Source: b}, Wire: "web_fetch", Visible: true},
		{Meta: tools.Meta{Name: "memory_store", Risk: tools.RiskLow, Capability: "memory:write", Source: b}, Wire: "memory_store",
			Hidden: "autonomy level readonly hides tools with side effects"},
		{Meta: tools.Meta{Name: "github/create_issue", Capability: "mcp:github", Source: tools.SourceMCP}, Wire: "github_create_issue",
			Hidden: "the MCP server github is not running"},
	}
}

// runLine types a slash command, presses enter and runs what it starts.
func runLine(t *testing.T, m Model, line string) Model {
	t.Helper()
	m = typeText(m, line)
	m.input.closed = true // the popup would complete rather than run
	next, cmd := updateCmd(m, keyMsg("enter"))
	return runCmd(t, next, cmd)
}

// lastBlock is the text of the newest transcript block.
func lastBlock(m Model) string {
	return strings.Join(m.tr.blocks[len(m.tr.blocks)-1].lines(m.c), "\n")
}

func TestCommandGolden(t *testing.T) {
	f := newFake()
	f.tools = catalog()
	tests := []struct{ name, line string }{
		{"tools", "/tools"},
		{"help", "/help"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := runLine(t, newTestModel(t, f), tt.line)
			golden.RequireEqual(t, []byte(lastBlock(m)))
		})
	}
}

func TestUnknownCommandSuggests(t *testing.T) {
	tests := []struct{ typed, want string }{
		{"/hepl", "did you mean /help?"},
		{"/undoo", "did you mean /undo?"},
		{"/sesions", "did you mean /sessions?"},
		{"/autonmy full", "did you mean /autonomy?"},
		{"/zzzzzzzz", "/help lists the commands"},
	}
	if m := runLine(t, newTestModel(t, newFake()), "/bogus"); strings.Contains(lastBlock(m), "did you mean") {
		t.Errorf("/bogus: %q; want no far-fetched suggestion", lastBlock(m))
	}
	for _, tt := range tests {
		t.Run(tt.typed, func(t *testing.T) {
			m := runLine(t, newTestModel(t, newFake()), tt.typed)
			got := lastBlock(m)
			name := strings.Fields(tt.typed)[0]
			if !strings.Contains(got, "unknown command "+name) || !strings.Contains(got, tt.want) {
				t.Errorf("got %q; want it to name %s and say %q", got, name, tt.want)
			}
		})
	}
}

func TestCompletion(t *testing.T) {
	m := typeText(newTestModel(t, newFake()), "/un")
	if s := screen(m); !strings.Contains(s, "› /undo [N] [--force]") || !strings.Contains(s, "revert the newest N reversible calls") {
		t.Fatalf("got no popup with /undo and its description:\n%s", s)
	}
	m = update(m, keyMsg("tab"))
	if got := m.input.ta.value(); got != "/undo " {
		t.Errorf("got %q after tab; want %q", got, "/undo ")
	}

	m = typeText(newTestModel(t, newFake()), "/h")
	if got := len(m.input.matches); got != 2 {
		t.Fatalf("got %d matches for /h; want 2 (/help, /history)", got)
	}
	m = update(m, keyMsg("down"))
	m = update(m, keyMsg("enter"))
	if got := m.input.ta.value(); got != "/history" {
		t.Errorf("got %q after down+enter; want the second match completed, not run", got)
	}
	next, cmd := updateCmd(m, keyMsg("enter"))
	if cmd == nil || next.input.ta.value() != "" {
		t.Errorf("got no /history run on the second enter")
	}
}

func TestUndoRedoCommands(t *testing.T) {
	tests := []struct {
		line     string
		wantUndo [][2]any
		wantRedo []int
		wantText string
	}{
		{"/undo", [][2]any{{1, false}}, nil, "Reverted fs_write notes/a.txt"},
		{"/undo 3 --force", [][2]any{{3, true}}, nil, "Reverted fs_write notes/a.txt"},
		{"/undo --force 2", [][2]any{{2, true}}, nil, "Reverted"},
		{"/undo zero", nil, nil, "usage: /undo [N] [--force]"},
		{"/undo -1", nil, nil, "usage: /undo [N] [--force]"},
		{"/redo 2", nil, []int{2}, "Re-applied"},
		{"/redo --force", nil, nil, "usage: /redo [N]"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			f := newFake()
			f.undoOut = "Reverted fs_write notes/a.txt\n"
			f.redoOut = "Re-applied fs_write notes/a.txt"
			m := runLine(t, newTestModel(t, f), tt.line)
			if len(f.undoCalls) != len(tt.wantUndo) || (len(tt.wantUndo) > 0 && f.undoCalls[0] != tt.wantUndo[0]) {
				t.Errorf("got undo calls %v; want %v", f.undoCalls, tt.wantUndo)
			}
			if len(f.redoCalls) != len(tt.wantRedo) || (len(tt.wantRedo) > 0 && f.redoCalls[0] != tt.wantRedo[0]) {
				t.Errorf("got redo calls %v; want %v", f.redoCalls, tt.wantRedo)
			}
			if got := m.tr.text(m.c); !strings.Contains(got, tt.wantText) {
				t.Errorf("got transcript without %q:\n%s", tt.wantText, got)
			}
		})
	}
}

func TestUndoConflictShowsForceHint(t *testing.T) {
	f := newFake()
	f.undoErr = &tools.Conflict{What: "notes/a.txt", Detail: "contents differ"}
	m := runLine(t, newTestModel(t, f), "/undo")
	got := m.tr.text(m.c)
	if !strings.Contains(got, "✗ notes/a.txt changed since the call: contents differ") || !strings.Contains(got, "/undo --force") {
		t.Errorf("got %q; want the conflict and the --force hint", got)
	}
}

func TestAutonomyAndModelCommands(t *testing.T) {
	f := newFake()
	m := runLine(t, newTestModel(t, f), "/autonomy")
	if got := lastBlock(m); !strings.Contains(got, "autonomy: ask") || !strings.Contains(got, "› ask") || !strings.Contains(got, "auto-edit") {
		t.Errorf("got %q; want the level and the list", got)
	}
	if got := strings.Join(strings.Fields(lastBlock(m)), " "); !strings.Contains(got, "everything runs without asking, commands confined to the workspace; deny rules still hold") {
		t.Errorf("the list cuts what full does at %d columns:\n%s", testWidth, lastBlock(m))
	}
	m = runLine(t, m, "/autonomy full")
	if f.Autonomy() != approval.Full {
		t.Errorf("got level %q; want full", f.Autonomy())
	}
	if last := lines(screen(m))[testHeight-1]; !strings.Contains(last, "full") {
		t.Errorf("got status line %q; want the new level", last)
	}
	m = runLine(t, m, "/autonomy reckless")
	if got := lastBlock(m); !strings.Contains(got, `unknown autonomy level "reckless"`) {
		t.Errorf("got %q; want the bad level named", got)
	}
	m = runLine(t, m, "/model bigger-model")
	if f.Model() != "bigger-model" || !strings.Contains(lines(screen(m))[testHeight-1], "bigger-model") {
		t.Errorf("got model %q and status %q; want bigger-model in both", f.Model(), lines(screen(m))[testHeight-1])
	}
}

// A command that changes what the turn works with waits for it: it goes
// back in the input, and the status line says so until the next key. Drawn
// in the transcript, the refusal landed inside the answer being streamed
// and scrolled away with it.
func TestBusyCommandsWait(t *testing.T) {
	f := newFake()
	m := startFakeTurn(t, newTestModel(t, f), "go")
	m = events(m, agent.TextDelta{Text: "The answer streams on"})
	before := m.tr.text(m.c)
	for _, line := range []string{"/undo", "/resume 20250314-0926-ab12"} {
		m = runLine(t, m, line)
		name := strings.Fields(line)[0]
		status := lines(screen(m))[testHeight-1]
		if len(f.undoCalls) != 0 || m.input.ta.value() != line || !strings.Contains(status, name+" waits for the turn: kept in the input · esc cancels it") {
			t.Errorf("%s during a turn: undo calls %v, input %q, status line %q; want it kept in the input and said on the status line", line, f.undoCalls, m.input.ta.value(), status)
		}
		if got := m.tr.text(m.c); got != before {
			t.Errorf("%s during a turn drew in the transcript:\n%s", line, got)
		}
		m.input.setValue("")
	}
	// The next key takes the notice away.
	m = update(m, keyMsg("x"))
	if status := lines(screen(m))[testHeight-1]; strings.Contains(status, "waits for") || !strings.Contains(status, "esc cancels") {
		t.Errorf("status line %q after a key; want the turn's own again", status)
	}
	m.input.setValue("")
	// Once the turn is over, Enter sends the command kept in the input.
	m = runLine(t, m, "/undo")
	m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true}}})
	if status := lines(screen(m))[testHeight-1]; strings.Contains(status, "waits for") {
		t.Errorf("status line %q after the turn ended; want the notice gone", status)
	}
	m.input.closed = true
	next, cmd := updateCmd(m, keyMsg("enter"))
	m = runCmd(t, next, cmd)
	if len(f.undoCalls) != 1 {
		t.Errorf("undo calls %v after enter once the turn ended; want the kept /undo run", f.undoCalls)
	}
	m = startFakeTurn(t, m, "go on")
	f.entries = []history.Entry{{Seq: 1, Tool: "fs_write", Summary: "Create a.txt", State: history.StateApplied, Time: testTime}}
	m = runLine(t, m, "/history")
	if got := lastBlock(m); !strings.Contains(got, "#1") || !strings.Contains(got, "Create a.txt") || !strings.Contains(got, "applied") {
		t.Errorf("got %q; want /history to run during a turn", got)
	}
}

func TestClearAndSessions(t *testing.T) {
	f := newFake()
	f.sessions = []history.SessionInfo{{ID: "20250314-0926-ab12", Model: "test-model", Updated: testTime, Title: "Add a note"}}
	m := transcriptModel(t)
	m.backend = f
	m = runLine(t, m, "/clear")
	if f.cleared != 1 || strings.Contains(m.tr.text(m.c), "fs_write") || !strings.Contains(m.tr.text(m.c), "new conversation") {
		t.Errorf("got cleared=%d and transcript %q; want a fresh transcript", f.cleared, m.tr.text(m.c))
	}
	m = runLine(t, m, "/sessions")
	if got := lastBlock(m); !strings.Contains(got, "20250314-0926-ab12") || !strings.Contains(got, "Add a note") {
		t.Errorf("got %q; want the session listed", got)
	}
}

func TestCommandErrorsShown(t *testing.T) {
	f := newFake()
	f.undoErr = errors.New("journal unreadable: permission denied")
	m := runLine(t, newTestModel(t, f), "/undo")
	if got := m.tr.text(m.c); !strings.Contains(got, "✗ journal unreadable: permission denied") {
		t.Errorf("got %q; want the error line", got)
	}
}

func TestQuitCommand(t *testing.T) {
	m := typeText(newTestModel(t, newFake()), "/quit")
	m.input.closed = true
	_, cmd := updateCmd(m, keyMsg("enter"))
	if cmd == nil {
		t.Fatal("got no command from /quit")
	}
	if msg := cmd(); msg != (tea.QuitMsg{}) {
		t.Errorf("got %#v from /quit; want tea.QuitMsg{}", msg)
	}
}

func TestModelSwitchChecksTheServer(t *testing.T) {
	f := newFake()
	f.checkErr = &agent.UserError{Msg: `The server has no model "nope".`, Hint: "The server offers: test-model."}
	m := runLine(t, newTestModel(t, f), "/model nope")
	got := lastBlock(m)
	if !strings.Contains(got, `no model "nope"`) || !strings.Contains(got, "offers: test-model") {
		t.Fatalf("got %q; want the server's answer and its hint", got)
	}
	if f.Model() != "nope" {
		t.Fatalf("model %q; the switch still happens (the user may be about to start it)", f.Model())
	}
}

// Every command of the table has its handler, and no handler is left
// without a command.
func TestEveryCommandHasAHandler(t *testing.T) {
	for _, c := range commands {
		if c.run == nil {
			t.Errorf("/%s has no handler", c.name)
		}
	}
	for name := range handlers {
		if _, ok := lookupCommand(name); !ok {
			t.Errorf("handler %q has no command in the table", name)
		}
	}
}

func TestInitAsksForAgentsMD(t *testing.T) {
	f := newFake()
	m := newTestModel(t, f)
	m = typeText(m, "/init")
	m, cmd := updateCmd(m, keyMsg("enter"))
	drainTurn(t, m, cmd)
	if len(f.prompts) != 1 || !strings.Contains(f.prompts[0], "write an AGENTS.md at the workspace root with fs_write") {
		t.Fatalf("prompts %q", f.prompts)
	}
}

// A command sent while scrolled up shows its answer: submitting follows the
// bottom again, as a prompt does.
func TestSubmittingACommandFollowsTheBottom(t *testing.T) {
	m := newTestModel(t, newFake())
	for i := range 40 {
		m.tr.add(noticeBlock(fmt.Sprintf("line %d", i)))
	}
	m = update(m, keyMsg("pgup"))
	m = update(typeText(m, "/permissions"), keyMsg("enter"))
	if !m.tr.follow {
		t.Fatalf("after /permissions the transcript stays scrolled up:\n%s", screen(m))
	}
}

// A long list item wraps at spaces under its text, past its bullet.
func TestTextDrawHangsListItems(t *testing.T) {
	c := testCommon()
	c.width = 80
	got := textDraw("The sandbox allows:\n  - writes in /work/project/build-output/cache and every folder below it, and reads of the whole home folder\nend")(c)
	want := []string{
		"  The sandbox allows:",
		"    - writes in /work/project/build-output/cache and every folder below it,",
		"      and reads of the whole home folder",
		"  end",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
