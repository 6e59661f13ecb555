// Package mcptest holds test servers for MCP clients: an OAuth
// authorization server with an MCP server that requires its tokens, on
// loopback.
package mcptest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// OAuth is an authorization server and an MCP server that requires its
// tokens, on two loopback httptest servers.
type OAuth struct {
	// AS is the authorization server; RS serves the MCP server at /mcp.
	AS, RS *httptest.Server

	// Mu guards the fields below.
	Mu         sync.Mutex
	clients    map[string][]string // client_id -> redirect URIs
	codes      map[string]codeGrant
	access     map[string]bool
	refresh    map[string]bool
	ExpiresIn  int
	Refreshes  int
	RefreshRes []string     // the resource parameter of each refresh
	Issued     []string     // every access and refresh token handed out
	Authorized []url.Values // the query of each authorization request
}

type codeGrant struct {
	clientID, redirect, challenge, resource string
}

// NewOAuth starts both servers, closed when the test ends; srv is the MCP
// server behind the bearer-token check.
func NewOAuth(t testing.TB, srv *sdk.Server) *OAuth {
	f := &OAuth{clients: map[string][]string{}, codes: map[string]codeGrant{},
		access: map[string]bool{}, refresh: map[string]bool{}, ExpiresIn: 3600}
	f.AS = httptest.NewServer(http.HandlerFunc(f.serveAS))
	mux := http.NewServeMux()
	f.RS = httptest.NewServer(mux)
	prmURL := f.RS.URL + "/.well-known/oauth-protected-resource/mcp"
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:             f.RS.URL + "/mcp",
		AuthorizationServers: []string{f.AS.URL},
		ScopesSupported:      []string{"mcp:tools"},
	}))
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		f.Mu.Lock()
		defer f.Mu.Unlock()
		if !f.access[token] {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Scopes: []string{"mcp:tools"}, Expiration: time.Now().Add(time.Hour)}, nil
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	mux.Handle("/mcp", auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prmURL})(h))
	t.Cleanup(f.RS.Close)
	t.Cleanup(f.AS.Close)
	return f
}

func (f *OAuth) serveAS(w http.ResponseWriter, r *http.Request) {
	writeJSON := func(code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(v)
	}
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		writeJSON(200, map[string]any{
			"issuer":                                f.AS.URL,
			"authorization_endpoint":                f.AS.URL + "/authorize",
			"token_endpoint":                        f.AS.URL + "/token",
			"registration_endpoint":                 f.AS.URL + "/register",
			"response_types_supported":              []string{"code"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": []string{"none"},
			"scopes_supported":                      []string{"mcp:tools", "offline_access"},
		})
	case "/register":
		var meta oauthex.ClientRegistrationMetadata
		if err := json.NewDecoder(r.Body).Decode(&meta); err != nil {
			writeJSON(400, map[string]string{"error": "invalid_client_metadata"})
			return
		}
		f.Mu.Lock()
		id := "client-" + rand.Text()[:6]
		f.clients[id] = meta.RedirectURIs
		f.Mu.Unlock()
		writeJSON(201, map[string]any{"client_id": id, "redirect_uris": meta.RedirectURIs, "token_endpoint_auth_method": "none"})
	case "/authorize":
		q := r.URL.Query()
		f.Mu.Lock()
		f.Authorized = append(f.Authorized, q)
		redirects := f.clients[q.Get("client_id")]
		ok := q.Get("code_challenge_method") == "S256" && q.Get("code_challenge") != "" && q.Get("resource") == f.RS.URL+"/mcp"
		okRedirect := false
		for _, u := range redirects {
			okRedirect = okRedirect || u == q.Get("redirect_uri")
		}
		code := rand.Text()
		if ok && okRedirect {
			f.codes[code] = codeGrant{q.Get("client_id"), q.Get("redirect_uri"), q.Get("code_challenge"), q.Get("resource")}
		}
		f.Mu.Unlock()
		if !okRedirect {
			http.Error(w, "unknown client or redirect", 400)
			return
		}
		target, _ := url.Parse(q.Get("redirect_uri"))
		back := url.Values{"state": {q.Get("state")}}
		if ok {
			back.Set("code", code)
		} else {
			back.Set("error", "invalid_request")
		}
		target.RawQuery = back.Encode()
		http.Redirect(w, r, target.String(), http.StatusFound)
	case "/token":
		_ = r.ParseForm()
		f.Mu.Lock()
		defer f.Mu.Unlock()
		switch r.PostForm.Get("grant_type") {
		case "authorization_code":
			g, ok := f.codes[r.PostForm.Get("code")]
			delete(f.codes, r.PostForm.Get("code"))
			sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge || r.PostForm.Get("resource") != g.resource ||
				r.PostForm.Get("redirect_uri") != g.redirect || r.PostForm.Get("client_id") != g.clientID {
				writeJSON(400, map[string]string{"error": "invalid_grant"})
				return
			}
		case "refresh_token":
			f.Refreshes++
			f.RefreshRes = append(f.RefreshRes, r.PostForm.Get("resource"))
			if !f.refresh[r.PostForm.Get("refresh_token")] {
				writeJSON(400, map[string]string{"error": "invalid_grant", "error_description": "revoked"})
				return
			}
			delete(f.refresh, r.PostForm.Get("refresh_token"))
		default:
			writeJSON(400, map[string]string{"error": "unsupported_grant_type"})
			return
		}
		at, rt := "at-"+rand.Text(), "rt-"+rand.Text()
		f.access[at], f.refresh[rt] = true, true
		f.Issued = append(f.Issued, at, rt)
		writeJSON(200, map[string]any{"access_token": at, "token_type": "Bearer", "refresh_token": rt, "expires_in": f.ExpiresIn})
	default:
		http.NotFound(w, r)
	}
}

// ExpireAccess makes the server refuse every access token issued so far.
func (f *OAuth) ExpireAccess() {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	f.access = map[string]bool{}
}

// Revoke makes the server refuse every token, refresh tokens included.
func (f *OAuth) Revoke() {
	f.Mu.Lock()
	defer f.Mu.Unlock()
	f.access, f.refresh = map[string]bool{}, map[string]bool{}
}
