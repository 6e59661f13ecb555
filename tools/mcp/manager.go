package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"myclaw/tools"
)

// DefaultTimeout bounds a server's start-up and each call when its config
// gives none.
const DefaultTimeout = 60 * time.Second

// defaultGrace is how long a stdio server gets after its stdin is closed, and
// again after SIGTERM, before it is killed.
const defaultGrace = 2 * time.Second

// serverNameRE is the shape of a server name: it becomes the namespace of the
// display names of its tools. Compiled on first use: its {0,63} costs every
// start half a millisecond to compile at init.
var serverNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`) })

// ServerConfig is one [mcp.servers.NAME] entry of the config.
type ServerConfig struct {
	// Name is the NAME of [mcp.servers.NAME]: the namespace of its tools.
	Name string
	// Command is the program of a stdio server.
	Command string
	// Args are the arguments of Command.
	Args []string
	// Env is added to the scrubbed environment of a stdio server.
	Env map[string]string
	// URL is the endpoint of a streamable HTTP server, instead of Command.
	URL string
	// Enabled says whether Start launches the server.
	Enabled bool
	// Timeout bounds the start-up and each call; zero means DefaultTimeout.
	Timeout time.Duration
	// Trust = true means the server's output is not fenced as untrusted.
	Trust bool
	// Dir is the working directory of a stdio server (the workspace).
	Dir string
	// Headers are sent with every request to a URL server (an API key).
	Headers map[string]string
	// Unset names the variables that Headers refer to and the environment
	// lacks: the server fails to start, saying which.
	Unset []string
	// OAuth configures the login of a URL server that asks for one; nil
	// means dynamic client registration. Unused when Headers carry an
	// Authorization header.
	OAuth *OAuthConfig
	// LogLevel is the level of log messages asked of the server
	// (DefaultLogLevel when empty).
	LogLevel string
	// Sampling = true lets the server ask to use the model
	// (sampling/createMessage), each request approved by the person; only
	// then is the capability declared.
	Sampling bool
}

// State is the life-cycle state of a server.
type State string

// Server states.
const (
	StateStarting State = "starting"
	StateRunning  State = "running"
	StateFailed   State = "failed"
	StateStopped  State = "stopped"
)

// ServerStatus is a snapshot of one server, for /mcp and the status line.
type ServerStatus struct {
	// Name is the server's config name.
	Name string
	// State is where the server is in its life cycle.
	State State
	// Tools are the display names of the tools it has in the catalog.
	Tools []string
	// Skipped lists the server's tools that were left out of the catalog,
	// each with the reason.
	Skipped []string
	// Hidden are the tools of Skipped left out for the room their schema
	// and description would take in every request.
	Hidden []HiddenTool
	// LastError says why the server last failed; it is kept while a restart
	// is starting and cleared once the server runs.
	LastError string
	// Since is when the server entered State.
	Since time.Time
	// Auth is where a URL server stands with its login; AuthNote says why.
	Auth     AuthState
	AuthNote string
	// Log holds the server's last log messages ("15:04:05 level: text").
	Log []string
	// Prompts are the prompts of a running server, run as /SERVER:NAME.
	Prompts []Prompt
}

// HiddenTool is a tool of a server left out of the catalog, and why.
type HiddenTool struct {
	Name string // display name, server/tool
	Why  string
}

// Manager starts the configured servers in the background and keeps their
// tools in the registry.
type Manager struct {
	reg  *tools.Registry
	logf func(format string, args ...any)

	// grace is the stdio shutdown grace period; tests shorten it.
	grace time.Duration
	// dial builds the transport of a server; tests replace it to reach
	// in-process servers.
	dial func(cfg ServerConfig) (sdk.Transport, error)

	events notifier
	wg     sync.WaitGroup

	// opts are set once, before Start.
	opts   Options
	tokens *tokenStore
	// authClient gives the HTTP client of a server's OAuth requests; tests
	// replace it.
	authClient func(endpoint string) *http.Client
	// protocolVersion, when set (tests), is the version the client asks
	// for instead of the SDK's latest.
	protocolVersion string

	mu      sync.Mutex // guards the fields below and every server's state
	servers []*server
	byName  map[string]*server
	base    context.Context
	started bool
	closed  bool
	seen    map[string]seenDef // last seen definitions, loaded once

	seenMu sync.Mutex // serialises writes of SeenFile
}

// server is one configured server and its current run.
type server struct {
	cfg    ServerConfig
	cfgErr error // a config the server cannot start with

	state   State
	lastErr string
	since   time.Time
	skipped []string
	hidden  []HiddenTool
	// warned holds the tools a notice said were hidden for their size,
	// across runs: it is said once.
	warned map[string]bool
	cur    *run // its names are the server's tools in the catalog
	// listed is the last definition seen of each tool, by display name,
	// across runs: a definition that changes is noted on the tool.
	listed map[string]tools.Meta
	// auth is the OAuth handler of a URL server without an Authorization
	// header; it outlives runs, so a restart keeps the login.
	auth *authHandler
	// logs are the server's last log messages, across runs.
	logs logRing
}

// NewManager returns a Manager for servers, registering their tools in reg.
// logf (may be nil) receives one line per notable event: a server failing, a
// tool skipped. Configuration errors (a bad name, a duplicate, neither or both
// of Command and URL) do not stop the others: that server fails at Start with
// the reason as its LastError.
func NewManager(reg *tools.Registry, servers []ServerConfig, logf func(format string, args ...any)) *Manager {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	m := &Manager{
		reg:    reg,
		logf:   logf,
		grace:  defaultGrace,
		byName: map[string]*server{},
		base:   context.Background(),
	}
	m.dial = m.defaultDial
	for _, cfg := range servers {
		if cfg.Timeout <= 0 {
			cfg.Timeout = DefaultTimeout
		}
		s := &server{cfg: cfg, state: StateStopped, cfgErr: checkConfig(cfg)}
		if _, dup := m.byName[cfg.Name]; dup {
			s.cfgErr = fmt.Errorf("mcp.servers.%s is declared twice", cfg.Name)
		} else {
			m.byName[cfg.Name] = s
		}
		m.servers = append(m.servers, s)
	}
	return m
}

// CheckName reports whether name may name a server: it becomes the
// namespace of its tools' display names.
func CheckName(name string) error {
	if !serverNameRE().MatchString(name) {
		return errors.New("a server name must be 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit")
	}
	return nil
}

func checkConfig(cfg ServerConfig) error {
	key := "mcp.servers." + cfg.Name
	switch {
	case CheckName(cfg.Name) != nil:
		return fmt.Errorf("%s: the server name must be 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit", key)
	case cfg.Command == "" && cfg.URL == "":
		return fmt.Errorf("%s: set command (a stdio server) or url (a streamable HTTP server)", key)
	case cfg.Command != "" && cfg.URL != "":
		return fmt.Errorf("%s: set command or url, not both", key)
	case cfg.URL != "":
		u, err := url.Parse(cfg.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%s.url: %q is not an http:// or https:// URL", key, cfg.URL)
		}
		if len(cfg.Unset) > 0 {
			return fmt.Errorf("%s.headers: %s not set in the environment", key, strings.Join(cfg.Unset, ", "))
		}
	case len(cfg.Headers) > 0 || cfg.OAuth != nil:
		return fmt.Errorf("%s: headers and oauth apply to url servers only", key)
	}
	return checkLogLevel(key, cfg.LogLevel)
}

func (m *Manager) defaultDial(cfg ServerConfig) (sdk.Transport, error) {
	if cfg.URL != "" {
		return m.httpTransport(cfg), nil
	}
	return &stdioTransport{cfg: cfg, grace: m.grace, logf: m.logf}, nil
}

// Start launches every enabled server concurrently and returns at once (the
// first frame never waits); onChange (may be nil) is called after any server
// changes state, from the manager's goroutines, one call at a time and in
// order; it must not block for long. Cancelling ctx stops the servers (Close
// must still be called to wait for them). Only the first call has an effect.
func (m *Manager) Start(ctx context.Context, onChange func(ServerStatus)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started || m.closed {
		return
	}
	m.started = true
	m.base = ctx
	m.setUpAuthLocked()
	m.events.start(onChange)
	for _, s := range m.servers {
		if s.cfg.Enabled {
			m.startLocked(s)
		}
	}
}

// Status returns a snapshot of every configured server, in config order.
// Disabled servers are listed as stopped.
func (m *Manager) Status() []ServerStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]ServerStatus, len(m.servers))
	for i, s := range m.servers {
		out[i] = s.statusLocked()
	}
	return out
}

// Restart stops the named server if it runs, waits (bounded by ctx) for its
// process to be gone, and starts it again in the background. The new instance
// lives as long as the ctx given to Start, not ctx.
func (m *Manager) Restart(ctx context.Context, name string) error {
	m.mu.Lock()
	s, ok := m.byName[name]
	switch {
	case m.closed:
		m.mu.Unlock()
		return errors.New("mcp: the manager is closed")
	case !ok:
		m.mu.Unlock()
		return m.unknownServer(name)
	case !s.cfg.Enabled:
		m.mu.Unlock()
		return fmt.Errorf("MCP server %q is disabled in the config (enabled = false)", name)
	}
	old := s.cur
	if old != nil {
		old.endLocked(StateStopped, "")
	}
	m.mu.Unlock()
	if old != nil {
		old.cancel()
		select {
		case <-old.done:
		case <-ctx.Done():
			return fmt.Errorf("restart %s: waiting for the old instance to stop: %w", name, ctx.Err())
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return errors.New("mcp: the manager is closed")
	}
	if s.cur != old && s.cur != nil && !s.cur.over {
		return nil // a concurrent Restart got there first
	}
	m.startLocked(s)
	return nil
}

// unknownServer is the error for a name that is not configured.
func (m *Manager) unknownServer(name string) error {
	m.mu.Lock()
	names := make([]string, 0, len(m.byName))
	for n := range m.byName {
		names = append(names, n)
	}
	m.mu.Unlock()
	sort.Strings(names)
	if len(names) == 0 {
		return fmt.Errorf("no MCP server named %q: none is configured", name)
	}
	return fmt.Errorf("no MCP server named %q (configured: %s)", name, strings.Join(names, ", "))
}

// Close shuts every server down cleanly (stdio children are sent EOF, then
// SIGTERM, then SIGKILL after a grace period, whole process group included),
// waits for the manager's goroutines, and delivers the last state changes.
// It is idempotent and returns nil: a server that resists is killed, not
// reported.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	var runs []*run
	for _, s := range m.servers {
		if r := s.cur; r != nil && r.endLocked(StateStopped, "") {
			runs = append(runs, r)
		}
	}
	m.mu.Unlock()
	for _, r := range runs {
		r.cancel()
	}
	m.wg.Wait()
	m.events.stop()
	return nil
}

// startLocked begins a new run of s. m.mu is held.
func (m *Manager) startLocked(s *server) {
	r := &run{m: m, s: s, done: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancel(m.base)
	s.cur = r
	s.setLocked(StateStarting, s.lastErr)
	m.events.push(s.statusLocked())
	m.wg.Add(1)
	go r.main()
}

func (s *server) setLocked(st State, lastErr string) {
	s.state = st
	s.lastErr = lastErr
	s.since = time.Now()
}

func (s *server) statusLocked() ServerStatus {
	var names []string
	var prompts []Prompt
	if s.cur != nil {
		names, prompts = s.cur.names, s.cur.prompts
	}
	st := ServerStatus{
		Name:      s.cfg.Name,
		State:     s.state,
		Tools:     append([]string(nil), names...),
		Skipped:   append([]string(nil), s.skipped...),
		Hidden:    append([]HiddenTool(nil), s.hidden...),
		LastError: tools.Redact(s.lastErr),
		Since:     s.since,
		Log:       s.logs.snapshot(),
		Prompts:   append([]Prompt(nil), prompts...),
	}
	switch {
	case s.auth != nil:
		st.Auth, st.AuthNote = s.auth.status()
	case hasHeader(s.cfg.Headers, "Authorization"):
		st.Auth = AuthHeaders
	}
	return st
}

// notifier delivers status changes to the onChange callback from one
// goroutine, in order, so that a callback that posts to the UI can never
// block a caller of the Manager (Restart may be called from the UI itself).
type notifier struct {
	mu      sync.Mutex
	cond    *sync.Cond
	queue   []ServerStatus
	fn      func(ServerStatus)
	closing bool
	done    chan struct{}
}

func (n *notifier) start(fn func(ServerStatus)) {
	if fn == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.cond = sync.NewCond(&n.mu)
	n.fn = fn
	n.done = make(chan struct{})
	go n.loop()
}

func (n *notifier) push(st ServerStatus) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.fn == nil || n.closing {
		return
	}
	n.queue = append(n.queue, st)
	n.cond.Signal()
}

func (n *notifier) loop() {
	defer close(n.done)
	for {
		n.mu.Lock()
		for len(n.queue) == 0 && !n.closing {
			n.cond.Wait()
		}
		q := n.queue
		n.queue = nil
		closing := n.closing
		n.mu.Unlock()
		for _, st := range q {
			n.fn(st)
		}
		if closing && len(q) == 0 {
			return
		}
	}
}

// stop delivers what is queued and ends the goroutine.
func (n *notifier) stop() {
	n.mu.Lock()
	if n.fn == nil || n.closing {
		n.mu.Unlock()
		return
	}
	n.closing = true
	n.cond.Signal()
	n.mu.Unlock()
	<-n.done
}
