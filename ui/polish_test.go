package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"myclaw/agent"
	"myclaw/tools"
)

func TestWelcomeLine(t *testing.T) {
	f := newFake()
	m := update(New(f, Options{Version: "1.4.0", Server: "http://localhost:11434/v1"}), sizeMsg(100, 30))
	if got := screen(m); !strings.Contains(got, "myclaw 1.4.0 · test-model at http://localhost:11434/v1 · checking the server…") ||
		!strings.Contains(got, "edits and commands wait for your approval") {
		t.Fatalf("first frame:\n%s", got)
	}
	if got := screen(update(m, serverCheckedMsg{})); !strings.Contains(got, "· server ready") {
		t.Fatalf("after the check:\n%s", got)
	}
	if got := screen(update(m, serverCheckedMsg{err: errors.New("no server")})); !strings.Contains(got, "· server check failed (below)") {
		t.Fatalf("after a failed check:\n%s", got)
	}
}

// Scrolled up while output arrives, the last row says so; following the
// bottom again clears it.
func TestNewOutputIndicator(t *testing.T) {
	m := newTestModel(t, newFake())
	for i := range 40 {
		m.tr.add(noticeBlock(fmt.Sprintf("line %d", i)))
	}
	const mark = "↓ new output · ctrl+end to follow"
	m = startFakeTurn(t, m, "go")
	m = update(m, keyMsg("pgup"))
	if strings.Contains(screen(m), mark) {
		t.Fatal("the indicator shows before any new output")
	}
	m = events(m, agent.TextDelta{Text: "streaming"})
	if got := lines(screen(m)); !strings.Contains(strings.Join(got, "\n"), mark) {
		t.Fatalf("scrolled up during a stream, no indicator:\n%s", strings.Join(got, "\n"))
	}
	m = update(m, keyMsg("ctrl+end"))
	if strings.Contains(screen(m), mark) {
		t.Fatal("the indicator stays after following the bottom again")
	}
}

func TestWarningNotices(t *testing.T) {
	m := newTestModel(t, newFake())
	m = startFakeTurn(t, m, "go")
	m = events(m, agent.NoticeEvent{Text: "Loaded a/AGENTS.md"}, agent.NoticeEvent{Text: "Could not save the rule: disk full", Warning: true})
	got := screen(m)
	if !strings.Contains(got, "! Could not save the rule: disk full") || strings.Contains(got, "! Loaded") {
		t.Fatalf("notices not told apart:\n%s", got)
	}
}

