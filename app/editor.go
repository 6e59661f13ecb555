package app

import (
	"context"
	"path/filepath"

	"myclaw/agent"
	"myclaw/config"
	"myclaw/tools/builtin"
	"myclaw/tools/mcp"
	"myclaw/ui"
)

// EditorServer is an MCP server an editor hands to a session. It is
// started like a configured one, never trusted: its output is fenced.
type EditorServer struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
	// URL, instead of Command, is a streamable HTTP server.
	URL     string
	Headers map[string]string
}

// EditorSession is one session an editor drives (myclaw acp): the same
// agent, policy, journal and MCP servers as the TUI's, with no screen.
type EditorSession struct {
	// Agent runs the turns; its approver is the editor's.
	Agent *agent.Agent
	// Notices are what the TUI would show at start.
	Notices []string
	a       *app
	mcp     editorMCP
}

// OpenEditorSession builds a session in o.Workspace (o.Session names a
// stored one to load) and starts the configured MCP servers and the
// editor's, untrusted. Nothing is written to stdout: logs go to the log
// file.
func OpenEditorSession(ctx context.Context, o Options, secrets map[string]string, servers []EditorServer) (*EditorSession, error) {
	a, err := newApp(o, secrets)
	if err != nil {
		return nil, err
	}
	a.checkInBackground = true // shell commands ask until it passes
	ag, err := a.buildAgent()
	if err != nil {
		a.close()
		return nil, err
	}
	s := &EditorSession{Agent: ag, a: a}
	for _, n := range a.notices {
		s.Notices = append(s.Notices, n.Text)
	}
	if w := a.fullWarning(); w != "" {
		s.Notices = append(s.Notices, w)
	}
	extra := make([]mcp.ServerConfig, 0, len(servers))
	for _, e := range servers {
		for k, v := range e.Headers {
			addHeaderSecret(k, v)
		}
		extra = append(extra, mcp.ServerConfig{Name: e.Name, Command: e.Command, Args: e.Args, Env: e.Env, URL: e.URL,
			Headers: e.Headers, Enabled: true, Dir: a.workspace.Dir()})
	}
	a.startMCP(ctx, func(st mcp.ServerStatus) {
		if st.State == mcp.StateFailed {
			a.logf("MCP server %s failed: %s", st.Name, st.LastError)
		}
		s.mcp.changed(st)
	})
	a.startServers(ctx, extra, func(st mcp.ServerStatus) {
		if st.State == mcp.StateFailed {
			a.logf("MCP server %s (from the editor) failed: %s", st.Name, st.LastError)
		}
		s.mcp.changed(st)
	})
	return s, nil
}

// Workspace is the session's workspace directory.
func (s *EditorSession) Workspace() string { return s.a.workspace.Dir() }

// LogPath is the log file.
func (s *EditorSession) LogPath() string { return filepath.Join(s.a.stateDir, "myclaw.log") }

// Logf writes to the log file.
func (s *EditorSession) Logf(format string, args ...any) { s.a.logf(format, args...) }

// Commands loads the custom slash commands: the user's, then (in a
// trusted folder) the workspace's, as the TUI does.
func (s *EditorSession) Commands() []ui.CustomCommand {
	cmds, skipped := ui.LoadCommands(
		ui.CommandDir{Path: config.File("commands"), Scope: "user", Trusted: true},
		ui.CommandDir{Path: filepath.Join(s.a.workspace.Dir(), ".myclaw", "commands"), Scope: "project", Trusted: s.a.project.trusted},
	)
	for _, n := range skipped {
		s.a.logf("%s", n)
	}
	return cmds
}

// ReadBuffersWith makes file reads go through the editor's buffers
// (fs/read_text_file), unsaved changes included.
func (s *EditorSession) ReadBuffersWith(read builtin.BufferReader) {
	s.a.workspace.ReadBuffersWith(read)
}

// Close stops the session's jobs and MCP servers and closes its files.
func (s *EditorSession) Close() { s.a.close() }
