package agent

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

// fakeServer is an OpenAI-compatible server that answers each chat request
// with the next scripted reply and records what it was sent.
type fakeServer struct {
	t       testing.TB
	mu      sync.Mutex
	replies []reply
	// fallback answers once the script is used up (nil: fail the test).
	fallback func(n int) reply
	requests []map[string]any
	bodies   [][]byte // the requests as sent, byte for byte
	srv      *httptest.Server
}

// reply is one scripted answer: an SSE body, or a status with a body.
type reply struct {
	status  int
	headers map[string]string
	body    string
}

func newFakeServer(t testing.TB, replies ...reply) *fakeServer {
	f := &fakeServer{t: t, replies: replies}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) url() string { return f.srv.URL + "/v1" }

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"id":"test-model","object":"model"}]}`)
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		// Like an OpenAI server: no Ollama, llama.cpp or LM Studio
		// endpoints to ask for the context window.
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		f.t.Errorf("request body is not JSON: %v", err)
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.bodies = append(f.bodies, body)
	n := len(f.requests)
	var rep reply
	switch {
	case len(f.replies) > 0:
		rep, f.replies = f.replies[0], f.replies[1:]
	case f.fallback != nil:
		rep = f.fallback(n)
	default:
		f.mu.Unlock()
		f.t.Errorf("unexpected request %d: the script is used up", n)
		http.Error(w, `{"error":{"message":"script used up"}}`, 500)
		return
	}
	f.mu.Unlock()
	for k, v := range rep.headers {
		w.Header().Set(k, v)
	}
	if rep.status != 0 && rep.status != 200 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.status)
		io.WriteString(w, rep.body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, rep.body)
}

// request returns the i-th recorded request (0-based).
func (f *fakeServer) request(i int) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	if i >= len(f.requests) {
		f.t.Fatalf("only %d requests were made; want request %d", len(f.requests), i+1)
	}
	return f.requests[i]
}

func (f *fakeServer) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

// messages returns the messages of the i-th request.
func (f *fakeServer) messages(i int) []map[string]any {
	raw, _ := f.request(i)["messages"].([]any)
	out := make([]map[string]any, len(raw))
	for k, m := range raw {
		out[k], _ = m.(map[string]any)
	}
	return out
}

// toolNames lists the tool names of the i-th request's catalog.
func (f *fakeServer) toolNames(i int) []string {
	raw, _ := f.request(i)["tools"].([]any)
	var names []string
	for _, t := range raw {
		fn, _ := t.(map[string]any)["function"].(map[string]any)
		names = append(names, fn["name"].(string))
	}
	return names
}

// call is a tool call to script.
type call struct {
	id, name, args string
}

func sse(chunks ...any) string {
	var b strings.Builder
	for _, c := range chunks {
		j, _ := json.Marshal(c)
		fmt.Fprintf(&b, "data: %s\n\n", j)
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

func chunk(delta map[string]any, finish any) map[string]any {
	return map[string]any{"id": "c", "object": "chat.completion.chunk", "model": "test-model",
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
}

// style streams text and calls the way a given server does.
type style func(text string, calls ...call) reply

// openAIStyle: index on each delta, id and name first, arguments in
// fragments, usage chunk with empty choices.
func openAIStyle(text string, calls ...call) reply {
	var cs []any
	cs = append(cs, chunk(map[string]any{"role": "assistant", "content": nil}, nil))
	for i := 0; i < len(text); i += 7 {
		cs = append(cs, chunk(map[string]any{"content": text[i:min(i+7, len(text))]}, nil))
	}
	for i, c := range calls {
		cs = append(cs, chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.id, "type": "function", "function": map[string]any{"name": c.name, "arguments": ""}}}}, nil))
		for k := 0; k < len(c.args); k += 5 {
			cs = append(cs, chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": c.args[k:min(k+5, len(c.args))]}}}}, nil))
		}
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	cs = append(cs, chunk(map[string]any{}, finish))
	cs = append(cs, map[string]any{"id": "c", "object": "chat.completion.chunk", "choices": []any{}, "usage": map[string]any{"prompt_tokens": 4000, "completion_tokens": 20, "total_tokens": 4020}})
	return reply{body: sse(cs...)}
}

// ollamaStyle: every call whole in one chunk with index 0; role and
// content "" on every chunk.
func ollamaStyle(text string, calls ...call) reply {
	var cs []any
	for i := 0; i < len(text); i += 4 {
		cs = append(cs, chunk(map[string]any{"role": "assistant", "content": text[i:min(i+4, len(text))]}, nil))
	}
	for _, c := range calls {
		cs = append(cs, chunk(map[string]any{"role": "assistant", "content": "", "tool_calls": []any{map[string]any{"id": c.id, "index": 0, "type": "function", "function": map[string]any{"name": c.name, "arguments": c.args}}}}, nil))
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	cs = append(cs, chunk(map[string]any{"role": "assistant", "content": ""}, finish))
	return reply{body: sse(cs...)}
}

// llamaCppStyle: the id repeated on every delta, arguments in fragments,
// reasoning_content first.
func llamaCppStyle(text string, calls ...call) reply {
	var cs []any
	cs = append(cs, chunk(map[string]any{"role": "assistant", "content": nil, "reasoning_content": "Let me think."}, nil))
	if text != "" {
		cs = append(cs, chunk(map[string]any{"content": text}, nil))
	}
	for i, c := range calls {
		cs = append(cs, chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.id, "type": "function", "function": map[string]any{"name": c.name}}}}, nil))
		for k := 0; k < len(c.args); k += 3 {
			cs = append(cs, chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.id, "function": map[string]any{"arguments": c.args[k:min(k+3, len(c.args))]}}}}, nil))
		}
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	cs = append(cs, chunk(map[string]any{}, finish))
	return reply{body: sse(cs...)}
}

// vllmStyle: an empty first argument fragment, and the last fragment sent
// inside the finish chunk.
func vllmStyle(text string, calls ...call) reply {
	var cs []any
	cs = append(cs, chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	if text != "" {
		cs = append(cs, chunk(map[string]any{"content": text}, nil))
	}
	var last map[string]any
	for i, c := range calls {
		cs = append(cs, chunk(map[string]any{"tool_calls": []any{map[string]any{"id": c.id, "type": "function", "index": i, "function": map[string]any{"name": c.name, "arguments": ""}}}}, nil))
		head, tail := c.args[:len(c.args)/2], c.args[len(c.args)/2:]
		cs = append(cs, chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": head}}}}, nil))
		last = map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": tail}}}}
		if i < len(calls)-1 {
			cs = append(cs, chunk(last, nil))
			last = nil
		}
	}
	if last == nil {
		last = map[string]any{}
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	cs = append(cs, chunk(last, finish))
	return reply{body: sse(cs...)}
}

// noIndexStyle: a proxy that sends no index at all.
func noIndexStyle(text string, calls ...call) reply {
	var cs []any
	if text != "" {
		cs = append(cs, chunk(map[string]any{"role": "assistant", "content": text}, nil))
	}
	for _, c := range calls {
		cs = append(cs, chunk(map[string]any{"tool_calls": []any{map[string]any{"id": c.id, "type": "function", "function": map[string]any{"name": c.name, "arguments": ""}}}}, nil))
		for k := 0; k < len(c.args); k += 6 {
			cs = append(cs, chunk(map[string]any{"tool_calls": []any{map[string]any{"function": map[string]any{"arguments": c.args[k:min(k+6, len(c.args))]}}}}, nil))
		}
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	cs = append(cs, chunk(map[string]any{}, finish))
	return reply{body: sse(cs...)}
}

var styles = map[string]style{
	"openai":   openAIStyle,
	"ollama":   ollamaStyle,
	"llamacpp": llamaCppStyle,
	"vllm":     vllmStyle,
	"noindex":  noIndexStyle,
}