func TestToolsUsesTheWidthAndShowsTheSchema(t *testing.T) {
	f := newFake()
	long := "github/create_pull_request_review_comment"
	f.tools = append(catalog(), agent.ToolInfo{
		Meta: tools.Meta{Name: long, Source: tools.SourceMCP, Capability: "mcp:github",
			Description: "Comment on a pull request.\n\nUse it for:\n- a line of the diff\n- a whole file",
			Schema:      json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"File in the repository."},"line":{"type":"integer","minimum":1},"side":{"type":"string","enum":["LEFT","RIGHT"],"default":"RIGHT"},"labels":{"type":"array","items":{"type":"string"}}},"required":["path"]}`)},
		Wire: "github_create_pull_request_review_comment", Visible: true,
	})
	m := update(newTestModel(t, f), sizeMsg(120, 40))
	m = runLine(t, m, "/tools")
	if got := lastBlock(m); !strings.Contains(got, long+" mcp") {
		t.Fatalf("/tools at 120 columns cuts the name:\n%s", got)
	}
	m = runLine(t, m, "/tools "+long)
	got := lastBlock(m)
	for _, want := range []string{
		"Use it for:", "- a line of the diff", "- a whole file",
		"input", "path (string, required)", "File in the repository.",
		"line (integer, optional, ≥ 1)", `side (string, optional, one of "LEFT", "RIGHT", default "RIGHT")`,
		"labels (array of string, optional)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("/tools NAME lacks %q:\n%s", want, got)
		}
	}
	if i, j := strings.Index(got, "path ("), strings.Index(got, "labels ("); i < 0 || j < i {
		t.Errorf("arguments not in the schema's order:\n%s", got)
	}
}

func TestQueuedCallsShowAsCards(t *testing.T) {
	m := newTestModel(t, newFake())
	m = startFakeTurn(t, m, "go")
	c1 := agent.Call{ID: "q1", Tool: "fs_write", Args: json.RawMessage(`{"path":"a.txt"}`)}
	c2 := agent.Call{ID: "q2", Tool: "shell_run", Args: json.RawMessage(`{"command":"go test ./..."}`)}
	m = events(m,
		agent.ToolCallEvent{Call: c1, Phase: "queued", Position: 1, Count: 2},
		agent.ToolCallEvent{Call: c2, Phase: "queued", Position: 2, Count: 2},
		agent.ToolCallEvent{Call: c1, Phase: "proposed"},
		agent.ApprovalEvent{CallID: "q1", Tool: "fs_write", Phase: "asked"},
	)
	got := screen(m)
	if !strings.Contains(got, "fs_write a.txt  waiting for approval") || !strings.Contains(got, "○ shell_run go test ./...  queued · 2 of 2") {
		t.Fatalf("queued cards:\n%s", got)
	}
	m = events(m, agent.ToolCallEvent{Call: c2, Phase: "started"})
	if got := screen(m); strings.Contains(got, "queued · 2 of 2") {
		t.Fatalf("the started call still says queued:\n%s", got)
	}
}

type saverFake struct {
	*fakeBackend
	saved []string
}

func (s *saverFake) SaveModel(name string) (string, error) {
	s.saved = append(s.saved, name)
	return `model = "` + name + `" in /cfg/config.toml`, nil
}

func TestModelSave(t *testing.T) {
	f := &saverFake{fakeBackend: newFake()}
	f.models = []string{"qwen2.5-coder:7b", "llama3.1:8b"}
	m := runLine(t, newTestModel(t, f), "/model nope --save")
	if len(f.saved) != 0 || !strings.Contains(lastBlock(m), "has no model \"nope\"") {
		t.Fatalf("a refused model was saved (%v): %q", f.saved, lastBlock(m))
	}
	m = runLine(t, m, "/model llama3.1:8b --save")
	if len(f.saved) != 1 || f.saved[0] != "llama3.1:8b" || f.Model() != "llama3.1:8b" {
		t.Fatalf("saved %v, model %s", f.saved, f.Model())
	}
	found := false
	for _, b := range m.tr.blocks {
		found = found || strings.Contains(strings.Join(strings.Fields(strings.Join(b.lines(m.c), " ")), " "), `saved as the default: model = "llama3.1:8b" in /cfg/config.toml`)
	}
	if !found {
		t.Fatalf("no line says where the model was saved:\n%s", screen(m))
	}
	m = runLine(t, m, "/model qwen2.5-coder:7b")
	if len(f.saved) != 1 || !strings.Contains(strings.Join(strings.Fields(screen(m)), " "), "--save makes it the default") {
		t.Fatalf("a plain switch saved (%v) or did not say how to keep it:\n%s", f.saved, screen(m))
	}
}

func TestServerCheckSaysOneSentence(t *testing.T) {
	m := newTestModel(t, newFake())
	err := &agent.UserError{Msg: "No model server at http://localhost:11434/v1.", Hint: "Start Ollama (ollama serve, then ollama pull qwen2.5-coder:7b).",
		Err: errors.New("dial tcp 127.0.0.1:11434: connect: connection refused")}
	got := lastBlock(update(m, serverCheckedMsg{err: err}))
	if !strings.Contains(got, "✗ No model server at http://localhost:11434/v1.") || !strings.Contains(got, "Start Ollama") || strings.Contains(got, "dial tcp") {
		t.Fatalf("server check block:\n%s", got)
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
