package ui

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"myclaw/tools/mcp"
)

// Extensions is what a backend may offer beyond the conversation: MCP
// servers and project trust. /mcp and /trust need it; a backend without it
// (tests, a bare agent) says so.
type Extensions interface {
	// MCPServers reports each configured MCP server's state.
	MCPServers() []mcp.ServerStatus
	// RestartMCP stops (if needed) and starts one server again.
	RestartMCP(ctx context.Context, name string) error
	// LoginMCP logs in to a URL server in the browser; LogoutMCP forgets
	// its login.
	LoginMCP(ctx context.Context, name string) error
	LogoutMCP(ctx context.Context, name string) error
	// MCPResources lists a server's resources; more says some were left out.
	MCPResources(ctx context.Context, name string) (list []mcp.Resource, more bool, err error)
	// TrustProject trusts the workspace's .myclaw.toml as it is now, loads
	// it, and says what it loaded.
	TrustProject(ctx context.Context) (string, error)
}

// noticeMsg is a line from outside a turn (an MCP server failing, say).
type noticeMsg struct{ n Notice }

// waitForNotice is re-armed after each notice; a closed channel ends it.
func waitForNotice(ch <-chan Notice) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		n, ok := <-ch
		if !ok {
			return nil
		}
		return noticeMsg{n: n}
	}
}

// mcpCommand runs /mcp and /mcp restart NAME.
func (m Model) mcpCommand(args []string) (Model, tea.Cmd) {
	ext, ok := m.backend.(Extensions)
	if !ok {
		m = m.addBlock(errorBlock("MCP servers are not available here", ""))
		return m, nil
	}
	ctx := m.shared.base
	switch {
	case len(args) == 0:
		return m, func() tea.Msg {
			list := ext.MCPServers()
			return commandResultMsg{draw: func(c *common) []string { return drawMCP(c, list) }}
		}
	case len(args) == 1:
		name := args[0]
		return m, func() tea.Msg {
			for _, s := range ext.MCPServers() {
				if s.Name == name {
					return commandResultMsg{draw: func(c *common) []string { return drawMCPServer(c, s) }}
				}
			}
			return commandResultMsg{err: fmt.Errorf("no MCP server %q (/mcp lists them)", name)}
		}
	case len(args) == 2 && args[0] == "restart":
		name := args[1]
		return m, func() tea.Msg {
			if err := ext.RestartMCP(ctx, name); err != nil {
				return commandResultMsg{err: err}
			}
			return commandResultMsg{draw: textDraw("restarting MCP server " + name + "; /mcp shows its state"), refresh: true}
		}
	case len(args) == 2 && args[0] == "resources":
		name := args[1]
		return m, func() tea.Msg {
			list, more, err := ext.MCPResources(ctx, name)
			if err != nil {
				return commandResultMsg{err: err}
			}
			return commandResultMsg{draw: func(c *common) []string { return drawResources(c, name, list, more) }}
		}
	case len(args) == 2 && args[0] == "login":
		name := args[1]
		return m, func() tea.Msg {
			if err := ext.LoginMCP(ctx, name); err != nil {
				return commandResultMsg{err: err}
			}
			return commandResultMsg{draw: textDraw("logging in to MCP server " + name + ": the login URL follows (opened in your browser); /mcp shows the state")}
		}
	case len(args) == 2 && args[0] == "logout":
		name := args[1]
		return m, func() tea.Msg {
			if err := ext.LogoutMCP(ctx, name); err != nil {
				return commandResultMsg{err: err}
			}
			return commandResultMsg{draw: textDraw("logged out of MCP server " + name + " (its stored token is deleted)"), refresh: true}
		}
	}
	m = m.addBlock(errorBlock("usage: /mcp [NAME | restart NAME | resources NAME | login NAME | logout NAME]", "lists the MCP servers, shows one with its log, restarts one, lists its resources, or logs in to or out of one"))
	return m, nil
}

// trustCommand runs /trust.
func (m Model) trustCommand() (Model, tea.Cmd) {
	ext, ok := m.backend.(Extensions)
	if !ok {
		m = m.addBlock(errorBlock("project trust is not available here", ""))
		return m, nil
	}
	ctx := m.shared.base
	trust := func() tea.Msg {
		out, err := ext.TrustProject(ctx)
		return commandResultMsg{draw: textDraw(out), err: err, refresh: true}
	}
	// The folder's own commands become usable once it is trusted.
	return m, tea.Sequence(trust, loadCommandsStamped(m.loadCommands, m.commandsStamp))
}

