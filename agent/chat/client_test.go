package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"
)

const okSSEStream = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"

// recordedWaits is a Sleep seam that records the waits asked for.
type recordedWaits struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (r *recordedWaits) sleep(ctx context.Context, d time.Duration) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waits = append(r.waits, d)
	return ctx.Err()
}

// scriptedServer answers the n-th request with steps[n] (the last step repeats).
func scriptedServer(t *testing.T, steps ...func(w http.ResponseWriter, r *http.Request)) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		steps[min(i, len(steps)-1)](w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func replyStatus(code int, header map[string]string, body string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}
}

// replyOK answers with okSSEStream.
func replyOK() func(http.ResponseWriter, *http.Request) {
	return replyStatus(http.StatusOK, map[string]string{"Content-Type": "text/event-stream"}, okSSEStream)
}

func TestStreamRetries(t *testing.T) {
	const day = 24 * time.Hour
	tests := []struct {
		name      string
		steps     []func(http.ResponseWriter, *http.Request)
		maxDelay  time.Duration
		wantReqs  int
		wantWaits []time.Duration // exact waits; nil to check backoff bounds instead
		wantErr   int             // HTTP status of the final *APIError; 0 for success
	}{
		{
			name:      "429 then success honours Retry-After seconds",
			steps:     []func(http.ResponseWriter, *http.Request){replyStatus(429, map[string]string{"Retry-After": "7"}, `{"error":{"message":"slow down"}}`), replyOK()},
			wantReqs:  2,
			wantWaits: []time.Duration{7 * time.Second},
		},
		{
			name:      "Retry-After capped at MaxDelay",
			steps:     []func(http.ResponseWriter, *http.Request){replyStatus(503, map[string]string{"Retry-After": "120"}, ""), replyOK()},
			wantReqs:  2,
			wantWaits: []time.Duration{30 * time.Second},
		},
		{
			name:      "retry-after-ms",
			steps:     []func(http.ResponseWriter, *http.Request){replyStatus(429, map[string]string{"Retry-After-Ms": "1500"}, ""), replyOK()},
			wantReqs:  2,
			wantWaits: []time.Duration{1500 * time.Millisecond},
		},
		{
			name:     "503 five times gives up after 4 tries",
			steps:    []func(http.ResponseWriter, *http.Request){replyStatus(503, nil, `{"error":"overloaded"}`)},
			maxDelay: day,
			wantReqs: 4,
			wantErr:  503,
		},
		{
			name:     "400 is not retried",
			steps:    []func(http.ResponseWriter, *http.Request){replyStatus(400, nil, `{"error":{"message":"bad"}}`), replyOK()},
			wantReqs: 1,
			wantErr:  400,
		},
		{
			name:     "501 is not retried",
			steps:    []func(http.ResponseWriter, *http.Request){replyStatus(501, nil, "no"), replyOK()},
			wantReqs: 1,
			wantErr:  501,
		},
		{
			name:      "connection dropped before the first byte is retried",
			steps:     []func(http.ResponseWriter, *http.Request){hangUpAfterHeaders, replyOK()},
			wantReqs:  2,
			wantWaits: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, reqs := scriptedServer(t, tt.steps...)
			var waits recordedWaits
			var events []Retry
			c := NewClient(ClientConfig{BaseURL: srv.URL + "/v1", Sleep: waits.sleep, MaxDelay: tt.maxDelay})
			ctx := WithRetryHook(context.Background(), func(e Retry) { events = append(events, e) })
			comp, err := c.Stream(ctx, openai.ChatCompletionRequest{Model: "m"}, nil)
			if got := int(reqs.Load()); got != tt.wantReqs {
				t.Errorf("requests = %d; want %d", got, tt.wantReqs)
			}
			if tt.wantErr == 0 {
				if err != nil || comp.Content != "ok" {
					t.Fatalf("Stream = %q, %v; want \"ok\", nil", comp.Content, err)
				}
			} else {
				var api *APIError
				if !errors.As(err, &api) || api.Status != tt.wantErr {
					t.Fatalf("err = %v; want *APIError with status %d", err, tt.wantErr)
				}
				if api.Server != srv.URL+"/v1" {
					t.Errorf("Server = %q; want %q", api.Server, srv.URL+"/v1")
				}
			}
			if len(events) != tt.wantReqs-1 || len(waits.waits) != len(events) {
				t.Fatalf("retry hook calls = %d, waits = %d; want %d each", len(events), len(waits.waits), tt.wantReqs-1)
			}
			for i, e := range events {
				if e.Attempt != i+2 || e.Max != 4 || e.Wait != waits.waits[i] {
					t.Errorf("event %d = %+v; want Attempt %d, Max 4, Wait %v", i, e, i+2, waits.waits[i])
				}
				if !strings.Contains(e.Reason, srv.URL+"/v1") {
					t.Errorf("Reason = %q; want it to name the server", e.Reason)
				}
				if tt.wantWaits != nil {
					if e.Wait != tt.wantWaits[i] {
						t.Errorf("wait %d = %v; want %v", i, e.Wait, tt.wantWaits[i])
					}
					continue
				}
				hi := time.Second << i // BaseDelay 1 s, doubled per retry, jitter in [d/2, d]
				if e.Wait < hi/2 || e.Wait > hi {
					t.Errorf("wait %d = %v; want within [%v, %v]", i, e.Wait, hi/2, hi)
				}
			}
			if tt.wantErr == 503 && events[0].Reason != "HTTP 503 from "+srv.URL+"/v1" {
				t.Errorf("Reason = %q; want %q", events[0].Reason, "HTTP 503 from "+srv.URL+"/v1")
			}
		})
	}
}

