package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"myclaw/tools"
)

// AuthState says where a URL server stands with its login.
type AuthState string

// Auth states. The empty state is a server that asked for no login (or a
// stdio server).
const (
	AuthNone AuthState = ""
	// AuthHeaders: the config gives the credentials (headers).
	AuthHeaders AuthState = "headers"
	// AuthNeeded: the server wants a login and there is no token.
	AuthNeeded AuthState = "login needed"
	// AuthPending: a login is under way in the browser.
	AuthPending AuthState = "logging in"
	// AuthLoggedIn: a token is stored and the server takes it.
	AuthLoggedIn AuthState = "logged in"
	// AuthExpired: the server refused the stored token and it could not be
	// refreshed (expired or revoked).
	AuthExpired AuthState = "login expired"
)

// loginTimeout bounds a login in the browser: the start-up of a run that
// logs in waits for the person, not just the server.
const loginTimeout = 5 * time.Minute

// OAuthConfig is the oauth table of a URL server's config.
type OAuthConfig struct {
	// ClientID is a client registered beforehand; empty means dynamic
	// client registration.
	ClientID string
	// ClientSecret goes with ClientID (a confidential client).
	ClientSecret string
	// Scopes replace the scopes the server asks for.
	Scopes []string
	// CallbackPort fixes the loopback redirect's port; 0 picks a free one.
	CallbackPort int
}

// authHandler is the auth.OAuthHandler of one URL server. It lives as long
// as the server's config, across runs: a restart keeps the token. Only a run
// started by Login may open the browser; any other run that meets a 401
// refreshes the token if it can and otherwise reports the login needed.
type authHandler struct {
	name   string
	cfg    ServerConfig
	store  *tokenStore
	client *http.Client // OAuth requests: metadata, registration, tokens
	browse func(string) error
	notify func(server, text string)
	// redirects are addresses the person pastes while a login waits.
	redirects <-chan string
	// interactive: the person is in the TUI (see loginCommand).
	interactive bool

	mu    sync.Mutex
	state AuthState
	msg   string // why the state is what it is, for /mcp
	// login: the current run's start-up may log in in the browser;
	// wantLogin: the next run's may (Login asked for it).
	login, wantLogin bool
	saved            *savedToken
}

func newAuthHandler(cfg ServerConfig, store *tokenStore, client *http.Client, browse func(string) error, notify func(string, string)) *authHandler {
	h := &authHandler{name: cfg.Name, cfg: cfg, store: store, client: client, browse: browse, notify: notify}
	if st, err := store.load(cfg.Name); err == nil && st != nil && st.ServerURL == cfg.URL {
		// A token is bound to the URL it was issued for: a config that now
		// points elsewhere must not send it there.
		h.saved = st
		h.state = AuthLoggedIn
	}
	return h
}

// status returns the auth state and its explanation.
func (h *authHandler) status() (AuthState, string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.state, h.msg
}

func (h *authHandler) set(st AuthState, msg string) {
	h.mu.Lock()
	h.state, h.msg = st, msg
	h.mu.Unlock()
}

// needsLogin reports whether the server is waiting for a login.
func (h *authHandler) needsLogin() bool {
	st, _ := h.status()
	return st == AuthNeeded || st == AuthExpired
}

// loginReason is the sentence a failed run and a failed call give.
func (h *authHandler) loginReason() string {
	st, msg := h.status()
	switch st {
	case AuthExpired:
		return fmt.Sprintf("the server refused the stored login (expired or revoked)%s; log in again with %s", suffix(msg), h.loginCommand())
	case AuthNeeded:
		return fmt.Sprintf("the server needs a login%s; log in with %s", suffix(msg), h.loginCommand())
	}
	return ""
}

// loginCommand is what the person types to log in: /mcp login in the TUI,
// myclaw mcp login from a shell (a headless run).
func (h *authHandler) loginCommand() string {
	if h.interactive {
		return "/mcp login " + h.name
	}
	return "myclaw mcp login " + h.name
}

func suffix(msg string) string {
	if msg == "" {
		return ""
	}
	return " (" + msg + ")"
}

// TokenSource implements auth.OAuthHandler.
func (h *authHandler) TokenSource(context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.saved == nil {
		return nil, nil
	}
	return storedSource{h}, nil
}

