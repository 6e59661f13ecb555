package chat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sashabaranov/go-openai"
)

type wantToolCall struct{ id, name, args string }

// fixtureWant is what Stream must return for one fixture.
type fixtureWant struct {
	content, reasoning string
	calls              []wantToolCall
	finish             string
	usage              []int // prompt, completion, total; nil when none
	truncated          bool
	cut                bool   // errors.Is(err, ErrStreamCut)
	apiErr             string // a substring of the *APIError's Message
	apiKind            apiErrorKind
}

// serveSSEBody starts a server that answers every request with body.
func serveSSEBody(t *testing.T, contentType string, body []byte) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func readStreamFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newFixtureClient(baseURL string) *Client {
	return NewClient(ClientConfig{BaseURL: baseURL, Sleep: func(context.Context, time.Duration) error { return nil }})
}

func TestStreamFixtures(t *testing.T) {
	const readme, mainGo, dot = `{"path":"README.md"}`, `{"path":"main.go"}`, `{"path":"."}`
	tests := []struct {
		file string
		want fixtureWant
	}{
		// Shared transcripts.
		{"llamacpp-error-legacy.sse", fixtureWant{apiErr: "exceeds the available context size", apiKind: kindMidStream}},
		{"llamacpp-error-midstream.sse", fixtureWant{content: "Let me", apiErr: "Context size has been exceeded.", apiKind: kindMidStream}},
		{"llamacpp-parallel.sse", fixtureWant{content: "Checking both.", finish: "tool_calls", calls: []wantToolCall{
			{"nC4uE7oI1aS9dF2gH5jK8lZ3xV6bM0qW", "read_file", mainGo}, {"Rt5yU8iO2pA6sD9fG3hJ7kL1zX4cV0bN", "list_dir", dot}}}},
		{"llamacpp-reasoning.sse", fixtureWant{reasoning: "The user wants the README.", finish: "tool_calls", calls: []wantToolCall{
			{"Lk2Jh5Gf8Ds1Aq4Ws7Ed0Rf3Tg6Yh9Uj", "read_file", readme}}}},
		{"llamacpp-single.sse", fixtureWant{finish: "tool_calls", usage: []int{212, 24, 236}, calls: []wantToolCall{
			{"Vd8kR2mQx7LpT4nB9cW1zY6sJ3hF0gA5", "read_file", readme}}}},
		{"lmstudio-parallel.sse", fixtureWant{finish: "tool_calls", calls: []wantToolCall{
			{"402917385", "read_file", mainGo}, {"885120466", "list_dir", dot}}}},
		{"lmstudio-single.sse", fixtureWant{finish: "tool_calls", calls: []wantToolCall{{"193629320", "read_file", readme}}}},
		{"ollama-error-midstream.sse", fixtureWant{content: "Let me look", cut: true}},
		{"ollama-parallel-index0.sse", fixtureWant{reasoning: "User wants two files.", finish: "tool_calls", calls: []wantToolCall{
			{"call_x0l2n5sb", "read_file", mainGo}, {"call_u7y1c3vo", "list_dir", dot}}}},
		{"ollama-parallel.sse", fixtureWant{content: "I'll check both.", finish: "tool_calls", calls: []wantToolCall{
			{"call_m1p0c8zt", "read_file", mainGo}, {"call_9dw4rr6e", "list_dir", dot}}}},
		{"ollama-single.sse", fixtureWant{finish: "tool_calls", usage: []int{198, 27, 225}, calls: []wantToolCall{
			{"call_k3v9x2qa", "read_file", readme}}}},
		{"openai-error-midstream.sse", fixtureWant{content: "Let me look", apiErr: "The server had an error", apiKind: kindMidStream}},
		{"openai-parallel.sse", fixtureWant{finish: "tool_calls", usage: []int{412, 48, 460}, calls: []wantToolCall{
			{"call_Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8", "read_file", mainGo}, {"call_Ii9Jj8Kk7Ll6Mm5Nn4Oo3Pp2", "list_dir", dot}}}},
		{"openai-single.sse", fixtureWant{finish: "tool_calls", calls: []wantToolCall{{"call_Zk3vQ8rT1mN5bX7cY2wL9pD4", "read_file", readme}}}},
		{"recorded-ollama-v0.17.4-after-tool.sse", fixtureWant{content: "Done: the tool result was received.", finish: "stop"}},
		{"recorded-ollama-v0.17.4-length-drops-toolcall.sse", fixtureWant{finish: "length"}},
		{"recorded-ollama-v0.17.4-parallel.sse", fixtureWant{content: "I will call two tools.", finish: "tool_calls", calls: []wantToolCall{
			{"call_j0531vju", "read_file", `{"path":"a.txt"}`}, {"call_zwfy7psj", "read_file", `{"path":"b.txt"}`}}}},
		{"recorded-ollama-v0.17.4-single.sse", fixtureWant{finish: "tool_calls", usage: []int{20, 15, 35}, calls: []wantToolCall{
			{"call_bthmqema", "read_file", readme}}}},
		{"recorded-ollama-v0.17.4-unknown-tool-swallowed.sse", fixtureWant{finish: "stop"}},
		{"vllm-error-midstream.sse", fixtureWant{content: "Let me", apiErr: "Generation aborted.", apiKind: kindMidStream}},
		{"vllm-parallel.sse", fixtureWant{content: "Checking both.", finish: "tool_calls", calls: []wantToolCall{
			{"chatcmpl-tool-1a2b3c4d5e6f47a8b9c0d1e2f3a4b5c6", "read_file", `{"path": "main.go"}`},
			{"chatcmpl-tool-6c5b4a3f2e1d40c9b8a7f6e5d4c3b2a1", "list_dir", `{"path": "."}`}}}},
		{"vllm-reasoning.sse", fixtureWant{reasoning: "The user wants the README.", finish: "tool_calls", calls: []wantToolCall{
			{"chatcmpl-tool-0f9e8d7c6b5a49382716a5b4c3d2e1f0", "read_file", `{"path": "README.md"}`}}}},
		{"vllm-single.sse", fixtureWant{finish: "tool_calls", usage: []int{230, 26, 256}, calls: []wantToolCall{
			{"chatcmpl-tool-8b1e4f0a6c2d4e9fa3b7c5d1e0f2a4b6", "read_file", `{"path": "README.md"}`}}}},

		// Shapes no shared transcript covers.
		{"proxy-no-index.sse", fixtureWant{content: "Reading both.", finish: "tool_calls", usage: []int{100, 30, 130}, calls: []wantToolCall{
			{"call_1", "read_file", mainGo}, {"call_2", "read_file", `{"path":"go.mod"}`}, {"function-call-8812", "list_dir", dot}}}},
		{"sse-comments-ping.sse", fixtureWant{content: "Hello world", finish: "stop"}},
		{"finish-carries-last-fragment.sse", fixtureWant{finish: "tool_calls", usage: []int{50, 9, 59}, calls: []wantToolCall{
			{"call_f1", "read_file", readme}}}},
		{"ids-names-empty-dup.sse", fixtureWant{finish: "tool_calls", calls: []wantToolCall{
			{"dup", "read_file", `{"path":"a"}`}, {"call_2", "read_file", `{"path":"b"}`}, {"call_3", "time_now", "{}"}}}},
		{"content-null-empty-absent.sse", fixtureWant{content: "Hi there", reasoning: "Think.", finish: "stop", usage: []int{7, 3, 10}}},
		{"invalid-utf8.sse", fixtureWant{content: "caf\uFFFD\uFFFD ok \uFFFD!", finish: "stop"}},
		{"cut-no-finish.sse", fixtureWant{content: "Partial ans", cut: true}},
		{"cut-mid-call.sse", fixtureWant{content: "Let me", truncated: true, cut: true}},
		{"length-partial-call.sse", fixtureWant{finish: "length", truncated: true, calls: []wantToolCall{{"call_l1", "read_file", `{"path":"a"}`}}}},
		{"length-after-header.sse", fixtureWant{finish: "length", truncated: true}},
		{"stop-with-calls.sse", fixtureWant{finish: "stop", calls: []wantToolCall{{"call_s1", "read_file", `{"path":"x"}`}}}},
		{"no-arguments-and-malformed.sse", fixtureWant{finish: "tool_calls", calls: []wantToolCall{
			{"chatcmpl-tool-aa", "time_now", "{}"}, {"chatcmpl-tool-bb", "read_file", "{'path': 'x'}"}}}},
		{"sse-error-event.sse", fixtureWant{content: "Working", apiErr: "model runner crashed", apiKind: kindMidStream}},
		{"error-string-then-done.sse", fixtureWant{content: "Let", apiErr: "unexpected EOF", apiKind: kindMidStream}},
		{"done-only.sse", fixtureWant{cut: true}},
		{"empty-body.sse", fixtureWant{cut: true}},
		{"malformed-chunk.sse", fixtureWant{content: "x", apiErr: "not valid JSON", apiKind: kindProtocol}},
		{"no-blank-lines.sse", fixtureWant{content: "ab", finish: "stop"}},
		{"multiline-data.sse", fixtureWant{content: "joined", finish: "stop"}},
		{"content-parts.sse", fixtureWant{content: "Parts work", finish: "stop"}},
		{"nonstream-completion.json", fixtureWant{content: "Both files.", reasoning: "Need two reads.", finish: "tool_calls", usage: []int{11, 22, 33},
			calls: []wantToolCall{{"call_1", "read_file", `{"path":"a"}`}, {"call_2", "read_file", `{"path":"b"}`}}}},
		{"ndjson-chunks.json", fixtureWant{content: "ndjson", finish: "stop"}},
		{"bom-and-ping-events.sse", fixtureWant{content: "bom", finish: "stop"}},
		{"html-page.sse", fixtureWant{apiErr: "not an event stream: <!doctype html>", apiKind: kindProtocol}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			ct := "text/event-stream"
			if strings.HasSuffix(tt.file, ".json") {
				ct = "application/json"
			}
			srv := serveSSEBody(t, ct, readStreamFixture(t, tt.file))
			checkStreamResult(t, newFixtureClient(srv.URL+"/v1"), tt.want)
		})
	}
}

