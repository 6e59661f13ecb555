package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"myclaw/agent"
)

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

func TestBangRunsShellWithoutModel(t *testing.T) {
	d := &directFake{fakeBackend: newFake()}
	m := newTestModel(t, d)
	m = typeText(m, "!ls -la")
	m, cmd := updateCmd(m, keyMsg("enter"))
	if m.turn == nil {
		t.Fatal("!command did not start a run")
	}
	m = drainTurn(t, m, cmd)
	if len(d.shells) != 1 || d.shells[0] != "ls -la" {
		t.Fatalf("shell calls %q; want [ls -la]", d.shells)
	}
	if len(d.prompts) != 0 {
		t.Fatalf("the command went to the model: %q", d.prompts)
	}
	text := m.tr.text(m.c)
	if !strings.Contains(text, "❯ !ls -la") || !strings.Contains(text, "untrusted · shell:ls -la") {
		t.Fatalf("transcript:\n%s", text)
	}
	m = typeText(m, "!")
	m, _ = updateCmd(m, keyMsg("enter"))
	if !strings.Contains(m.tr.text(m.c), "usage: !command") {
		t.Fatalf("a bare ! gives no usage")
	}
}

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

func TestMentionsAttachBeforeTheTurn(t *testing.T) {
	d := &directFake{fakeBackend: newFake()}
	m := newTestModel(t, d)
	m = typeText(m, "explain @src/main.go and @docs/, not mail@example.com")
	m, cmd := updateCmd(m, keyMsg("enter"))
	drainTurn(t, m, cmd)
	if strings.Join(d.mentions, " ") != "src/main.go docs/" {
		t.Fatalf("mentions %q", d.mentions)
	}
	if len(d.prompts) != 1 {
		t.Fatalf("prompts %q", d.prompts)
	}
}

func TestParseMentions(t *testing.T) {
	for in, want := range map[string]string{
		"@a.go":                  "a.go",
		"see @a.go.":             "a.go",
		"(@dir/), @b.txt?":       "b.txt",
		"x@y.z @@ @ @a.go @a.go": "@ a.go",
	} {
		if got := strings.Join(parseMentions(in), " "); got != want {
			t.Errorf("parseMentions(%q) = %q; want %q", in, got, want)
		}
	}
}

