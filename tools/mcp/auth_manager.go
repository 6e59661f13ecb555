package mcp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"myclaw/tools"
)

// Options tie a Manager to the rest of myclaw. The zero value suits a run
// without a person: logins are kept in memory and never started.
type Options struct {
	// StateDir is myclaw's state directory: OAuth logins are stored under
	// it in AuthDirName, one 0600 file per server. Empty keeps them in
	// memory.
	StateDir string
	// Workspace keys what is kept per project in StateDir (SeenFile).
	Workspace string
	// Interactive says a person is there to log in (the TUI). Without one,
	// a server that needs a login fails, naming the command that logs in.
	Interactive bool
	// Login names a URL server that logs in afresh as it starts (myclaw
	// mcp login): its stored login is not offered (it stays on disk until
	// a new one replaces it) and its first run may open the browser.
	Login string
	// Redirects carries what the person types while the Login server's
	// login waits: a browser on another machine (over SSH) cannot reach
	// the loopback redirect, and the address of the page it ends on,
	// pasted, is taken as the redirect.
	Redirects <-chan string
	// Browse opens a login URL in the browser (OpenBrowser when nil). The
	// URL is also given to Notify, for sessions over SSH.
	Browse func(url string) error
	// Notify shows the user a line about a server outside of any call (a
	// login URL); it must not block for long. May be nil.
	Notify func(server, text string)
	// Elicit asks the person to fill in a server's form and blocks until
	// they answer or ctx ends (an error cancels). Nil declines every form:
	// there is nobody to ask.
	Elicit func(ctx context.Context, e Elicitation) (ElicitAnswer, error)
	// Sample asks the person to approve a server's request to use the
	// model (for servers with sampling = true) and, if they do, sends it;
	// ErrSamplingDeclined says they did not. Nil declines every request.
	Sample func(ctx context.Context, r SamplingRequest) (SamplingAnswer, error)
}

// SetOptions configures the Manager; it must be called before Start.
func (m *Manager) SetOptions(o Options) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if o.Browse == nil {
		o.Browse = OpenBrowser
	}
	m.opts = o
}

// setUpAuthLocked gives each URL server without an Authorization header
// its OAuth handler, loading a stored login. m.mu is held.
func (m *Manager) setUpAuthLocked() {
	dir := ""
	if m.opts.StateDir != "" {
		dir = filepath.Join(m.opts.StateDir, AuthDirName)
	}
	m.tokens = newTokenStore(dir)
	client := m.authClient
	if client == nil {
		client = authClient
	}
	for _, s := range m.servers {
		if s.cfg.URL == "" || hasHeader(s.cfg.Headers, "Authorization") || s.cfgErr != nil {
			continue
		}
		s.auth = newAuthHandler(s.cfg, m.tokens, client(s.cfg.URL), m.opts.Browse, m.opts.Notify)
		s.auth.interactive = m.opts.Interactive
		if s.cfg.Name == m.opts.Login {
			s.auth.freshLogin()
			s.auth.redirects = m.opts.Redirects
		}
	}
}

// authOf returns the OAuth handler of the named server, if it has one.
func (m *Manager) authOf(name string) *authHandler {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.byName[name]; ok {
		return s.auth
	}
	return nil
}

// Login logs in to a URL server in the browser: the server is restarted
// with a run that may open the browser when the server answers 401. It
// returns at once; the state shows in Status (AuthPending, then
// AuthLoggedIn or AuthNeeded with the reason).
func (m *Manager) Login(ctx context.Context, name string) error {
	h, err := m.authFor(name)
	if err != nil {
		return err
	}
	m.mu.Lock()
	interactive := m.opts.Interactive
	m.mu.Unlock()
	if !interactive {
		return fmt.Errorf("logging in to %s needs a browser and a person: run myclaw mcp login %s", name, name)
	}
	h.requestLogin(true)
	if err := m.Restart(ctx, name); err != nil {
		h.requestLogin(false)
		return err
	}
	return nil
}

// Logout forgets the server's login (on disk too) and restarts the server,
// which then reports that it needs a login.
func (m *Manager) Logout(ctx context.Context, name string) error {
	h, err := m.authFor(name)
	if err != nil {
		return err
	}
	if err := h.logout(); err != nil {
		return err
	}
	return m.Restart(ctx, name)
}

func (m *Manager) authFor(name string) (*authHandler, error) {
	m.mu.Lock()
	s, ok := m.byName[name]
	m.mu.Unlock()
	switch {
	case !ok:
		return nil, m.unknownServer(name)
	case s.cfg.URL == "":
		return nil, fmt.Errorf("MCP server %q is a local command: it has no login", name)
	case hasHeader(s.cfg.Headers, "Authorization"):
		return nil, fmt.Errorf("MCP server %q takes its credentials from the headers in the config: it has no login", name)
	}
	h := m.authOf(name)
	if h == nil {
		return nil, errors.New("mcp: the manager has not started")
	}
	return h, nil
}

// loginError ends a run whose server refused its login (the token expired
// or was revoked, and could not be refreshed) and tells the model so. The
// other servers are not affected.
func (r *run) loginError() error {
	name := r.s.cfg.Name
	reason := r.s.auth.loginReason()
	r.end(StateFailed, reason)
	return (&tools.Error{
		Kind:    tools.KindPermissionDenied,
		Message: fmt.Sprintf("the MCP server %s refused the call: %s", name, reason),
		Hint:    fmt.Sprintf("Its tools are withdrawn until the user logs in again. Tell the user to run %s; meanwhile use other tools. Do not retry this call.", r.s.auth.loginCommand()),
	}).With("server", name)
}
