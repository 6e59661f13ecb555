package acp

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeModel is an OpenAI-compatible server on 127.0.0.1 that answers by
// the newest user message: a tool call the test chose for it, then (once
// the call's result is in) a short answer. It records every request.
type fakeModel struct {
	mu     sync.Mutex
	bodies []string
	// calls maps a phrase of the user message to the call it makes.
	calls map[string][2]string
	srv   *httptest.Server
	// stall, when set, is a phrase of the user message the server never
	// answers: it says so on stalled and waits for the request to end.
	stall   string
	stalled chan struct{}
}

func newFakeModel(t testing.TB, calls map[string][2]string) *fakeModel {
	f := &fakeModel{calls: calls}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeModel) url() string { return f.srv.URL + "/v1" }

// saw reports whether some request had all of parts.
func (f *fakeModel) saw(parts ...string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range f.bodies {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(b, p)
		}
		if all {
			return true
		}
	}
	return false
}

func (f *fakeModel) serve(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "/models") {
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"test-model","object":"model"}]}`)
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	raw, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, string(raw))
	f.mu.Unlock()
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(raw, &body)
	last, answered := "", false
	for _, m := range body.Messages {
		switch m.Role {
		case "user":
			last, answered = string(m.Content), false
		case "tool":
			answered = true
		}
	}
	if f.stall != "" && !answered && strings.Contains(last, f.stall) {
		f.stalled <- struct{}{}
		<-r.Context().Done()
		return
	}
	var call *[2]string
	if !answered {
		for phrase, c := range f.calls {
			if strings.Contains(last, phrase) {
				call = &c
				break
			}
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	write := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	delta := func(d map[string]any, finish any) map[string]any {
		return map[string]any{"choices": []any{map[string]any{"index": 0, "delta": d, "finish_reason": finish}}}
	}
	if call == nil {
		write(delta(map[string]any{"role": "assistant", "content": "Done."}, nil))
		write(delta(map[string]any{}, "stop"))
	} else {
		write(delta(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "type": "function",
			"function": map[string]any{"name": call[0], "arguments": call[1]}}}}, nil))
		write(delta(map[string]any{}, "tool_calls"))
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
}