func checkStreamResult(t *testing.T, c *Client, want fixtureWant) {
	t.Helper()
	var content, reasoning strings.Builder
	comp, err := c.Stream(context.Background(), openai.ChatCompletionRequest{Model: "m"}, func(d StreamDelta) {
		if d.Content == "" && d.Reasoning == "" {
			t.Errorf("onDelta called with an empty delta")
		}
		content.WriteString(d.Content)
		reasoning.WriteString(d.Reasoning)
	})
	switch {
	case want.cut:
		if !errors.Is(err, ErrStreamCut) {
			t.Errorf("err = %v; want ErrStreamCut", err)
		}
	case want.apiErr != "":
		var api *APIError
		if !errors.As(err, &api) {
			t.Fatalf("err = %v; want *APIError", err)
		}
		if !strings.Contains(api.Message, want.apiErr) || api.kind != want.apiKind || api.Status != 0 {
			t.Errorf("APIError = %+v; want Message containing %q, kind %d, Status 0", api, want.apiErr, want.apiKind)
		}
	case err != nil:
		t.Fatalf("err = %v; want nil", err)
	}
	if comp.Content != want.content {
		t.Errorf("Content = %q; want %q", comp.Content, want.content)
	}
	if comp.Reasoning != want.reasoning {
		t.Errorf("Reasoning = %q; want %q", comp.Reasoning, want.reasoning)
	}
	if content.String() != want.content || reasoning.String() != want.reasoning {
		t.Errorf("deltas = %q / %q; want %q / %q", content.String(), reasoning.String(), want.content, want.reasoning)
	}
	if comp.FinishReason != want.finish {
		t.Errorf("FinishReason = %q; want %q", comp.FinishReason, want.finish)
	}
	if comp.TruncatedCall != want.truncated {
		t.Errorf("TruncatedCall = %v; want %v", comp.TruncatedCall, want.truncated)
	}
	var gotUsage []int
	if comp.Usage != nil {
		gotUsage = []int{comp.Usage.PromptTokens, comp.Usage.CompletionTokens, comp.Usage.TotalTokens}
	}
	if fmt.Sprint(gotUsage) != fmt.Sprint(want.usage) {
		t.Errorf("Usage = %v; want %v", gotUsage, want.usage)
	}
	var gotCalls []wantToolCall
	for _, tc := range comp.ToolCalls {
		if tc.Type != openai.ToolTypeFunction {
			t.Errorf("call %s Type = %q; want function", tc.ID, tc.Type)
		}
		gotCalls = append(gotCalls, wantToolCall{tc.ID, tc.Function.Name, tc.Function.Arguments})
	}
	if fmt.Sprintf("%q", gotCalls) != fmt.Sprintf("%q", want.calls) {
		t.Errorf("ToolCalls = %q; want %q", gotCalls, want.calls)
	}
}

