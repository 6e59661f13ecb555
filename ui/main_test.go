package ui

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"myclaw/agent"
	"myclaw/approval"
	"myclaw/history"
)

// Tests draw at a fixed size with no colours, so that golden files are
// plain text and do not depend on the terminal running the tests.
const (
	testWidth  = 80
	testHeight = 24
)

func TestMain(m *testing.M) {
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	paneArmDelay = 0 // panes take keys at once; TestPaneIgnoresTypeAhead arms it
	os.Exit(m.Run())
}

// fakeBackend is a Backend for tests: Run calls runFn, the other methods
// record their calls and return what the test set.
type fakeBackend struct {
	mu sync.Mutex

	runFn   func(ctx context.Context, prompt string, emit func(agent.Event), ap approval.Approver) error
	prompts []string

	undoCalls [][2]any // {n, force}
	undoOut   string
	undoErr   error
	redoCalls []int
	redoOut   string

	entries   []history.Entry
	models    []string
	modelsErr error
	diffOut   string
	diffErr   error
	diffCalls []int
	tools     []agent.ToolInfo
	level     approval.Level
	model     string
	sessions  []history.SessionInfo
	status    agent.Status
	checkErr  error
	cleared   int
}

func newFake() *fakeBackend {
	return &fakeBackend{level: approval.Ask, model: "test-model",
		status: agent.Status{Model: "test-model", TokensUsed: 1200, ContextWindow: 128000, UndoDepth: 2}}
}

func (f *fakeBackend) Run(ctx context.Context, prompt string, emit func(agent.Event), ap approval.Approver) error {
	f.mu.Lock()
	f.prompts = append(f.prompts, prompt)
	fn := f.runFn
	f.mu.Unlock()
	if fn == nil {
		emit(agent.TextDelta{Text: "ok"})
		emit(agent.DoneEvent{Reason: agent.DoneStop, Rounds: 1})
		return nil
	}
	return fn(ctx, prompt, emit, ap)
}

func (f *fakeBackend) Undo(ctx context.Context, n int, force bool) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.undoCalls = append(f.undoCalls, [2]any{n, force})
	return f.undoOut, f.undoErr
}

func (f *fakeBackend) Redo(ctx context.Context, n int) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.redoCalls = append(f.redoCalls, n)
	return f.redoOut, nil
}

func (f *fakeBackend) Diff(seq int) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.diffCalls = append(f.diffCalls, seq)
	return f.diffOut, f.diffErr
}

func (f *fakeBackend) History() ([]history.Entry, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.entries, nil
}

func (f *fakeBackend) Tools() []agent.ToolInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tools
}

func (f *fakeBackend) Autonomy() approval.Level {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.level
}

func (f *fakeBackend) SetAutonomy(level approval.Level) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.level = level
}

func (f *fakeBackend) Model() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.model
}

func (f *fakeBackend) SetModel(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.model = name
	f.status.Model = name
}

func (f *fakeBackend) Models(ctx context.Context) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.models, f.modelsErr
}

func (f *fakeBackend) NewConversation() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleared++
	return nil
}

func (f *fakeBackend) Sessions() ([]history.SessionInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessions, nil
}

func (f *fakeBackend) Status() agent.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.status
}

func (f *fakeBackend) CheckServer(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.checkErr
}

// newTestModel is a model at the test size.
func newTestModel(t testing.TB, b Backend) Model {
	t.Helper()
	m := New(b, Options{Workspace: "/work/project"})
	return update(m, tea.WindowSizeMsg{Width: testWidth, Height: testHeight})
}

// update runs one message through Update and drops the command.
func update(m Model, msg tea.Msg) Model {
	next, _ := m.Update(msg)
	return next.(Model)
}

// updateCmd runs one message through Update and returns the command.
func updateCmd(m Model, msg tea.Msg) (Model, tea.Cmd) {
	next, cmd := m.Update(msg)
	return next.(Model), cmd
}