// hangUpAfterHeaders promises a chunked body and closes the connection before
// its first byte.
func hangUpAfterHeaders(w http.ResponseWriter, _ *http.Request) {
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
	_ = buf.Flush()
	_ = conn.Close()
}

func TestStreamGivesUpWithError(t *testing.T) {
	srv, _ := scriptedServer(t, replyStatus(503, nil, `{"error":"overloaded"}`))
	c := NewClient(ClientConfig{BaseURL: srv.URL + "/v1", Sleep: func(context.Context, time.Duration) error { return nil }})
	_, err := c.Stream(context.Background(), openai.ChatCompletionRequest{Model: "m"}, nil)
	var api *APIError
	if !errors.As(err, &api) {
		t.Fatalf("err = %v; want *APIError", err)
	}
	want := "model server " + srv.URL + "/v1: HTTP 503 Service Unavailable: overloaded (gave up after 4 tries)"
	if err.Error() != want || !api.Retryable || api.Message != "overloaded" {
		t.Errorf("err = %q (Retryable %v); want %q, Retryable", err, api.Retryable, want)
	}
}

func TestStreamConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var waits recordedWaits
	var events []Retry
	c := NewClient(ClientConfig{BaseURL: "http://" + addr + "/v1", Sleep: waits.sleep})
	ctx := WithRetryHook(context.Background(), func(e Retry) { events = append(events, e) })
	_, err = c.Stream(ctx, openai.ChatCompletionRequest{Model: "m"}, nil)
	var api *APIError
	if !errors.As(err, &api) {
		t.Fatalf("err = %v; want *APIError", err)
	}
	if api.Status != 0 || !api.Retryable || api.kind != kindConn {
		t.Errorf("APIError = %+v; want Status 0, Retryable, a connection failure", api)
	}
	if len(events) != 3 || !strings.HasPrefix(events[0].Reason, "connection to http://"+addr+"/v1 failed") {
		t.Errorf("retry events = %+v; want 3, the reason naming the server", events)
	}
	if h := api.Hint(); !strings.Contains(h, "OPENAI_BASE_URL") || !strings.Contains(h, "running") {
		t.Errorf("Hint = %q; want it to mention the server running and OPENAI_BASE_URL", h)
	}
}