func writeCmd(t *testing.T, dir, name, content string) {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadCommands(t *testing.T) {
	user, proj := t.TempDir(), t.TempDir()
	writeCmd(t, user, "review.md", "---\ndescription: Review a file\nargument-hint: FILE [FOCUS]\n---\nReview $1 with care for $2.\nAll: $ARGUMENTS\n")
	writeCmd(t, user, "help.md", "shadow the builtin")
	writeCmd(t, user, "plain.md", "# Summarise the diff\nSay what changed.")
	writeCmd(t, user, "bad name.md", "x")
	writeCmd(t, proj, "review.md", "the project's review")
	writeCmd(t, proj, "deploy.md", "deploy it")

	cmds, notices := LoadCommands(CommandDir{user, "user", true}, CommandDir{proj, "project", false})
	names := []string{}
	for _, c := range cmds {
		names = append(names, c.Name)
	}
	if strings.Join(names, " ") != "plain review" {
		t.Fatalf("commands %q; want plain review", names)
	}
	all := strings.Join(notices, "\n")
	for _, want := range []string{"/help is a builtin command and cannot be replaced", "bad name.md: a command name uses", "Ignored 2 commands in " + proj + ": this folder is not trusted"} {
		if !strings.Contains(all, want) {
			t.Errorf("notices lack %q:\n%s", want, all)
		}
	}
	if cmds[0].Desc != "Summarise the diff" || cmds[1].Desc != "Review a file" || cmds[1].Hint != "FILE [FOCUS]" {
		t.Errorf("descriptions %+v", cmds)
	}
	if got := cmds[1].expand(`main.go "error handling"`); got != "Review main.go with care for error handling.\nAll: main.go \"error handling\"" {
		t.Errorf("expand: %q", got)
	}
	if got := cmds[0].expand("only HEAD~1"); got != "# Summarise the diff\nSay what changed.\n\nonly HEAD~1" {
		t.Errorf("expand without placeholders: %q", got)
	}
	// Trusted, the project's commands load; the user's review wins.
	cmds, notices = LoadCommands(CommandDir{user, "user", true}, CommandDir{proj, "project", true})
	if len(cmds) != 3 || !strings.Contains(strings.Join(notices, "\n"), "/review is already defined by "+filepath.Join(user, "review.md")) {
		t.Fatalf("trusted: %d commands, notices %q", len(cmds), notices)
	}
}

// A command file's front matter is drawn in /help and the completion
// list: its escape sequences (a window title, the clipboard through OSC 52)
// show there as text and never reach the terminal.
func TestCustomCommandHintCannotDriveTheTerminal(t *testing.T) {
	dir := t.TempDir()
	writeCmd(t, dir, "review.md", "---\ndescription: Review\x1b]0;pwned\x07 a file\nargument-hint: FILE\x1b]52;c;ZXZpbA==\x07 \u202e[x]\n---\nReview $1.")
	cmds, _ := LoadCommands(CommandDir{dir, "user", true})
	if len(cmds) != 1 {
		t.Fatalf("%d commands; want 1", len(cmds))
	}
	c := cmds[0]
	if want := `FILE\e]52;c;ZXZpbA==\a ⟨U+202E⟩[x]`; c.Hint != want {
		t.Errorf("hint %q; want %q", c.Hint, want)
	}
	if want := `Review\e]0;pwned\a a file`; c.Desc != want {
		t.Errorf("description %q; want %q", c.Desc, want)
	}
	m := New(newFake(), Options{Workspace: "/work/project", Commands: func() ([]CustomCommand, []string) {
		return LoadCommands(CommandDir{dir, "user", true})
	}})
	m = update(m, sizeMsg(testWidth, testHeight))
	m = runCmd(t, m, loadCustomCommands(m.loadCommands))
	m = typeText(m, "/rev")
	if s := screen(m); strings.Contains(s, "\x1b]") || !strings.Contains(s, `/review FILE\e]52`) {
		t.Fatalf("completion shows the hint raw or not at all:\n%q", s)
	}
}

func TestCustomCommandRunsAndCompletes(t *testing.T) {
	dir := t.TempDir()
	writeCmd(t, dir, "review.md", "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1.")
	f := newFake()
	m := New(f, Options{Workspace: "/work/project", Commands: func() ([]CustomCommand, []string) {
		return LoadCommands(CommandDir{dir, "user", true})
	}})
	m = update(m, sizeMsg(testWidth, testHeight))
	m = runCmd(t, m, loadCustomCommands(m.loadCommands))
	m = typeText(m, "/rev")
	if !strings.Contains(screen(m), "/review FILE") || !strings.Contains(screen(m), "Review a file (user)") {
		t.Fatalf("completion lacks the custom command:\n%s", screen(m))
	}
	m = update(m, keyMsg("tab"))
	m = typeText(m, "main.go")
	m, cmd := updateCmd(m, keyMsg("enter"))
	drainTurn(t, m, cmd)
	if len(f.prompts) != 1 || f.prompts[0] != "Review main.go." {
		t.Fatalf("prompts %q; want the expanded file", f.prompts)
	}
	m = typeText(m, "/help")
	m = update(m, keyMsg("enter"))
	if !strings.Contains(m.tr.text(m.c), "your commands") {
		t.Fatalf("/help does not list custom commands")
	}
}

func TestContextGolden(t *testing.T) {
	d := &directFake{fakeBackend: newFake(), report: agent.ContextReport{
		Window: 32768, System: 2100, Catalog: 3400, Tools: 12, Conversation: 5200, Messages: 14, Attached: 300, Free: 21768, LastUsage: 10950,
		Instructions: []agent.InstructionShare{
			{Path: "/home/u/.config/myclaw/AGENTS.md", Scope: "user", Tokens: 60},
			{Path: "AGENTS.md", Scope: "project", Untrusted: true, Tokens: 540},
			{Path: "svc/api/AGENTS.md", Scope: "subdir", Untrusted: true, Truncated: true, Tokens: 8192},
		},
	}}
	m := newTestModel(t, d)
	m = typeText(m, "/context")
	m, cmd := updateCmd(m, keyMsg("enter"))
	m = runCmd(t, m, cmd)
	golden.RequireEqual(t, []byte(screen(m)))
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

func TestMentionCompletion(t *testing.T) {
	d := &directFake{fakeBackend: newFake()}
	fsys := fstest.MapFS{
		"ui/markdown.go": {Data: []byte("x")}, "ui/mentions.go": {Data: []byte("x")},
		"docs/guide.md": {Data: []byte("x")}, ".gitignore": {Data: []byte("secret/\n")},
		"secret/keys.txt": {Data: []byte("x")},
	}
	m := New(d, Options{Workspace: "/work/project", Files: fsys})
	m = update(m, sizeMsg(testWidth, testHeight))
	m = runCmd(t, m, buildIndex(context.Background(), fsys, ""))
	m = typeText(m, "explain @mdn")
	if !strings.Contains(screen(m), "› @ui/markdown.go") {
		t.Fatalf("popup:\n%s", screen(m))
	}
	m = update(m, keyMsg("enter")) // takes the match, does not send
	if got := m.input.ta.value(); got != "explain @ui/markdown.go " {
		t.Fatalf("input %q", got)
	}
	m = typeText(m, "and @do")
	m = update(m, keyMsg("tab"))
	if got := m.input.ta.value(); got != "explain @ui/markdown.go and @docs/" {
		t.Fatalf("a folder stays open: input %q", got)
	}
	m = typeText(m, "g")
	if !strings.Contains(screen(m), "@docs/guide.md") {
		t.Fatalf("popup inside the folder:\n%s", screen(m))
	}
	m = typeText(m, " @sec")
	if strings.Contains(screen(m), "@secret") {
		t.Fatalf("an ignored folder is offered:\n%s", screen(m))
	}
}

func TestMentionChipGolden(t *testing.T) {
	m := newTestModel(t, newFake())
	m = startFakeTurn(t, m, "explain @main.go")
	read := agent.Call{ID: "user_mention_1", Tool: "fs_read", Wire: "fs_read", Args: []byte(`{"path":"main.go"}`), Attached: true}
	missing := agent.Call{ID: "user_mention_2", Tool: "fs_read", Wire: "fs_read", Args: []byte(`{"path":"nope.go"}`), Attached: true}
	m = events(m,
		agent.ToolCallEvent{Call: read, Phase: "started"},
		agent.ToolResultEvent{Call: read, Status: agent.StatusOK, Summary: "Read main.go (lines 1-3 of 3)", Untrusted: true,
			Source: "file:main.go", RetrievedAt: testTime, Body: "package main\n\nfunc main() {}\n"},
		agent.ToolCallEvent{Call: missing, Phase: "started"},
		agent.ToolResultEvent{Call: missing, Status: agent.StatusError, Kind: "not_found", Message: "nope.go does not exist"},
		agent.TextDelta{Text: "It is an empty program."},
		agent.DoneEvent{Reason: agent.DoneStop},
	)
	m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true}}})
	t.Run("collapsed", func(t *testing.T) { golden.RequireEqual(t, []byte(screen(m))) })
	t.Run("expanded", func(t *testing.T) { golden.RequireEqual(t, []byte(screen(update(m, keyMsg("ctrl+o"))))) })
}

