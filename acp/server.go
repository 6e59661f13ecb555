// Package acp serves myclaw to editors over the Agent Client Protocol
// (JSON-RPC on stdio): `myclaw acp`.
//
// Each ACP session is a myclaw session (app.EditorSession): the same agent
// loop, policy, journal and MCP servers as the TUI. The session's approver
// is the editor: every call the policy would ask about becomes a
// session/request_permission, carrying the dry run; no answer (a cancel, a
// timeout, a closed connection) is a denial. Turns run one at a time per
// session, in the goroutine the SDK gives each session/prompt; a
// session/cancel cancels the turn's context, which ends the model stream,
// the running tools and any pending permission request.
//
// The protocol owns stdout: nothing else is written there; logs go to the
// log file. When stdin closes, every session is closed (its jobs and MCP
// servers stopped) and Run returns.
package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"myclaw/app"
	"myclaw/config"
	"myclaw/tools"
)

// Options configure the server.
type Options struct {
	// App are the command-line settings every session starts from; the
	// workspace is the editor's cwd.
	App     app.Options
	Secrets map[string]string
	// PermissionTimeout bounds how long a permission request waits for the
	// editor: then it is a denial. Zero means DefaultPermissionTimeout.
	PermissionTimeout time.Duration
}

// DefaultPermissionTimeout is how long a call waits for the person in the
// editor before it is denied.
const DefaultPermissionTimeout = 30 * time.Minute

// Run serves ACP on in and out until in closes or ctx ends.
func Run(ctx context.Context, o Options, in io.Reader, out io.Writer) error {
	s := start(ctx, o, in, out)
	defer s.logClose()
	select {
	case <-s.conn.Done():
	case <-ctx.Done():
	}
	s.closeAll()
	return nil
}

// start serves the connection in the background.
func start(ctx context.Context, o Options, in io.Reader, out io.Writer) *server {
	if o.PermissionTimeout <= 0 {
		o.PermissionTimeout = DefaultPermissionTimeout
	}
	s := &server{opts: o, ctx: ctx, sessions: map[acpsdk.SessionId]*session{}, ready: make(chan struct{})}
	s.logger, s.logClose = openLog()
	lw := &lockedWriter{w: out}
	s.conn = acpsdk.NewAgentSideConnection(s, lw, rejectMalformed(in, lw))
	s.conn.SetLogger(slog.New(slog.NewTextHandler(s.logger.Writer(), &slog.HandlerOptions{Level: slog.LevelWarn})))
	close(s.ready)
	return s
}

// openLog opens the log file before any session does (the protocol owns
// stdout and an editor rarely shows stderr).
func openLog() (*log.Logger, func()) {
	dir, err := config.StateDir()
	if err == nil {
		err = os.MkdirAll(dir, 0o700)
	}
	if err != nil {
		return log.New(io.Discard, "", 0), func() {}
	}
	f, err := os.OpenFile(filepath.Join(dir, "myclaw.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return log.New(io.Discard, "", 0), func() {}
	}
	return log.New(tools.RedactWriter(f), "acp: ", log.LstdFlags|log.Lmicroseconds), func() { _ = f.Close() }
}

// server is the agent side of one connection.
type server struct {
	opts Options
	ctx  context.Context
	// conn is set once ready is closed: the connection serves requests
	// from its construction on.
	conn     *acpsdk.AgentSideConnection
	ready    chan struct{}
	logger   *log.Logger
	logClose func()

	mu       sync.Mutex
	client   acpsdk.ClientCapabilities
	sessions map[acpsdk.SessionId]*session
	closed   bool
}

var (
	_ acpsdk.Agent       = (*server)(nil)
	_ acpsdk.AgentLoader = (*server)(nil)
)

// peer is the connection to the editor.
func (s *server) peer() *acpsdk.AgentSideConnection {
	<-s.ready
	return s.conn
}

func (s *server) logf(format string, args ...any) { s.logger.Printf(format, args...) }

// closeAll ends every session: turns cancelled, jobs and MCP servers
// stopped.
func (s *server) closeAll() {
	s.mu.Lock()
	s.closed = true
	list := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		list = append(list, ss)
	}
	s.sessions = map[acpsdk.SessionId]*session{}
	s.mu.Unlock()
	for _, ss := range list {
		ss.close()
	}
}