func TestStreamCancelMidStream(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"first\"}}]}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := newFixtureClient(srv.URL)
	type result struct {
		comp Completion
		err  error
	}
	done := make(chan result, 1)
	go func() {
		comp, err := c.Stream(ctx, openai.ChatCompletionRequest{Model: "m"}, func(StreamDelta) { cancel() })
		done <- result{comp, err}
	}()
	select {
	case r := <-done:
		if !errors.Is(r.err, context.Canceled) {
			t.Errorf("err = %v; want context.Canceled", r.err)
		}
		if r.comp.Content != "first" {
			t.Errorf("Content = %q; want the partial %q", r.comp.Content, "first")
		}
	case <-time.After(time.Minute):
		t.Fatal("Stream did not return after cancel") // a hang guard, not a timing assertion
	}
}

func TestStreamCancelDuringRetryWait(t *testing.T) {
	srv, reqs := scriptedServer(t, replyStatus(503, nil, ""))
	ctx, cancel := context.WithCancel(context.Background())
	c := NewClient(ClientConfig{BaseURL: srv.URL, Sleep: func(ctx context.Context, d time.Duration) error {
		cancel()
		return sleepOrDone(ctx, d)
	}})
	_, err := c.Stream(ctx, openai.ChatCompletionRequest{Model: "m"}, nil)
	if !errors.Is(err, context.Canceled) || reqs.Load() != 1 {
		t.Errorf("err = %v after %d requests; want context.Canceled after 1", err, reqs.Load())
	}
}

func TestStreamHTTPErrors(t *testing.T) {
	tests := []struct {
		name, body string
		code       int
		wantMsg    string
		wantHint   string
	}{
		{"openai 404 model", `{"error":{"message":"The model ` + "`gpt-9`" + ` does not exist or you do not have access to it.","type":"invalid_request_error","code":"model_not_found"}}`, 404, "The model `gpt-9` does not exist", "model name"},
		{"ollama model not found", `{"error":"model \"qwen9\" not found, try pulling it first"}`, 404, `model "qwen9" not found`, "model name"},
		{"plain 404 path", "404 page not found", 404, "404 page not found", "ends in /v1"},
		{"401 key", `{"error":{"message":"Incorrect API key provided: sk-secret-key-1234."}}`, 401, "Incorrect API key provided: [redacted].", "OPENAI_API_KEY"},
		{"403", `{"error":"forbidden"}`, 403, "forbidden", "OPENAI_API_KEY"},
		{"400 context", `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."}}`, 400, "maximum context length", "context window"},
		{"400 other", `{"error":{"message":"tools[0].function.name is invalid"}}`, 400, "tools[0].function.name is invalid", "refused the request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, reqs := scriptedServer(t, replyStatus(tt.code, map[string]string{"Content-Type": "application/json"}, tt.body))
			c := NewClient(ClientConfig{BaseURL: srv.URL + "/v1/", APIKey: "sk-secret-key-1234"})
			_, err := c.Stream(context.Background(), openai.ChatCompletionRequest{Model: "m"}, nil)
			var api *APIError
			if !errors.As(err, &api) {
				t.Fatalf("err = %v; want *APIError", err)
			}
			if api.Status != tt.code || !strings.Contains(api.Message, tt.wantMsg) || api.Retryable || reqs.Load() != 1 {
				t.Errorf("APIError = %+v after %d requests; want status %d, message containing %q, not retryable, 1 request", api, reqs.Load(), tt.code, tt.wantMsg)
			}
			if !strings.Contains(api.Hint(), tt.wantHint) {
				t.Errorf("Hint = %q; want it to contain %q", api.Hint(), tt.wantHint)
			}
			if strings.Contains(err.Error(), "sk-secret") || strings.Contains(api.Hint(), "sk-secret") {
				t.Errorf("error %q leaks the API key", err)
			}
		})
	}
}