type costFake struct {
	*fakeBackend
	rep agent.CostReport
}

func (c *costFake) Cost() agent.CostReport { return c.rep }

// runOnly is the report of a session whose requests were all this run's
// and all turns.
func runOnly(u agent.Usage, prices agent.Prices) agent.CostReport {
	return agent.CostReport{Usage: u, Run: u, Kinds: []agent.KindUsage{{Kind: agent.RequestTurn, Usage: u}}, Prices: prices}
}

func TestCostGolden(t *testing.T) {
	turns := agent.Usage{Requests: 7, PromptTokens: 40200, CompletionTokens: 2600, Cost: 0.0350, CostKnown: true, ServerCost: true}
	compaction := agent.Usage{Requests: 1, PromptTokens: 6000, CompletionTokens: 400, Cost: 0.0060, CostKnown: true, ServerCost: true}
	sampling := agent.Usage{Requests: 1, PromptTokens: 2000, CompletionTokens: 100, Cost: 0.0011, CostKnown: true, ServerCost: true}
	for name, rep := range map[string]agent.CostReport{
		"server":  runOnly(agent.Usage{Requests: 7, PromptTokens: 48200, CompletionTokens: 3100, Cost: 0.0421, CostKnown: true, ServerCost: true}, agent.Prices{}),
		"prices":  runOnly(agent.Usage{Requests: 3, PromptTokens: 12000, CompletionTokens: 900, Estimated: true, Cost: 0.0495, CostKnown: true}, agent.Prices{Input: 3, Output: 15}),
		"unknown": runOnly(agent.Usage{Requests: 1, PromptTokens: 900, CompletionTokens: 40}, agent.Prices{}),
		// A resumed session that compacted and answered an MCP server:
		// the split by kind, and this run's part of the whole.
		"split": {
			Usage: agent.Usage{Requests: 9, PromptTokens: 48200, CompletionTokens: 3100, Cost: 0.0421, CostKnown: true, ServerCost: true},
			Kinds: []agent.KindUsage{{Kind: agent.RequestTurn, Usage: turns}, {Kind: agent.RequestCompaction, Usage: compaction}, {Kind: agent.RequestSampling, Usage: sampling}},
			Run:   agent.Usage{Requests: 2, PromptTokens: 8000, CompletionTokens: 500, Cost: 0.0071, CostKnown: true, ServerCost: true},
		},
		// Resumed, before this run's first request.
		"resumed": {Usage: turns, Kinds: []agent.KindUsage{{Kind: agent.RequestTurn, Usage: turns}}},
		// A session resumed from before usage was recorded.
		"uncounted": {
			Usage:     agent.Usage{Requests: 1, PromptTokens: 900, CompletionTokens: 40},
			Kinds:     []agent.KindUsage{{Kind: agent.RequestTurn, Usage: agent.Usage{Requests: 1, PromptTokens: 900, CompletionTokens: 40}}},
			Run:       agent.Usage{Requests: 1, PromptTokens: 900, CompletionTokens: 40},
			Uncounted: true,
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake()
			if rep.CostKnown {
				f.status.Cost, f.status.CostKnown = rep.Cost, true
			}
			m := newTestModel(t, &costFake{fakeBackend: f, rep: rep})
			m = typeText(m, "/cost")
			m, cmd := updateCmd(m, keyMsg("enter"))
			m = runCmd(t, m, cmd)
			golden.RequireEqual(t, []byte(screen(m)))
		})
	}
}

// A mention typed out in full is sent with one Enter, not completed again.
func TestEnterSendsAFullMention(t *testing.T) {
	d := &directFake{fakeBackend: newFake()}
	fsys := fstest.MapFS{"f.txt": {Data: []byte("x")}}
	m := New(d, Options{Workspace: "/work/project", Files: fsys})
	m = update(m, sizeMsg(testWidth, testHeight))
	m = runCmd(t, m, buildIndex(context.Background(), fsys, ""))
	m = typeText(m, "hi @f.txt")
	if !strings.Contains(screen(m), "› @f.txt") {
		t.Fatalf("popup:\n%s", screen(m))
	}
	m, _ = updateCmd(m, keyMsg("enter"))
	if m.input.ta.value() != "" || m.turn == nil {
		t.Fatalf("one Enter did not send: input %q, turn %v", m.input.ta.value(), m.turn != nil)
	}
}