func drawMCP(c *common, list []mcp.ServerStatus) []string {
	st := &c.styles
	if len(list) == 0 {
		return []string{"  " + st.Dim.Render("no MCP servers configured ([mcp.servers.NAME] in the config)")}
	}
	w := c.contentWidth()
	var out []string
	for _, s := range list {
		state := string(s.State)
		switch s.State {
		case mcp.StateFailed:
			state = st.Error.Render(pad(state, 9))
		case mcp.StateRunning:
			state = st.Bold.Render(pad(state, 9))
		default:
			state = st.Dim.Render(pad(state, 9))
		}
		line := "  " + pad(truncate(oneLine(s.Name), 18), 19) + state + " " + st.Dim.Render(s.Since.Format("15:04:05"))
		if s.Auth != mcp.AuthNone {
			auth := "auth: " + string(s.Auth)
			if s.Auth == mcp.AuthNeeded || s.Auth == mcp.AuthExpired {
				auth = st.Error.Render(auth + " (/mcp login " + oneLine(s.Name) + ")")
			} else {
				auth = st.Dim.Render(auth)
			}
			line += "  " + auth
		}
		out = append(out, truncate(line, w))
		if s.AuthNote != "" {
			for _, l := range wrapPlain("login: "+oneLine(s.AuthNote), w-6) {
				out = append(out, "    "+st.Dim.Render(l))
			}
		}
		if len(s.Tools) > 0 {
			for _, l := range wrapPlain("tools: "+oneLine(strings.Join(s.Tools, ", ")), w-6) {
				out = append(out, "    "+l)
			}
		}
		if len(s.Skipped) > 0 {
			for _, l := range wrapPlain("skipped: "+oneLine(strings.Join(s.Skipped, "; ")), w-6) {
				out = append(out, "    "+st.Dim.Render(l))
			}
		}
		if s.LastError != "" {
			for _, l := range wrapPlain("last error: "+oneLine(s.LastError), w-6) {
				out = append(out, "    "+st.Error.Render(l))
			}
		}
	}
	if hasFailed(list) {
		out = append(out, "  "+st.Dim.Render("/mcp restart NAME starts a server again"))
	}
	return out
}

func hasFailed(list []mcp.ServerStatus) bool {
	for _, s := range list {
		if s.State == mcp.StateFailed {
			return true
		}
	}
	return false
}

// drawMCPServer is /mcp NAME: the server's line of /mcp, then its log.
func drawMCPServer(c *common, s mcp.ServerStatus) []string {
	st := &c.styles
	out := drawMCP(c, []mcp.ServerStatus{s})
	if len(s.Prompts) > 0 {
		var names []string
		for _, p := range s.Prompts {
			names = append(names, "/"+oneLine(p.Command()))
		}
		for _, l := range wrapPlain("prompts: "+strings.Join(names, ", "), c.contentWidth()-4) {
			out = append(out, "    "+l)
		}
	}
	if len(s.Log) == 0 {
		return append(out, "  "+st.Dim.Render("no log messages from this server"))
	}
	out = append(out, "  "+st.Bold.Render(fmt.Sprintf("log (last %d, also in myclaw.log):", len(s.Log))))
	w := c.contentWidth()
	for _, l := range s.Log {
		out = append(out, "    "+truncate(oneLine(l), w-4))
	}
	return out
}

// drawResources is /mcp resources NAME.
func drawResources(c *common, server string, list []mcp.Resource, more bool) []string {
	st := &c.styles
	if len(list) == 0 {
		return []string{"  " + st.Dim.Render("MCP server "+oneLine(server)+" lists no resources")}
	}
	w := c.contentWidth()
	out := []string{"  " + st.Bold.Render(fmt.Sprintf("resources of %s (%d)", oneLine(server), len(list)))}
	for _, r := range list {
		line := "  " + oneLine(r.URI)
		if r.Name != "" {
			line += "  " + oneLine(r.Name)
		}
		if r.MIMEType != "" {
			line += "  " + st.Dim.Render(oneLine(r.MIMEType))
		}
		out = append(out, truncate(line, w))
		if r.Description != "" {
			out = append(out, truncate("    "+st.Dim.Render(oneLine(r.Description)), w))
		}
	}
	if more {
		out = append(out, "  "+st.Dim.Render("more resources not shown"))
	}
	return append(out, "  "+st.Dim.Render("the model reads them with "+oneLine(server)+"/read_resource; @"+oneLine(server)+":URI attaches one to your prompt"))
}