func TestAPIErrorHint(t *testing.T) {
	tests := []struct {
		name string
		err  APIError
		want string
	}{
		{"429", APIError{Status: 429}, "rate limiting"},
		{"500", APIError{Status: 500, Message: "out of memory", kind: kindHTTP}, "logs"},
		{"mid-stream context", APIError{Message: "Context size has been exceeded.", kind: kindMidStream}, "context window"},
		{"mid-stream other", APIError{Message: "Generation aborted.", kind: kindMidStream}, "while answering"},
		{"connection", APIError{Server: "http://h/v1", kind: kindConn}, "running"},
		{"bare status 0", APIError{Server: "http://h/v1"}, "OPENAI_BASE_URL (now http://h/v1)"},
		{"bad url", APIError{kind: kindBadURL}, "http://localhost:11434/v1"},
		{"protocol", APIError{kind: kindProtocol, Server: "http://h"}, "not an OpenAI-compatible"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Hint(); !strings.Contains(got, tt.want) {
				t.Errorf("Hint = %q; want it to contain %q", got, tt.want)
			}
		})
	}
}

func TestStreamBadBaseURL(t *testing.T) {
	for _, base := range []string{"", "localhost:11434/v1", "ftp://h/v1", "http://"} {
		t.Run(base, func(t *testing.T) {
			c := NewClient(ClientConfig{BaseURL: base})
			_, err := c.Stream(context.Background(), openai.ChatCompletionRequest{Model: "m"}, nil)
			var api *APIError
			if !errors.As(err, &api) || api.kind != kindBadURL || api.Retryable {
				t.Fatalf("err = %v; want a non-retryable bad-URL *APIError", err)
			}
			if _, err := c.Models(context.Background()); !errors.As(err, &api) || api.kind != kindBadURL {
				t.Errorf("Models err = %v; want a bad-URL *APIError", err)
			}
		})
	}
}

func TestStreamRedactsURLCredentials(t *testing.T) {
	srv, _ := scriptedServer(t, replyStatus(400, nil, "no"))
	base := strings.Replace(srv.URL, "http://", "http://user:hunter2@", 1)
	_, err := NewClient(ClientConfig{BaseURL: base}).Stream(context.Background(), openai.ChatCompletionRequest{Model: "m"}, nil)
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("err = %v; want an error without the password", err)
	}
}

