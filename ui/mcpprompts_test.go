package ui

import (
	"context"
	"errors"
	"strings"
	"testing"

	"myclaw/agent"
	"myclaw/tools/mcp"
)

// promptFake has one running server with one prompt.
type promptFake struct {
	*extFake
	asked [][]string
}

func (f *promptFake) MCPPrompt(ctx context.Context, server, name string, words []string) (mcp.PromptText, error) {
	f.asked = append(f.asked, append([]string{server, name}, words...))
	if len(words) == 0 {
		return mcp.PromptText{}, errors.New(`/docs:review needs the argument "file" (usage: /docs:review <file>)`)
	}
	return mcp.PromptText{Text: "The user ran /docs:review. <untrusted>Review " + words[0] + "</untrusted>", Messages: 1}, nil
}

func newPromptFake() *promptFake {
	return &promptFake{extFake: &extFake{fakeBackend: newFake(), servers: []mcp.ServerStatus{
		{Name: "docs", State: mcp.StateRunning, Prompts: []mcp.Prompt{{Server: "docs", Name: "review", Description: "Review a file", Args: []mcp.PromptArg{{Name: "file", Required: true}}}}},
		{Name: "down", State: mcp.StateFailed, Prompts: []mcp.Prompt{{Server: "down", Name: "gone"}}},
	}}}
}

func TestMCPPromptCommand(t *testing.T) {
	f := newPromptFake()
	m := newTestModel(t, f)
	m = runCmd(t, m, loadPrompts(f))

	// Listed in /help and offered by completion; a failed server's are not.
	m = runLine(t, m, "/help")
	help := lastBlock(m)
	if !strings.Contains(help, "MCP prompts") || !strings.Contains(help, "/docs:review <file>") || !strings.Contains(help, "Review a file (MCP docs)") || strings.Contains(help, "down:gone") {
		t.Fatalf("help does not list the prompt as it should:\n%s", help)
	}
	m = runLine(t, m, "/mcp docs")
	if got := lastBlock(m); !strings.Contains(got, "prompts: /docs:review") {
		t.Errorf("/mcp docs does not list its prompts:\n%s", got)
	}
	m = typeText(m, "/docs:")
	if len(m.input.matches) != 1 || m.input.matches[0].name != "docs:review" {
		t.Fatalf("completion of /docs: offers %+v", m.input.matches)
	}
	m.input.setValue("")

	// The prompt goes to the model after the typed line.
	m = typeText(m, `/docs:review "a b.go"`)
	m.input.closed = true
	m, cmd := updateCmd(m, keyMsg("enter"))
	m = drainTurn(t, m, cmd)
	if len(f.asked) != 1 || strings.Join(f.asked[0], "|") != "docs|review|a b.go" {
		t.Fatalf("asked %q", f.asked)
	}
	if len(f.prompts) != 1 || !strings.HasPrefix(f.prompts[0], "/docs:review \"a b.go\"\n\n"+agent.AttachmentMark+" The user ran /docs:review.") {
		t.Fatalf("sent %q", f.prompts)
	}
	if text := m.tr.text(m.c); !strings.Contains(text, "the prompt review of the MCP server docs (1 message) went to the model") {
		t.Errorf("transcript:\n%s", text)
	}

	// A missing argument is an error and nothing is sent.
	m = typeText(m, "/docs:review")
	m.input.closed = true
	m, cmd = updateCmd(m, keyMsg("enter"))
	m = drainTurn(t, m, cmd)
	if len(f.prompts) != 1 {
		t.Fatalf("a failed prompt was sent: %q", f.prompts)
	}
	if text := m.tr.text(m.c); !strings.Contains(text, `needs the argument "file"`) || !strings.Contains(text, "nothing was sent to the model") {
		t.Errorf("transcript:\n%s", text)
	}
}

// resourceFake is a backend with MCP servers, file mentions and resource
// mentions; a resource of "docs" other than docs://guide fails.
type resourceFake struct {
	*directFake
	servers   []mcp.ServerStatus
	resources []string
}

