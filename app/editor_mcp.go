package app

import (
	"context"
	"sync"

	"myclaw/tools/mcp"
)

// editorMCP is what an editor session hears of its MCP servers.
type editorMCP struct {
	mu       sync.Mutex
	onChange func()
}

// changed tells the listener a server changed (started, stopped, its
// prompts listed again).
func (e *editorMCP) changed(mcp.ServerStatus) {
	e.mu.Lock()
	fn := e.onChange
	e.mu.Unlock()
	if fn != nil {
		fn()
	}
}

// OnMCPChange calls fn, in the server's goroutine, each time an MCP
// server of the session changes: it reads MCPServers again.
func (s *EditorSession) OnMCPChange(fn func()) {
	s.mcp.mu.Lock()
	s.mcp.onChange = fn
	s.mcp.mu.Unlock()
}

// MCPServers lists the session's MCP servers and their prompts.
func (s *EditorSession) MCPServers() []mcp.ServerStatus { return s.a.mcpStatus() }

// MCPPrompt fetches a server's prompt with the words typed after it
// (ui.MCPPrompter), fenced unless the server is trusted.
func (s *EditorSession) MCPPrompt(ctx context.Context, server, name string, words []string) (mcp.PromptText, error) {
	m, err := s.a.mcpOwner(server)
	if err != nil {
		return mcp.PromptText{}, err
	}
	return m.Prompt(ctx, server, name, words)
}