func TestStreamRequest(t *testing.T) {
	var body []byte
	var header http.Header
	srv, _ := scriptedServer(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		header = r.Header.Clone()
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			t.Errorf("request %s %s; want POST /v1/chat/completions", r.Method, r.URL.Path)
		}
		replyOK()(w, r)
	})
	calls := []openai.ToolCall{
		{ID: "call_1", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "time_now", Arguments: ""}},
		{ID: "call_2", Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: "read_file", Arguments: `{"path": "a"}`}},
	}
	req := openai.ChatCompletionRequest{
		Model: "m",
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleUser, Content: "hi"},
			{Role: openai.ChatMessageRoleAssistant, Content: "Checking.", ToolCalls: calls},
			{Role: openai.ChatMessageRoleTool, ToolCallID: "call_1", Content: ""},
			{Role: openai.ChatMessageRoleTool, ToolCallID: "call_2", Content: `{"ok":true}`},
		},
	}
	c := NewClient(ClientConfig{BaseURL: srv.URL + "/v1", APIKey: "sk-k"})
	if _, err := c.Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	if got := header.Get("Authorization"); got != "Bearer sk-k" {
		t.Errorf("Authorization = %q; want %q", got, "Bearer sk-k")
	}
	if got := header.Get("Accept"); got != "text/event-stream" {
		t.Errorf("Accept = %q; want text/event-stream", got)
	}
	var sent struct {
		Stream        bool `json:"stream"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &sent); err != nil {
		t.Fatalf("request body %s: %v", body, err)
	}
	if !sent.Stream || !sent.StreamOptions.IncludeUsage {
		t.Errorf("stream = %v, include_usage = %v; want both true", sent.Stream, sent.StreamOptions.IncludeUsage)
	}
	wantCalls := `[{"id":"call_1","type":"function","function":{"name":"time_now","arguments":"{}"}},` +
		`{"id":"call_2","type":"function","function":{"name":"read_file","arguments":"{\"path\": \"a\"}"}}]`
	if got := string(sent.Messages[1]["tool_calls"]); got != wantCalls {
		t.Errorf("assistant tool_calls = %s; want %s", got, wantCalls)
	}
	if got := string(sent.Messages[1]["content"]); got != `"Checking."` {
		t.Errorf("assistant content = %s; want %q", got, "Checking.")
	}
	if got := string(sent.Messages[2]["content"]); got != `"(no output)"` {
		t.Errorf("empty tool content sent as %s; want %q", got, emptyToolContent)
	}
	if got := string(sent.Messages[3]["content"]); got != `"{\"ok\":true}"` {
		t.Errorf("tool content = %s; want it unchanged", got)
	}
	if req.Messages[2].Content != "" || calls[0].Function.Arguments != "" || req.Stream {
		t.Error("Stream changed the caller's request")
	}
}

func TestModels(t *testing.T) {
	var auth string
	srv, _ := scriptedServer(t,
		func(w http.ResponseWriter, r *http.Request) {
			auth = r.Header.Get("Authorization")
			if r.URL.Path != "/v1/models" {
				t.Errorf("path = %q; want /v1/models", r.URL.Path)
			}
			replyStatus(200, map[string]string{"Content-Type": "application/json"},
				`{"object":"list","data":[{"id":"qwen3:8b","object":"model","owned_by":"library"},{"id":"llama3.2","object":"model"}]}`)(w, r)
		},
		replyStatus(401, map[string]string{"Content-Type": "application/json"}, `{"error":{"message":"bad key sk-k-1234","type":"auth"}}`),
		replyStatus(502, nil, "<html>bad gateway</html>"),
		replyStatus(200, nil, "<html>not an API</html>"),
	)
	c := NewClient(ClientConfig{BaseURL: srv.URL + "/v1", APIKey: "sk-k-1234"})
	ids, err := c.Models(context.Background())
	if err != nil || fmt.Sprint(ids) != "[qwen3:8b llama3.2]" {
		t.Fatalf("Models = %v, %v; want [qwen3:8b llama3.2], nil", ids, err)
	}
	if auth != "Bearer sk-k-1234" {
		t.Errorf("Authorization = %q; want the key as Bearer", auth)
	}
	tests := []struct {
		status  int
		kind    apiErrorKind
		message string
	}{
		{401, kindHTTP, "bad key [redacted]"},
		{502, kindHTTP, "<html>bad gateway</html>"},
		{0, kindProtocol, "not OpenAI-compatible"},
	}
	for _, tt := range tests {
		_, err := c.Models(context.Background())
		var api *APIError
		if !errors.As(err, &api) || api.Status != tt.status || api.kind != tt.kind || !strings.Contains(api.Message, tt.message) {
			t.Errorf("Models err = %#v; want status %d, kind %d, message containing %q", err, tt.status, tt.kind, tt.message)
		}
	}
}

func TestModelsConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = NewClient(ClientConfig{BaseURL: "http://" + addr + "/v1"}).Models(context.Background())
	var api *APIError
	if !errors.As(err, &api) || api.kind != kindConn || !strings.Contains(api.Hint(), "running") {
		t.Errorf("err = %v; want a connection *APIError", err)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{"seconds", map[string]string{"Retry-After": "3"}, 3 * time.Second, true},
		{"http date", map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second, true},
		{"date in the past", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{"milliseconds first", map[string]string{"Retry-After-Ms": "250", "Retry-After": "1"}, 250 * time.Millisecond, true},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0, false},
		{"negative", map[string]string{"Retry-After": "-5"}, 0, false},
		{"absent", nil, 0, false},
		{"huge", map[string]string{"Retry-After": "1e30"}, time.Duration(1<<63 - 1), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			got, ok := parseRetryAfter(h, now)
			if got != tt.want || ok != tt.ok {
				t.Errorf("parseRetryAfter = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestRetryWaitBounds(t *testing.T) {
	c := NewClient(ClientConfig{BaseURL: "http://h", BaseDelay: time.Second, MaxDelay: 5 * time.Second})
	for attempt := 1; attempt <= 70; attempt++ {
		d := min(time.Second<<min(attempt-1, 10), 5*time.Second)
		for range 20 {
			got := c.retryWait(attempt, &transientError{})
			if got < d/2 || got > d {
				t.Fatalf("retryWait(%d) = %v; want within [%v, %v]", attempt, got, d/2, d)
			}
		}
	}
}