// Authorize implements auth.OAuthHandler: the server answered 401 (or 403).
func (h *authHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if resp.StatusCode == http.StatusForbidden && !insufficientScope(challenges) {
		resp.Body.Close()
		return nil // a plain refusal: the retry reports it as it is
	}
	h.mu.Lock()
	login, saved := h.login, h.saved
	h.mu.Unlock()
	if !login {
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		if saved != nil && saved.Token.RefreshToken != "" {
			// The server refused a token we thought good: it may have
			// expired early. One refresh, then a person must step in.
			if _, err := h.refresh(ctx, saved); err == nil {
				return nil
			}
		}
		if saved != nil {
			h.set(AuthExpired, "")
		} else {
			h.set(AuthNeeded, "")
		}
		return fmt.Errorf("%w: %s", errLoginNeeded, h.loginReason())
	}
	return h.browserLogin(ctx, req, resp)
}

func insufficientScope(cs []oauthex.Challenge) bool {
	for _, c := range cs {
		if c.Scheme == "bearer" && c.Params["error"] == "insufficient_scope" {
			return true
		}
	}
	return false
}

// browserLogin runs the authorization-code flow with PKCE through the SDK:
// discovery from the 401, client registration (dynamic, or the configured
// client id), the browser on a loopback redirect, the code exchange with the
// resource parameter. The token is saved by newTokenSource.
func (h *authHandler) browserLogin(ctx context.Context, req *http.Request, resp *http.Response) error {
	cb, err := listenCallback(h.cfg.OAuth)
	if err != nil {
		resp.Body.Close()
		return err
	}
	defer cb.close()
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              cb.url(),
		AuthorizationCodeFetcher: h.fetchCode(cb),
		RequestRefreshToken:      true,
		Client:                   h.client,
		NewTokenSource:           h.newTokenSource,
	}
	if o := h.cfg.OAuth; o != nil && o.ClientID != "" {
		cred := &oauthex.ClientCredentials{ClientID: o.ClientID}
		if o.ClientSecret != "" {
			cred.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}
		}
		cfg.PreregisteredClient = cred
	} else {
		cfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs:            []string{cb.url()},
			ClientName:              "myclaw",
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: "none",
		}}
	}
	if o := h.cfg.OAuth; o != nil && len(o.Scopes) > 0 {
		cfg.ScopeFilter = func([]string) []string { return o.Scopes }
	}
	sdkh, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		resp.Body.Close()
		return fmt.Errorf("set up the login: %w", err)
	}
	h.set(AuthPending, "")
	if err := sdkh.Authorize(ctx, req, resp); err != nil {
		h.set(AuthNeeded, "the last login failed: "+tools.Clip(err.Error(), 300))
		return fmt.Errorf("%w: login failed: %v", errLoginNeeded, err) //nolint:errorlint // only the need for a login is for callers to match, not why it failed
	}
	h.mu.Lock()
	ok := h.saved != nil
	h.mu.Unlock()
	if !ok {
		h.set(AuthNeeded, "the login gave no token")
		return fmt.Errorf("%w: the login gave no token", errLoginNeeded)
	}
	h.set(AuthLoggedIn, "")
	return nil
}

// fetchCode shows the authorization URL (opened in the browser and also
// printed, for a session over SSH) and waits for the redirect.
func (h *authHandler) fetchCode(cb *callback) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		u, err := url.Parse(args.URL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
			return nil, fmt.Errorf("the authorization server gave a URL that is not http(s): %q", tools.Clip(args.URL, 200))
		}
		shown := tools.Neutralize(args.URL)
		text := fmt.Sprintf("To log in to the MCP server %s, open this URL in a browser (waiting up to %s):\n%s", h.name, loginTimeout, shown)
		if h.browse != nil {
			if err := h.browse(args.URL); err != nil {
				text = fmt.Sprintf("Could not open a browser (%v). To log in to the MCP server %s, open this URL (waiting up to %s):\n%s", err, h.name, loginTimeout, shown)
			}
		}
		if h.redirects != nil {
			text += fmt.Sprintf("\nIf the browser runs on another machine (over SSH), the page it ends on will not load: paste that page's address here (it starts with %s).", cb.url())
		}
		if h.notify != nil {
			h.notify(h.name, text)
		}
		retry := func(msg string) {
			if h.notify != nil {
				h.notify(h.name, msg)
			}
		}
		return cb.wait(ctx, h.redirects, retry)
	}
}

// newTokenSource is the SDK's hook after the code exchange: it saves the
// token with what refreshing it needs.
func (h *authHandler) newTokenSource(_ context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
	st := &savedToken{
		ServerURL:    h.cfg.URL,
		Resource:     h.cfg.URL,
		ClientID:     cfg.ClientID,
		ClientSecret: cfg.ClientSecret,
		TokenURL:     cfg.Endpoint.TokenURL,
		AuthStyle:    int(cfg.Endpoint.AuthStyle),
		Scopes:       cfg.Scopes,
		Token:        *tok,
		Saved:        time.Now().UTC(),
	}
	if err := h.store.save(h.name, st); err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.saved = st
	h.mu.Unlock()
	return storedSource{h}, nil
}

