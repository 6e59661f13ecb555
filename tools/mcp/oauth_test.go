package mcp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"myclaw/internal/mcptest"
	"myclaw/tools"
	"myclaw/tools/proc"
)

// browser stands in for the user's browser: it follows the authorization
// URL (the fake server approves at once) to the loopback redirect.
type browser struct {
	mu     sync.Mutex
	opened []string
}

func (b *browser) open(u string) error {
	b.mu.Lock()
	b.opened = append(b.opened, u)
	b.mu.Unlock()
	go func() {
		resp, err := http.Get(u)
		if err == nil {
			resp.Body.Close()
		}
	}()
	return nil
}

func (b *browser) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.opened)
}

func TestOAuthLoginRefreshRevoke(t *testing.T) {
	f := mcptest.NewOAuth(t, testServer(t))
	plain := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return testServer(t) }, nil))
	t.Cleanup(plain.Close)
	state := t.TempDir()
	br := &browser{}
	var notesMu sync.Mutex
	var notes []string
	opts := Options{StateDir: state, Interactive: true, Browse: br.open, Notify: func(server, text string) {
		notesMu.Lock()
		notes = append(notes, server+": "+text)
		notesMu.Unlock()
	}}
	cfgs := []ServerConfig{
		{Name: "web", URL: f.RS.URL + "/mcp", Enabled: true, Timeout: 30 * time.Second},
		{Name: "other", URL: plain.URL, Enabled: true, Timeout: 30 * time.Second},
	}

	reg := tools.NewRegistry()
	m := newTestManager(t, reg, cfgs...)
	m.SetOptions(opts)
	m.Start(context.Background(), nil)

	// No stored login: the server says so and no browser opens by itself.
	st := waitStatus(t, m, "web", inState(StateFailed))
	if st.Auth != AuthNeeded || !strings.Contains(st.LastError, "/mcp login web") {
		t.Errorf("got auth %q, last error %q; want login needed naming /mcp login web", st.Auth, st.LastError)
	}
	if br.count() != 0 {
		t.Errorf("the browser was opened %d times before any login was asked for", br.count())
	}
	waitStatus(t, m, "other", inState(StateRunning))

	if err := m.Login(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	st = waitStatus(t, m, "web", inState(StateRunning))
	if st.Auth != AuthLoggedIn {
		t.Errorf("got auth %q after the login; want %q", st.Auth, AuthLoggedIn)
	}
	if br.count() != 1 {
		t.Fatalf("browser opened %d times; want once", br.count())
	}
	notesMu.Lock()
	if len(notes) != 1 || !strings.Contains(notes[0], br.opened[0]) {
		t.Errorf("got notices %q; want the login URL shown too", notes)
	}
	notesMu.Unlock()
	q := f.Authorized[0]
	if q.Get("code_challenge_method") != "S256" || q.Get("resource") != f.RS.URL+"/mcp" || !strings.HasPrefix(q.Get("redirect_uri"), "http://127.0.0.1:") {
		t.Errorf("authorization request %v; want PKCE S256, the resource and a loopback redirect", q)
	}
	if !strings.Contains(q.Get("scope"), "mcp:tools") || !strings.Contains(q.Get("scope"), "offline_access") {
		t.Errorf("got scope %q; want the server's scope and offline_access", q.Get("scope"))
	}

	file := filepath.Join(state, AuthDirName, "web.json")
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, mode %v; want it stored 0600", err, fi)
	}
	if di, err := os.Stat(filepath.Dir(file)); err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("token dir: %v, %v; want 0700", err, di)
	}

	res, err := call(t, reg, "web/echo", `{"text":"hi"}`)
	if err != nil || res.Body != "echo: hi" {
		t.Fatalf("got %q, %v; want the echo", res.Body, err)
	}

	// The server stops taking the access token: one refresh (with the
	// resource parameter) and the call goes through.
	f.ExpireAccess()
	res, err = call(t, reg, "web/echo", `{"text":"again"}`)
	if err != nil || res.Body != "echo: again" {
		t.Fatalf("after the access token expired: got %q, %v; want the echo after a refresh", res.Body, err)
	}
	f.Mu.Lock()
	if f.Refreshes != 1 || f.RefreshRes[0] != f.RS.URL+"/mcp" {
		t.Errorf("got %d refreshes with resources %q; want one with the resource", f.Refreshes, f.RefreshRes)
	}
	// Every token obtained or refreshed is a known credential: a child
	// holding it under any name does not get it, an output showing it is
	// redacted.
	if len(f.Issued) != 4 {
		t.Errorf("%d tokens issued; want 4 (login and refresh)", len(f.Issued))
	}
	for _, tok := range f.Issued {
		if env := proc.ScrubEnv([]string{"MY_VAR=" + tok}); len(env) != 0 || tools.Redact("tok "+tok) != "tok [redacted]" {
			t.Errorf("token %s: child env %q, redacted %q; want it dropped and redacted", tok, env, tools.Redact("tok "+tok))
		}
	}
	f.Mu.Unlock()

	// A new session starts from the stored login, without a browser.
	m.Close()
	reg2 := tools.NewRegistry()
	m2 := newTestManager(t, reg2, cfgs...)
	m2.SetOptions(opts)
	m2.Start(context.Background(), nil)
	waitStatus(t, m2, "other", inState(StateRunning))
	if st := waitStatus(t, m2, "web", inState(StateRunning)); st.Auth != AuthLoggedIn {
		t.Errorf("got auth %q in a new session; want the stored login", st.Auth)
	}
	if br.count() != 1 {
		t.Errorf("browser opened %d times; want the stored login used", br.count())
	}

	// Revoked: the refresh is refused too. The call says to log in again,
	// the server is marked, the other server carries on.
	f.Revoke()
	_, err = call(t, reg2, "web/echo", `{"text":"revoked"}`)
	var te *tools.Error
	if !errors.As(err, &te) || te.Kind != tools.KindPermissionDenied || !strings.Contains(te.Hint, "/mcp login web") {
		t.Errorf("got %v after revocation; want permission_denied asking for /mcp login web", err)
	}
	st = waitStatus(t, m2, "web", inState(StateFailed))
	if st.Auth != AuthExpired || !strings.Contains(st.LastError, "expired or revoked") {
		t.Errorf("got auth %q, last error %q; want the login reported expired", st.Auth, st.LastError)
	}
	if _, ok := reg2.Lookup("web/echo"); ok {
		t.Errorf("web/echo still registered after the login was revoked")
	}
	if res, err := call(t, reg2, "other/echo", `{"text":"fine"}`); err != nil || res.Body != "echo: fine" {
		t.Errorf("the other server: got %q, %v; want it unaffected", res.Body, err)
	}

	if err := m2.Logout(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("token file after logout: %v; want it gone", err)
	}
}