func (f *resourceFake) MCPServers() []mcp.ServerStatus               { return f.servers }
func (f *resourceFake) RestartMCP(context.Context, string) error     { return nil }
func (f *resourceFake) LoginMCP(context.Context, string) error       { return nil }
func (f *resourceFake) LogoutMCP(context.Context, string) error      { return nil }
func (f *resourceFake) TrustProject(context.Context) (string, error) { return "", nil }
func (f *resourceFake) MCPResources(context.Context, string) ([]mcp.Resource, bool, error) {
	return nil, false, nil
}

func (f *resourceFake) MentionResources(ctx context.Context, refs []string, emit func(agent.Event)) error {
	for _, r := range refs {
		if r != "docs:docs://guide" {
			return &agent.UserError{Msg: "@" + r + " was not attached, and the prompt was not sent: not found"}
		}
	}
	f.resources = append(f.resources, refs...)
	return nil
}

func TestResourceMentions(t *testing.T) {
	f := &resourceFake{directFake: &directFake{fakeBackend: newFake()}, servers: []mcp.ServerStatus{{Name: "docs", State: mcp.StateRunning}}}
	send := func(m Model, line string) Model {
		m = typeText(m, line)
		m.input.closed = true
		m, cmd := updateCmd(m, keyMsg("enter"))
		return drainTurn(t, m, cmd)
	}
	m := send(newTestModel(t, f), "see @docs:docs://guide and @main.go")
	if strings.Join(f.resources, " ") != "docs:docs://guide" || strings.Join(f.mentions, " ") != "main.go" || len(f.prompts) != 1 {
		t.Fatalf("resources %q, files %q, prompts %q", f.resources, f.mentions, f.prompts)
	}
	// One that fails stops everything: no file attached, nothing sent.
	m = send(m, "see @docs:docs://nope and @other.go")
	if len(f.prompts) != 1 || len(f.mentions) != 1 {
		t.Fatalf("a failed resource mention still sent: prompts %q, files %q", f.prompts, f.mentions)
	}
	if text := m.tr.text(m.c); !strings.Contains(text, "@docs:docs://nope was not attached, and the prompt was not sent") {
		t.Errorf("transcript:\n%s", text)
	}
}

func TestSplitResourceMentions(t *testing.T) {
	files, res := splitResourceMentions([]string{"docs:notes/a.md", "wiki:page://x", "C:/x.go", "a.go", "https://h/x", "docs:"}, []string{"docs"})
	if strings.Join(files, " ") != "C:/x.go a.go https://h/x docs:" || strings.Join(res, " ") != "docs:notes/a.md wiki:page://x" {
		t.Errorf("files %q, resources %q", files, res)
	}
}

func TestMCPProgressOnTheRunningCard(t *testing.T) {
	m := startFakeTurn(t, newTestModel(t, newFake()), "index")
	c := call("c1", "idx/index", `{}`)
	m = events(m,
		agent.ToolCallEvent{Call: c, Phase: "started"},
		agent.ToolOutputEvent{CallID: "c1", Progress: "1/4 (25%) · reading"},
		agent.ToolOutputEvent{CallID: "c1", Progress: "3/4 (75%) · \x1b[2Jwriting"},
	)
	got := m.tr.text(m.c)
	if !strings.Contains(got, "progress 3/4 (75%) · ") || !strings.Contains(got, "writing") || strings.Contains(got, "1/4") || strings.Contains(got, "\x1b") || strings.Contains(got, "live output") {
		t.Fatalf("running card should show only the latest progress, clean:\n%q", got)
	}
	m = events(m, agent.ToolResultEvent{Call: c, Status: agent.StatusOK, Content: `{"ok":true}`})
	if got := m.tr.text(m.c); strings.Contains(got, "progress") {
		t.Fatalf("finished card still shows progress:\n%s", got)
	}
}