// keyMsg builds the key message Bubble Tea sends for a key name.
func keyMsg(k string) tea.KeyMsg {
	types := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "esc": tea.KeyEsc, "ctrl+c": tea.KeyCtrlC, "tab": tea.KeyTab,
		"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
		"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "home": tea.KeyHome, "end": tea.KeyEnd,
		"backspace": tea.KeyBackspace, "ctrl+j": tea.KeyCtrlJ, "ctrl+o": tea.KeyCtrlO,
		"ctrl+r": tea.KeyCtrlR, "shift+tab": tea.KeyShiftTab, "ctrl+w": tea.KeyCtrlW,
		"ctrl+home": tea.KeyCtrlHome, "ctrl+end": tea.KeyCtrlEnd, "ctrl+left": tea.KeyCtrlLeft, "ctrl+right": tea.KeyCtrlRight,
	}
	if k == "alt+enter" {
		return tea.KeyMsg{Type: tea.KeyEnter, Alt: true}
	}
	if k == " " {
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune(" ")}
	}
	if t, ok := types[k]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// typeText sends s one key at a time.
func typeText(m Model, s string) Model {
	for _, r := range s {
		m = update(m, keyMsg(string(r)))
	}
	return m
}

// screen is the current frame without escape sequences (only the cursor
// draws any under the ASCII profile).
func screen(m Model) string { return ansi.Strip(m.View()) }

// runCmd executes a command that does not block (a backend call) and
// feeds its message back, recursively for batches.
func runCmd(t testing.TB, m Model, cmd tea.Cmd) Model {
	t.Helper()
	if cmd == nil {
		return m
	}
	msg := cmd()
	switch msg := msg.(type) {
	case nil:
		return m
	case tea.BatchMsg:
		for _, c := range msg {
			m = runCmd(t, m, c)
		}
		return m
	}
	next, cmd2 := m.Update(msg)
	return runCmd(t, next.(Model), cmd2)
}

// events feeds events of the running turn to the model, then publishes.
func events(m Model, evs ...agent.Event) Model {
	items := make([]turnItem, len(evs))
	for i, ev := range evs {
		items[i] = turnItem{ev: ev}
	}
	m = update(m, eventsMsg{turn: m.turn.id, items: items})
	return update(m, renderTickMsg{})
}

// startFakeTurn starts a turn whose goroutine is not run: the test plays
// the events itself. It returns the model and the turn's cancel check.
func startFakeTurn(t testing.TB, m Model, prompt string) Model {
	t.Helper()
	m = typeText(m, prompt)
	m, _ = updateCmd(m, keyMsg("enter"))
	if m.turn == nil {
		t.Fatalf("got no running turn after enter; want one")
	}
	return m
}

func sizeMsg(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

// lines splits a screen into its lines.
func lines(s string) []string { return strings.Split(s, "\n") }

// directFake adds !command, @mentions and /context to the fake backend.
type directFake struct {
	*fakeBackend
	dmu      sync.Mutex
	shells   []string
	mentions []string
	report   agent.ContextReport
}

func (d *directFake) RunShell(ctx context.Context, command string, emit func(agent.Event)) error {
	d.dmu.Lock()
	d.shells = append(d.shells, command)
	d.dmu.Unlock()
	c := call("user_shell_1", "shell_run", `{"command":"`+command+`"}`)
	emit(agent.ToolCallEvent{Call: c, Phase: "started"})
	emit(agent.ToolResultEvent{Call: c, Status: agent.StatusOK, Untrusted: true, Source: "shell:" + command, RetrievedAt: testTime, Body: "hello\n"})
	emit(agent.DoneEvent{Reason: agent.DoneStop})
	return nil
}

func (d *directFake) Mention(ctx context.Context, path string, emit func(agent.Event)) error {
	d.dmu.Lock()
	d.mentions = append(d.mentions, path)
	d.dmu.Unlock()
	return nil
}

func (d *directFake) Context() agent.ContextReport { return d.report }

// drainTurn runs a turn's commands until it ends.
func drainTurn(t *testing.T, m Model, cmd tea.Cmd) Model {
	t.Helper()
	msgs := []tea.Msg{}
	var run func(c tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			for _, c := range msg {
				run(c)
			}
		case spinnerTickMsg:
		case nil:
		default:
			msgs = append(msgs, msg)
		}
	}
	// The batch holds the run (returns nil), the event wait and the spinner.
	if b, ok := cmd().(tea.BatchMsg); ok {
		for _, c := range b {
			run(c)
		}
	}
	for len(msgs) > 0 && m.turn != nil {
		msg := msgs[0]
		msgs = msgs[1:]
		var next tea.Cmd
		m, next = updateCmd(m, msg)
		run(next)
	}
	if m.turn != nil {
		t.Fatal("the turn did not end")
	}
	return m
}
