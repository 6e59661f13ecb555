package chat

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/sashabaranov/go-openai"
)

// The two benchmarks read the same 20k-chunk stream: BenchmarkStreamRaw is
// the floor (a line scan and one json.Unmarshal per chunk into go-openai's
// type), BenchmarkStreamClient is Client.Stream end to end through an
// in-memory RoundTripper. Their ns/chunk ratio is the client's overhead;
// the goal is at most 10 %.

const benchChunks = 20000

var benchBody = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	head := `{"id":"chatcmpl-CAx9pQ2vL7kR1sT4uW6yZ8bD3fH5j","object":"chat.completion.chunk","created":1764470000,"model":"gpt-4.1-2025-04-14","service_tier":"default","system_fingerprint":"fp_3a4f6c1b2d","choices":[{"index":0,"delta":`
	tail := `,"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"q3Xz"}`
	words := []string{" the", " model", " streams", " tokens", " quickly", ",", " and", " é", " 漢字", "\\n"}
	calls := benchChunks / 20 // about 5 % are tool-call fragments
	for i := range benchChunks - calls - 2 {
		fmt.Fprintf(&b, "data: %s{\"content\":\"%s\"}%s\n\n", head, words[i%len(words)], tail)
	}
	fmt.Fprintf(&b, `data: %s{"tool_calls":[{"index":0,"id":"call_bench","type":"function","function":{"name":"fs_write","arguments":"{\"path\":\"a.txt\",\"content\":\""}}]}%s`+"\n\n", head, tail)
	for range calls - 1 {
		fmt.Fprintf(&b, `data: %s{"tool_calls":[{"index":0,"function":{"arguments":"line of text\\n"}}]}%s`+"\n\n", head, tail)
	}
	fmt.Fprintf(&b, `data: %s{"tool_calls":[{"index":0,"function":{"arguments":"\"}"}}]}%s`+"\n\n", head, tail)
	b.WriteString(`data: {"id":"chatcmpl-CAx9pQ2vL7kR1sT4uW6yZ8bD3fH5j","object":"chat.completion.chunk","created":1764470000,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}],"usage":null}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
})

func reportPerChunk(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchChunks, "ns/chunk")
}

func BenchmarkStreamRaw(b *testing.B) {
	body := benchBody()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(make([]byte, 0, 64<<10), maxStreamLine)
		n := 0
		for sc.Scan() {
			payload, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
			if !ok {
				continue
			}
			if bytes.Equal(payload, []byte("[DONE]")) {
				break
			}
			var r openai.ChatCompletionStreamResponse
			if err := json.Unmarshal(payload, &r); err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != benchChunks {
			b.Fatalf("read %d chunks; want %d", n, benchChunks)
		}
	}
	reportPerChunk(b)
}

type benchRoundTrip func(*http.Request) (*http.Response, error)

func (f benchRoundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func BenchmarkStreamClient(b *testing.B) {
	body := benchBody()
	rt := benchRoundTrip(func(r *http.Request) (*http.Response, error) {
		_, _ = io.Copy(io.Discard, r.Body)
		return &http.Response{
			StatusCode: http.StatusOK,
			Header:     http.Header{"Content-Type": {"text/event-stream"}},
			Body:       io.NopCloser(bytes.NewReader(body)),
			Request:    r,
		}, nil
	})
	c := NewClient(ClientConfig{BaseURL: "http://bench.invalid/v1", HTTPClient: &http.Client{Transport: rt}})
	req := openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "go"}}}
	deltas := 0
	onDelta := func(StreamDelta) { deltas++ }
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		comp, err := c.Stream(context.Background(), req, onDelta)
		if err != nil {
			b.Fatal(err)
		}
		if len(comp.ToolCalls) != 1 || !strings.HasSuffix(comp.ToolCalls[0].Function.Arguments, `\n"}`) {
			b.Fatalf("calls = %+v; want the one fs_write call", comp.ToolCalls)
		}
	}
	if deltas == 0 {
		b.Fatal("onDelta never called")
	}
	reportPerChunk(b)
}