func TestOAuthHeadlessNeverOpensBrowser(t *testing.T) {
	f := mcptest.NewOAuth(t, testServer(t))
	br := &browser{}
	m := newTestManager(t, tools.NewRegistry(), ServerConfig{Name: "web", URL: f.RS.URL + "/mcp", Enabled: true, Timeout: 30 * time.Second})
	m.SetOptions(Options{Browse: br.open})
	m.Start(context.Background(), nil)
	st := waitStatus(t, m, "web", inState(StateFailed))
	if st.Auth != AuthNeeded || !strings.Contains(st.LastError, "log in with myclaw mcp login web") {
		t.Errorf("got auth %q, last error %q; want login needed with the shell's command", st.Auth, st.LastError)
	}
	if err := m.Login(context.Background(), "web"); err == nil || !strings.Contains(err.Error(), "run myclaw mcp login web") {
		t.Errorf("Login headless: got %v; want an error naming the command that logs in from a shell", err)
	}
	if br.count() != 0 {
		t.Errorf("a browser was opened %d times headless", br.count())
	}
}

func TestOAuthTokenBoundToURL(t *testing.T) {
	dir := t.TempDir()
	store := newTokenStore(dir)
	if err := store.save("web", &savedToken{ServerURL: "https://a.example/mcp", Token: oauth2Token("at")}); err != nil {
		t.Fatal(err)
	}
	h := newAuthHandler(ServerConfig{Name: "web", URL: "https://b.example/mcp"}, store, http.DefaultClient, nil, nil)
	if ts, _ := h.TokenSource(context.Background()); ts != nil {
		t.Errorf("a token stored for a.example is offered to b.example")
	}
}

func oauth2Token(access string) oauth2.Token { return oauth2.Token{AccessToken: access} }
