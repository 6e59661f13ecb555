package ui

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/agent"
	"myclaw/tools/mcp"
)

// MCPPrompter is what a backend may offer to run the prompts of MCP
// servers as /SERVER:PROMPT.
type MCPPrompter interface {
	// MCPPrompt fetches a server's prompt with the words typed after it.
	MCPPrompt(ctx context.Context, server, name string, words []string) (mcp.PromptText, error)
}

// promptsMsg brings the prompts of the running servers.
type promptsMsg struct{ list []command }

// loadPrompts reads the prompts of the running servers, for completion
// and /help; it runs at start and after each server notice.
func loadPrompts(b Backend) tea.Cmd {
	ext, ok := b.(Extensions)
	if _, runs := b.(MCPPrompter); !ok || !runs {
		return nil
	}
	return func() tea.Msg {
		var list []command
		for _, s := range ext.MCPServers() {
			if s.State != mcp.StateRunning {
				continue
			}
			for _, p := range s.Prompts {
				list = append(list, command{name: p.Command(), args: p.Usage(), desc: MCPPromptDesc(p)})
			}
		}
		return promptsMsg{list: list}
	}
}

// MCPPromptDesc describes an MCP prompt beside its /SERVER:PROMPT.
func MCPPromptDesc(p mcp.Prompt) string {
	desc := p.Description
	if desc == "" {
		desc = p.Title
	}
	if desc == "" {
		desc = "a prompt"
	}
	return oneLine(desc) + " (MCP " + oneLine(p.Server) + ")"
}

// runPrompt runs /SERVER:PROMPT args: the prompt is fetched in the turn's
// goroutine and sent as the user's message, after the line they typed.
// It reports false for a line that is not a prompt's.
func (m Model) runPrompt(name, line string) (Model, tea.Cmd, bool) {
	pr, ok := m.backend.(MCPPrompter)
	server, prompt, colon := strings.Cut(name, ":")
	if !ok || !colon || server == "" || prompt == "" {
		return m, nil, false
	}
	if m.turn != nil {
		return m.keptWhileBusy(line), nil, true
	}
	b, approver := m.backend, m.shared.approver
	typed := strings.TrimSpace(line)
	m2, cmd := m.startRun(typed, func(ctx context.Context, emit func(agent.Event)) error {
		msg, note, err := MCPPromptMessage(ctx, pr, server, prompt, line)
		if err != nil {
			return &agent.UserError{Msg: err.Error(), Hint: "/help lists the MCP prompts; nothing was sent to the model"}
		}
		emit(agent.NoticeEvent{Text: note})
		return b.Run(ctx, msg, emit, approver)
	})
	return m2, cmd, true
}

// MCPPromptMessage fetches the prompt of an MCP server that line runs
// (/SERVER:PROMPT words) and returns the user message it makes: the line,
// then the prompt's messages, which the server's manager fences unless
// the server is trusted. note says what went to the model. Every front
// end runs MCP prompts through it.
func MCPPromptMessage(ctx context.Context, pr MCPPrompter, server, prompt, line string) (msg, note string, err error) {
	typed := strings.TrimSpace(line)
	_, rest, _ := strings.Cut(typed, " ")
	pt, err := pr.MCPPrompt(ctx, server, prompt, splitArgs(rest))
	if err != nil {
		return "", "", err
	}
	note = fmt.Sprintf("the prompt %s of the MCP server %s (%d %s) went to the model", prompt, server, pt.Messages, plural(pt.Messages, "message", "messages"))
	return typed + "\n\n" + agent.AttachmentMark + " " + pt.Text, note, nil
}