// Initialize implements acpsdk.Agent.
func (s *server) Initialize(_ context.Context, p acpsdk.InitializeRequest) (acpsdk.InitializeResponse, error) {
	s.mu.Lock()
	s.client = p.ClientCapabilities
	s.mu.Unlock()
	return acpsdk.InitializeResponse{
		ProtocolVersion: acpsdk.ProtocolVersionNumber,
		AgentInfo:       &acpsdk.Implementation{Name: "myclaw", Version: s.opts.App.Version},
		AgentCapabilities: acpsdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: acpsdk.PromptCapabilities{EmbeddedContext: true},
			McpCapabilities:    acpsdk.McpCapabilities{Http: true},
		},
		// The model server's key comes from the environment or the
		// config, never from the editor.
		AuthMethods: []acpsdk.AuthMethod{},
	}, nil
}

// Authenticate implements acpsdk.Agent: there is nothing to log in to.
func (s *server) Authenticate(context.Context, acpsdk.AuthenticateRequest) (acpsdk.AuthenticateResponse, error) {
	return acpsdk.AuthenticateResponse{}, nil
}

// NewSession implements acpsdk.Agent.
func (s *server) NewSession(_ context.Context, p acpsdk.NewSessionRequest) (acpsdk.NewSessionResponse, error) {
	ss, err := s.open(p.Cwd, "", p.McpServers)
	if err != nil {
		return acpsdk.NewSessionResponse{}, err
	}
	return acpsdk.NewSessionResponse{SessionId: ss.id, Modes: ss.modes()}, nil
}

// LoadSession implements acpsdk.AgentLoader: the stored session is
// replayed as updates before the answer.
func (s *server) LoadSession(ctx context.Context, p acpsdk.LoadSessionRequest) (acpsdk.LoadSessionResponse, error) {
	ss, err := s.open(p.Cwd, string(p.SessionId), p.McpServers)
	if err != nil {
		return acpsdk.LoadSessionResponse{}, err
	}
	ss.replay(ctx)
	return acpsdk.LoadSessionResponse{Modes: ss.modes()}, nil
}

// open builds the myclaw session for an ACP session in cwd (stored is the
// id of one to load, or "").
func (s *server) open(cwd, stored string, servers []acpsdk.McpServer) (*session, error) {
	if !filepath.IsAbs(cwd) {
		return nil, acpsdk.NewInvalidParams(map[string]any{"cwd": fmt.Sprintf("%q is not an absolute path", cwd)})
	}
	extra, err := editorServers(servers)
	if err != nil {
		return nil, acpsdk.NewInvalidParams(map[string]any{"mcpServers": err.Error()})
	}
	o := s.opts.App
	o.Workspace, o.Session = cwd, stored
	es, err := app.OpenEditorSession(s.ctx, o, s.opts.Secrets, extra)
	if err != nil {
		return nil, userError(err)
	}
	// The ACP session is the stored session: session/load takes its id.
	id := acpsdk.SessionId(es.Agent.Session().Info().ID)
	ss := &session{id: id, srv: s, es: es}
	s.mu.Lock()
	if s.client.Fs.ReadTextFile {
		es.ReadBuffersWith(ss.readBuffer)
	}
	if s.closed {
		s.mu.Unlock()
		es.Close()
		return nil, errors.New("the connection is closing")
	}
	if old := s.sessions[id]; old != nil {
		defer old.close()
	}
	s.sessions[id] = ss
	s.mu.Unlock()
	for _, n := range es.Notices {
		es.Logf("notice: %s", n)
	}
	// After the answer: the editor learns of the session first. The MCP
	// servers' prompts join the list as the servers start.
	es.OnMCPChange(ss.mcpChanged)
	go ss.announceCommands()
	return ss, nil
}

