package mcp

import (
	"net/http"
	"os"
	"sort"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpTransport is the streamable HTTP transport of a URL server, sending
// the configured headers with every request and logging in with OAuth
// when the server asks for it.
func (m *Manager) httpTransport(cfg ServerConfig) *sdk.StreamableClientTransport {
	t := &sdk.StreamableClientTransport{Endpoint: cfg.URL}
	if len(cfg.Headers) > 0 {
		t.HTTPClient = &http.Client{Transport: &headerTransport{headers: cfg.Headers, base: http.DefaultTransport}}
	}
	if h := m.authOf(cfg.Name); h != nil {
		t.OAuthHandler = h
	}
	return t
}

// headerTransport adds fixed headers (an API key, say) to each request. The
// values never reach a log: only their names are ever shown.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	return t.base.RoundTrip(req)
}

// ExpandHeaders expands ${VAR} and $VAR in header values with lookup and
// returns, sorted, the names of the variables that were unset or empty (a
// header of "Bearer " would only earn a puzzling 401).
func ExpandHeaders(headers map[string]string, lookup func(string) string) (map[string]string, []string) {
	if len(headers) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(headers))
	unset := map[string]bool{}
	for k, v := range headers {
		out[k] = os.Expand(v, func(name string) string {
			val := lookup(name)
			if val == "" {
				unset["$"+name] = true
			}
			return val
		})
	}
	names := make([]string, 0, len(unset))
	for n := range unset {
		names = append(names, n)
	}
	sort.Strings(names)
	return out, names
}

// hasHeader reports whether headers set name, case-insensitively.
func hasHeader(headers map[string]string, name string) bool {
	for k := range headers {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}
