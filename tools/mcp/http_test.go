package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"myclaw/tools"
)

func TestExpandHeaders(t *testing.T) {
	env := map[string]string{"GITHUB_TOKEN": "ghp_x", "EMPTY": ""}
	got, unset := ExpandHeaders(map[string]string{
		"Authorization": "Bearer ${GITHUB_TOKEN}",
		"X-Both":        "$MISSING-$EMPTY",
	}, func(k string) string { return env[k] })
	if got["Authorization"] != "Bearer ghp_x" {
		t.Errorf("got Authorization %q; want the token expanded", got["Authorization"])
	}
	if strings.Join(unset, ",") != "$EMPTY,$MISSING" {
		t.Errorf("got unset %v; want $EMPTY and $MISSING", unset)
	}
}

// requireHeader answers 401 unless the request carries the header.
func requireHeader(name, value string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(name) != value {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func TestStaticHeaders(t *testing.T) {
	srv := testServer(t)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	hs := httptest.NewServer(requireHeader("Authorization", "Bearer s3cret", h))
	t.Cleanup(hs.Close) // after the manager's Close: open streams would block it

	reg := tools.NewRegistry()
	m := newTestManager(t, reg,
		ServerConfig{Name: "keyed", URL: hs.URL, Enabled: true, Timeout: 30 * time.Second,
			Headers: map[string]string{"Authorization": "Bearer s3cret"}},
		ServerConfig{Name: "bare", URL: hs.URL, Enabled: true, Timeout: 30 * time.Second},
		ServerConfig{Name: "unset", URL: hs.URL, Enabled: true, Timeout: 30 * time.Second,
			Headers: map[string]string{"Authorization": "Bearer "}, Unset: []string{"$GITHUB_TOKEN"}},
	)
	m.Start(context.Background(), nil)
	waitStatus(t, m, "keyed", inState(StateRunning))
	res, err := call(t, reg, "keyed/echo", `{"text":"hi"}`)
	if err != nil || res.Body != "echo: hi" {
		t.Errorf("got %q, %v; want the echo through the keyed server", res.Body, err)
	}
	if st := waitStatus(t, m, "bare", inState(StateFailed)); st.Auth != AuthNeeded || !strings.Contains(st.LastError, "needs a login") {
		t.Errorf("got auth %q, last error %q for the server without the header; want it refused, needing a login", st.Auth, st.LastError)
	}
	if st := waitStatus(t, m, "keyed", inState(StateRunning)); st.Auth != AuthHeaders {
		t.Errorf("got auth %q for the keyed server; want %q", st.Auth, AuthHeaders)
	}
	st := waitStatus(t, m, "unset", inState(StateFailed))
	if want := "mcp.servers.unset.headers: $GITHUB_TOKEN not set in the environment"; st.LastError != want {
		t.Errorf("got last error %q; want %q", st.LastError, want)
	}
}