// TestStreamLongLine feeds one SSE line of more than 1 MB: a file written
// through a tool call in a single chunk.
func TestStreamLongLine(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	args := `{"path":"big.txt","content":"` + big + `"}`
	line := fmt.Sprintf(`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_big","type":"function","function":{"name":"fs_write","arguments":%q}}]},"finish_reason":"tool_calls"}]}`, args)
	body := line + "\n\ndata: [DONE]\n\n"
	if len(line) <= 1<<20 {
		t.Fatalf("line is %d bytes; want over 1 MiB", len(line))
	}
	srv := serveSSEBody(t, "text/event-stream", []byte(body))
	checkStreamResult(t, newFixtureClient(srv.URL), fixtureWant{finish: "tool_calls", calls: []wantToolCall{{"call_big", "fs_write", args}}})
}

func TestScanStreamLines(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"lf", "a\nb\n", []string{"a", "b"}},
		{"crlf", "a\r\nb\r\n\r\n", []string{"a", "b", ""}},
		{"lone cr", "a\rb\r\r", []string{"a", "b", ""}},
		{"no final newline", "a\nb", []string{"a", "b"}},
		{"cr at eof", "a\r", []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			data := []byte(tt.in)
			for len(data) > 0 {
				// Feed one byte more at a time so that a \r at the end of
				// the buffer is seen before its \n.
				n := 1
				for {
					adv, tok, err := scanStreamLines(data[:n], n == len(data))
					if err != nil {
						t.Fatal(err)
					}
					if adv > 0 {
						got = append(got, string(tok))
						data = data[adv:]
						break
					}
					n++
				}
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.want) {
				t.Errorf("lines = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestServerErrorMessage(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"openai", `{"error":{"message":"Invalid model","type":"invalid_request_error"}}`, "Invalid model"},
		{"ollama", `{"error":"model \"qwen\" not found, try pulling it first"}`, `model "qwen" not found, try pulling it first`},
		{"vllm", `{"object":"error","message":"The model does not exist.","code":404}`, "The model does not exist."},
		{"fastapi", `{"detail":"Not Found"}`, "Not Found"},
		{"plain", "404 page not found\n", "404 page not found"},
		{"control chars", "bad\x1b[31m\nthing\x1b]0;title\x07", "bad thing"},
		{"empty", "", ""},
		{"long", strings.Repeat("x", 600), strings.Repeat("x", 500) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := serverErrorMessage([]byte(tt.in)); got != tt.want {
				t.Errorf("serverErrorMessage(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestStreamCancelStopsDeltas cancels from onDelta while more of the
// answer arrives: no further piece may be delivered, and the completion
// holds only what was.
func TestStreamCancelStopsDeltas(t *testing.T) {
	const event = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\n"
	cancelled := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, event)
		w.(http.Flusher).Flush()
		select {
		case <-cancelled:
		case <-r.Context().Done():
		}
		_, _ = io.WriteString(w, strings.Repeat(event, 99)+"data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	comp, err := newFixtureClient(srv.URL).Stream(ctx, openai.ChatCompletionRequest{Model: "m"}, func(StreamDelta) {
		calls++
		cancel()
		close(cancelled)
	})
	if !errors.Is(err, context.Canceled) || calls != 1 || comp.Content != "x" {
		t.Errorf("Stream = %q, %v after %d deltas; want \"x\", context.Canceled after 1", comp.Content, err, calls)
	}
}

// TestStreamPassesOnAReadsDeltasAsOne: the events one read brings reach
// onDelta as one piece, content and reasoning apart and in order, and an
// event that comes later in a read of its own as another.
func TestStreamPassesOnAReadsDeltasAsOne(t *testing.T) {
	chunk := func(field, text string) string {
		return fmt.Sprintf("data: {\"choices\":[{\"index\":0,\"delta\":{%q:%q}}]}\n\n", field, text)
	}
	first := chunk("reasoning_content", "Let ") + chunk("reasoning_content", "me.") + chunk("content", "One ") + chunk("content", "two ")
	next := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, first)
		w.(http.Flusher).Flush()
		select {
		case <-next:
		case <-r.Context().Done():
		}
		_, _ = io.WriteString(w, chunk("content", "three")+"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	var got []StreamDelta
	comp, err := newFixtureClient(srv.URL).Stream(context.Background(), openai.ChatCompletionRequest{Model: "m"}, func(d StreamDelta) {
		got = append(got, d)
		if d.Content == "One two " {
			close(next)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []StreamDelta{{Reasoning: "Let me."}, {Content: "One two "}, {Content: "three"}}
	if !slices.Equal(got, want) {
		t.Errorf("deltas %q; want %q", got, want)
	}
	if comp.Content != "One two three" || comp.Reasoning != "Let me." {
		t.Errorf("completion %q / %q", comp.Content, comp.Reasoning)
	}
}
