package ui

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/charmbracelet/x/exp/golden"

	"myclaw/agent"
)

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

// The space a completed file mention ends in is not doubled by the space
// typed after it out of habit; a second space still goes in.
func TestCompletedMentionSpaceIsNotDoubled(t *testing.T) {
	fsys := fstest.MapFS{"calc.go": {Data: []byte("x")}, "docs/a.md": {Data: []byte("x")}}
	m := New(newFake(), Options{Workspace: "/work/project", Files: fsys})
	m = update(m, sizeMsg(testWidth, testHeight))
	m = runCmd(t, m, buildIndex(context.Background(), fsys, ""))
	for _, c := range []struct{ typed, want string }{
		{" and", "look at @calc.go and"},
		{"and", "look at @calc.go and"},
		{"  and", "look at @calc.go  and"},
	} {
		m.input.setValue("")
		m = typeText(m, "look at @calc")
		m = update(m, keyMsg("tab"))
		if got := m.input.ta.value(); got != "look at @calc.go " {
			t.Fatalf("completed to %q", got)
		}
		m = typeText(m, c.typed)
		if got := m.input.ta.value(); got != c.want {
			t.Errorf("typed %q after the completion: %q; want %q", c.typed, got, c.want)
		}
	}
	// A folder is left open: no space to take back.
	m.input.setValue("")
	m = typeText(m, "in @doc")
	m = update(m, keyMsg("tab"))
	m = typeText(m, " x")
	if got := m.input.ta.value(); got != "in @docs/ x" {
		t.Errorf("after a folder: %q", got)
	}
}