// logout forgets the token, on disk too.
func (h *authHandler) logout() error {
	h.mu.Lock()
	h.saved = nil
	h.state, h.msg = AuthNeeded, "logged out"
	h.mu.Unlock()
	return h.store.remove(h.name)
}

// storedSource hands out the stored access token, refreshing it when it is
// about to expire.
type storedSource struct{ h *authHandler }

// refreshMargin is how long before its expiry a token is refreshed.
const refreshMargin = 30 * time.Second

// Token implements oauth2.TokenSource. A token that cannot be refreshed is
// reported as invalid_grant: the transport then sends the request without
// it, and the server's 401 leads to Authorize, which says a login is needed.
func (s storedSource) Token() (*oauth2.Token, error) {
	s.h.mu.Lock()
	saved := s.h.saved
	s.h.mu.Unlock()
	if saved == nil {
		return nil, &oauth2.RetrieveError{ErrorCode: "invalid_grant", ErrorDescription: "logged out"}
	}
	tok := saved.Token
	if tok.Expiry.IsZero() || time.Until(tok.Expiry) > refreshMargin {
		return &tok, nil
	}
	if tok.RefreshToken == "" {
		return nil, &oauth2.RetrieveError{ErrorCode: "invalid_grant", ErrorDescription: "the token expired"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return s.h.refresh(ctx, saved)
}

// refresh trades the refresh token for a new token, sending the resource
// parameter (RFC 8707, as the MCP authorization spec asks of every token
// request; oauth2.Config's refresh cannot), and saves the result.
func (h *authHandler) refresh(ctx context.Context, saved *savedToken) (*oauth2.Token, error) {
	form := url.Values{
		"grant_type":    {"refresh_token"},
		"refresh_token": {saved.Token.RefreshToken},
		"resource":      {saved.Resource},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, saved.TokenURL, nil)
	if err != nil {
		return nil, err
	}
	if saved.ClientSecret != "" && oauth2.AuthStyle(saved.AuthStyle) == oauth2.AuthStyleInHeader {
		req.SetBasicAuth(url.QueryEscape(saved.ClientID), url.QueryEscape(saved.ClientSecret))
	} else {
		form.Set("client_id", saved.ClientID)
		if saved.ClientSecret != "" {
			form.Set("client_secret", saved.ClientSecret)
		}
	}
	body := form.Encode()
	req.Body = io.NopCloser(strings.NewReader(body))
	req.ContentLength = int64(len(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	tok, err := doTokenRequest(h.client, req)
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			h.set(AuthExpired, "refresh refused: "+re.ErrorCode)
		}
		return nil, err
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = saved.Token.RefreshToken // the server kept the old one
	}
	next := *saved
	next.Token = *tok
	next.Saved = time.Now().UTC()
	if err := h.store.save(h.name, &next); err != nil {
		return nil, err
	}
	h.mu.Lock()
	if h.saved == saved {
		h.saved = &next
	}
	h.state, h.msg = AuthLoggedIn, ""
	h.mu.Unlock()
	return tok, nil
}

// authClient is the HTTP client of the OAuth requests of a server at
// endpoint. With a plain client the SDK refuses to fetch metadata from
// private addresses (a public server must not steer myclaw into the local
// network); a server the user configured by a private or loopback address
// may use an authorization server on the same network.
func authClient(endpoint string) *http.Client {
	u, err := url.Parse(endpoint)
	if err == nil && isLocalHost(u.Hostname()) {
		return &http.Client{Transport: http.DefaultTransport, Timeout: 30 * time.Second}
	}
	return &http.Client{Timeout: 30 * time.Second}
}

func isLocalHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsPrivate())
}

// freshLogin sets the stored login aside and lets the first run log in in
// the browser: the server's 401 starts the flow even if a token is stored.
func (h *authHandler) freshLogin() {
	h.mu.Lock()
	h.saved, h.state, h.msg = nil, AuthNone, ""
	h.wantLogin = true
	h.mu.Unlock()
}

// requestLogin lets the server's next run log in in the browser.
func (h *authHandler) requestLogin(on bool) {
	h.mu.Lock()
	h.wantLogin = on
	h.mu.Unlock()
}

// beginRun is called as a run starts: it may log in if a login was
// requested since the last run began. It reports whether it may.
func (h *authHandler) beginRun() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.login, h.wantLogin = h.wantLogin, false
	return h.login
}

// endLogin closes the run's chance to log in: later 401s only refresh.
func (h *authHandler) endLogin() {
	h.mu.Lock()
	h.login = false
	h.mu.Unlock()
}

var _ auth.OAuthHandler = (*authHandler)(nil)