// session looks a session up.
func (s *server) session(id acpsdk.SessionId) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.sessions[id]
	if ss == nil {
		return nil, acpsdk.NewInvalidParams(map[string]any{"sessionId": fmt.Sprintf("no session %q", id)})
	}
	return ss, nil
}

// Prompt implements acpsdk.Agent.
func (s *server) Prompt(ctx context.Context, p acpsdk.PromptRequest) (acpsdk.PromptResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return acpsdk.PromptResponse{}, err
	}
	return ss.prompt(ctx, p.Prompt)
}

// Cancel implements acpsdk.Agent. The SDK has already cancelled the
// prompt's context; this also cancels what the session runs outside a
// prompt.
func (s *server) Cancel(_ context.Context, p acpsdk.CancelNotification) error {
	if ss, err := s.session(p.SessionId); err == nil {
		ss.cancelTurn()
	}
	return nil
}

// SetSessionMode implements acpsdk.Agent: a mode is an autonomy level.
func (s *server) SetSessionMode(ctx context.Context, p acpsdk.SetSessionModeRequest) (acpsdk.SetSessionModeResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return acpsdk.SetSessionModeResponse{}, err
	}
	return acpsdk.SetSessionModeResponse{}, ss.setMode(ctx, p.ModeId)
}

// CloseSession implements acpsdk.Agent.
func (s *server) CloseSession(_ context.Context, p acpsdk.CloseSessionRequest) (acpsdk.CloseSessionResponse, error) {
	s.mu.Lock()
	ss := s.sessions[p.SessionId]
	delete(s.sessions, p.SessionId)
	s.mu.Unlock()
	if ss != nil {
		ss.close()
	}
	return acpsdk.CloseSessionResponse{}, nil
}

// ListSessions implements acpsdk.Agent; not offered.
func (s *server) ListSessions(context.Context, acpsdk.ListSessionsRequest) (acpsdk.ListSessionsResponse, error) {
	return acpsdk.ListSessionsResponse{}, acpsdk.NewMethodNotFound(acpsdk.AgentMethodSessionList)
}

// ResumeSession implements acpsdk.Agent; not offered (session/load is).
func (s *server) ResumeSession(context.Context, acpsdk.ResumeSessionRequest) (acpsdk.ResumeSessionResponse, error) {
	return acpsdk.ResumeSessionResponse{}, acpsdk.NewMethodNotFound(acpsdk.AgentMethodSessionResume)
}

// SetSessionConfigOption implements acpsdk.Agent; not offered.
func (s *server) SetSessionConfigOption(context.Context, acpsdk.SetSessionConfigOptionRequest) (acpsdk.SetSessionConfigOptionResponse, error) {
	return acpsdk.SetSessionConfigOptionResponse{}, acpsdk.NewMethodNotFound(acpsdk.AgentMethodSessionSetConfigOption)
}

// editorServers turns the MCP servers the editor passes into myclaw's.
func editorServers(list []acpsdk.McpServer) ([]app.EditorServer, error) {
	var out []app.EditorServer
	for _, m := range list {
		switch {
		case m.Stdio != nil:
			env := map[string]string{}
			for _, e := range m.Stdio.Env {
				env[e.Name] = e.Value
			}
			out = append(out, app.EditorServer{Name: m.Stdio.Name, Command: m.Stdio.Command, Args: m.Stdio.Args, Env: env})
		case m.Http != nil:
			h := map[string]string{}
			for _, e := range m.Http.Headers {
				h[e.Name] = e.Value
			}
			out = append(out, app.EditorServer{Name: m.Http.Name, URL: m.Http.Url, Headers: h})
		default:
			return nil, errors.New("only stdio and http MCP servers are supported")
		}
	}
	for i, e := range out {
		if e.Name == "" {
			return nil, fmt.Errorf("MCP server %d has no name", i+1)
		}
	}
	return out, nil
}
