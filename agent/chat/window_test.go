package chat

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// probeServer answers the window endpoints in paths; a request for a path
// in slow waits until `after` requests for the other paths were answered,
// so lower-priority answers arrive first.
type probeServer struct {
	paths map[string]string
	slow  map[string]bool
	after int

	mu      sync.Mutex
	gate    bool
	fast    int
	release chan struct{}
}

func (p *probeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	gated := p.gate && p.slow[r.URL.Path]
	p.mu.Unlock()
	if gated {
		select {
		case <-p.release:
		case <-r.Context().Done():
			return
		case <-time.After(5 * time.Second): // never reached unless the count is wrong
		}
	}
	body, ok := p.paths[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
	} else {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}
	if !gated {
		p.mu.Lock()
		if p.gate {
			p.fast++
		}
		if p.gate && p.fast == p.after {
			close(p.release)
		}
		p.mu.Unlock()
	}
}

// sequential is the answer of asking the probes one after another.
func sequential(c *Client, model string) Window {
	for _, probe := range c.windowProbes() {
		if w := probe(context.Background(), c.base[:len(c.base)-len("/v1")], model); w.Tokens > 0 {
			return w
		}
	}
	return Window{}
}

func TestConcurrentProbesPickTheSequentialAnswer(t *testing.T) {
	const (
		vllm     = `{"data":[{"id":"m","max_model_len":16384}]}`
		plain    = `{"data":[{"id":"m"}]}`
		show     = `{"parameters":"num_ctx 12288","model_info":{}}`
		ps       = `{"models":[]}`
		props    = `{"default_generation_settings":{"n_ctx":4096}}`
		lmstudio = `{"data":[{"id":"m","loaded_context_length":8192}]}`
	)
	for _, tc := range []struct {
		name  string
		paths map[string]string
		slow  []string
		after int
		want  int
	}{
		{"every probe answers, the first last", map[string]string{"/v1/models": vllm, "/api/show": show, "/api/ps": ps, "/props": props, "/api/v0/models": lmstudio},
			[]string{"/v1/models"}, 4, 16384},
		{"the model list has no window, Ollama answers last", map[string]string{"/v1/models": plain, "/api/show": show, "/api/ps": ps, "/props": props, "/api/v0/models": lmstudio},
			[]string{"/api/show", "/api/ps"}, 3, 12288},
		{"only the last probe answers", map[string]string{"/v1/models": plain, "/api/v0/models": lmstudio}, []string{"/v1/models"}, 3, 8192},
		{"a slow llama.cpp before LM Studio", map[string]string{"/props": props, "/api/v0/models": lmstudio}, []string{"/props"}, 3, 4096},
		{"none answers", map[string]string{"/v1/models": plain}, nil, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &probeServer{paths: tc.paths, slow: map[string]bool{}, after: tc.after, release: make(chan struct{})}
			for _, s := range tc.slow {
				p.slow[s] = true
			}
			srv := httptest.NewServer(p)
			defer srv.Close()
			c := NewClient(ClientConfig{BaseURL: srv.URL + "/v1"})
			want := sequential(c, "m")
			if want.Tokens != tc.want {
				t.Fatalf("asked in order the probes give %+v; want %d tokens", want, tc.want)
			}
			p.mu.Lock()
			p.gate = true
			p.mu.Unlock()
			if got := c.ProbeWindow(context.Background(), "m"); got != want {
				t.Fatalf("concurrent probes give %+v; asked in order %+v", got, want)
			}
		})
	}
}

func TestProbeWindowStopsWithItsContext(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Window)
	go func() { done <- NewClient(ClientConfig{BaseURL: srv.URL + "/v1"}).ProbeWindow(ctx, "m") }()
	cancel()
	if w := <-done; w.Tokens != 0 {
		t.Fatalf("a cancelled probe found %+v", w)
	}
}
