package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"myclaw/tools"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// webSearchFake is a SearXNG stand-in that records the last query string.
func webSearchFake(t *testing.T, status int, body string) (*httptest.Server, *atomic.Value) {
	t.Helper()
	var last atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		last.Store(r.URL.RawQuery)
		if r.URL.Path != "/search" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &last
}

func TestWebSearch(t *testing.T) {
	var results []map[string]string
	for i := range 14 {
		results = append(results, map[string]string{
			"title":   "Result " + string(rune('A'+i)),
			"url":     "https://example.com/" + string(rune('a'+i)),
			"content": "Snippet\nfor " + string(rune('A'+i)) + strings.Repeat(" long", 200),
		})
	}
	results = append(results[:2], append([]map[string]string{{"title": "no url"}}, results[2:]...)...)
	full, _ := json.Marshal(map[string]any{"query": "go generics", "number_of_results": 0, "results": results, "suggestions": []string{"go generics tutorial"}})

	tests := []struct {
		name      string
		status    int
		body      string
		kind      tools.Kind
		wantShown int
		wantBody  []string
	}{
		{"results listed and bounded", 200, string(full), "", 10, []string{
			"1. Result A\n   https://example.com/a\n   Snippet for A long",
			"10. Result J\n", "Related searches: go generics tutorial",
		}},
		{"no results", 200, `{"query":"x","results":[]}`, "", 0, []string{"(no results)"}},
		{"json disabled", 403, `Forbidden`, tools.KindExternalError, 0, nil},
		{"rate limited", 429, `Too Many Requests`, tools.KindQuotaExceeded, 0, nil},
		{"server failure", 500, `boom`, tools.KindNetworkError, 0, nil},
		{"not searxng", 200, `<html>hello</html>`, tools.KindExternalError, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, last := webSearchFake(t, tt.status, tt.body)
			tool := NewWebSearch(srv.URL+"/search?language=en", WebOptions{})
			res, err := tool.Execute(context.Background(), json.RawMessage(`{"query":"  go   generics "}`))
			if q, _ := last.Load().(string); !strings.Contains(q, "q=go+generics") || !strings.Contains(q, "format=json") || !strings.Contains(q, "language=en") {
				t.Errorf("query string = %q; want q, format=json and the endpoint's own parameters", q)
			}
			if tt.kind != "" {
				var te *tools.Error
				if !errors.As(err, &te) || te.Kind != tt.kind {
					t.Fatalf("error = %v; want kind %s", err, tt.kind)
				}
				return
			}
			if err != nil {
				t.Fatalf("Execute error: %v", err)
			}
			out := res.Output.(webSearchOutput)
			if out.ResultsShown != tt.wantShown || out.Query != "go generics" {
				t.Errorf("output = %+v; want %d results shown for \"go generics\"", out, tt.wantShown)
			}
			for _, s := range tt.wantBody {
				if !strings.Contains(res.Body, s) {
					t.Errorf("body %q lacks %q", res.Body, s)
				}
			}
			if strings.Contains(res.Body, "11. ") || strings.Contains(res.Body, "no url") {
				t.Errorf("body lists more than 10 results or one without a URL")
			}
			if res.Source != "web:search:go generics" {
				t.Errorf("Source = %q; want web:search:go generics", res.Source)
			}
			if tt.wantShown == 10 && !strings.Contains(out.Note, "shown the first 10 of 14") {
				t.Errorf("note = %q; want the bound explained", out.Note)
			}
		})
	}
}

func TestWebSearchBadSetup(t *testing.T) {
	tests := []struct {
		name     string
		endpoint string
		args     string
		kind     tools.Kind
	}{
		{"endpoint not a URL", "localhost:8888", `{"query":"x"}`, tools.KindUnsupported},
		{"endpoint unreachable", "http://127.0.0.1:1/search", `{"query":"x"}`, tools.KindNetworkError},
		{"empty query", "http://127.0.0.1:1/search", `{"query":"   "}`, tools.KindInvalidArgs},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewWebSearch(tt.endpoint, WebOptions{}).Execute(context.Background(), json.RawMessage(tt.args))
			var te *tools.Error
			if !errors.As(err, &te) || te.Kind != tt.kind {
				t.Errorf("error = %v; want kind %s", err, tt.kind)
			}
		})
	}
	m := NewWebSearch("http://localhost/search", WebOptions{}).Meta()
	if !m.ReadOnly || !m.ReturnsUntrusted || !m.Idempotent || m.Risk != tools.RiskLow {
		t.Errorf("meta = %+v; want read-only, untrusted, idempotent, low risk", m)
	}
}
