package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"myclaw/internal/durable"
	"myclaw/tools/proc"
	"myclaw/tools/secret"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// AuthDirName is the directory of the state dir that holds OAuth logins.
const AuthDirName = "mcp-auth"

// savedToken is one server's login as stored on disk (0600): the token and
// what refreshing it needs. It is bound to the server's URL.
type savedToken struct {
	ServerURL    string       `json:"server_url"`
	Resource     string       `json:"resource"`
	ClientID     string       `json:"client_id"`
	ClientSecret string       `json:"client_secret,omitempty"`
	TokenURL     string       `json:"token_url"`
	AuthStyle    int          `json:"auth_style"`
	Scopes       []string     `json:"scopes,omitempty"`
	Token        oauth2.Token `json:"token"`
	Saved        time.Time    `json:"saved"`
}

// tokenStore keeps logins in dir, one file per server. An empty dir keeps
// them in memory only (tests, or no state directory).
type tokenStore struct {
	dir string

	mu  sync.Mutex
	mem map[string]*savedToken
}

func newTokenStore(dir string) *tokenStore {
	return &tokenStore{dir: dir, mem: map[string]*savedToken{}}
}

func (s *tokenStore) path(name string) string { return filepath.Join(s.dir, name+".json") }

func (s *tokenStore) load(name string) (*savedToken, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		return s.mem[name], nil
	}
	b, err := os.ReadFile(s.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var st savedToken
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("read the login of %s: %w", name, err)
	}
	st.register()
	return &st, nil
}

// register adds the login's credentials to the secret registry: no child
// inherits them under any name and no output shows them. Every token passes
// here, read at start or saved when obtained or refreshed.
func (st *savedToken) register() {
	secret.Add(st.Token.AccessToken, st.Token.RefreshToken, st.ClientSecret)
	_ = proc.HideRegistered() // best effort: children are scrubbed by value anyway
}

func (s *tokenStore) save(name string, st *savedToken) error {
	st.register()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		s.mem[name] = st
		return nil
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("save the login of %s: %w", name, err)
	}
	if err := durable.WriteFile(s.path(name), b, 0o600); err != nil {
		return fmt.Errorf("save the login of %s: %w", name, err)
	}
	return nil
}

func (s *tokenStore) remove(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.mem, name)
	if s.dir == "" {
		return nil
	}
	if err := os.Remove(s.path(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the login of %s: %w", name, err)
	}
	return nil
}

// doTokenRequest sends a token request and decodes the answer (RFC 6749
// §5.1, §5.2). An error answer is an *oauth2.RetrieveError.
func doTokenRequest(c *http.Client, req *http.Request) (*oauth2.Token, error) {
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("token request: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("token request: %w", err)
	}
	var tr struct {
		AccessToken      string `json:"access_token"`
		TokenType        string `json:"token_type"`
		RefreshToken     string `json:"refresh_token"`
		ExpiresIn        int64  `json:"expires_in"`
		Error            string `json:"error"`
		ErrorDescription string `json:"error_description"`
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct == "application/json" || strings.HasPrefix(strings.TrimSpace(string(body)), "{") {
		_ = json.Unmarshal(body, &tr)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 || tr.Error != "" {
		code := tr.Error
		if code == "" {
			code = fmt.Sprintf("http_%d", resp.StatusCode)
		}
		return nil, &oauth2.RetrieveError{Response: resp, Body: body, ErrorCode: code, ErrorDescription: tr.ErrorDescription}
	}
	if tr.AccessToken == "" {
		return nil, errors.New("token request: the answer has no access_token")
	}
	tok := &oauth2.Token{AccessToken: tr.AccessToken, TokenType: tr.TokenType, RefreshToken: tr.RefreshToken}
	if tr.ExpiresIn > 0 {
		tok.Expiry = time.Now().Add(time.Duration(tr.ExpiresIn) * time.Second)
	}
	return tok, nil
}

// LoginFile is where the login of the server called name is stored under
// myclaw's state directory.
func LoginFile(stateDir, name string) string {
	return newTokenStore(filepath.Join(stateDir, AuthDirName)).path(name)
}

// ForgetLogin removes the stored login of the server called name (myclaw
// mcp logout), reporting whether there was one.
func ForgetLogin(stateDir, name string) (bool, error) {
	if err := CheckName(name); err != nil {
		return false, err
	}
	s := newTokenStore(filepath.Join(stateDir, AuthDirName))
	if _, err := os.Lstat(s.path(name)); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return true, s.remove(name)
}
