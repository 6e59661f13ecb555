package chat

import (
	"context"
	"testing"

	"github.com/sashabaranov/go-openai"
)

// TestStreamCachedTokens reads the prompt-cache figure from each server's
// shape of it, and none where the server says nothing.
func TestStreamCachedTokens(t *testing.T) {
	const text = `data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}` + "\n\n"
	const finish = `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"
	tests := []struct {
		name string
		tail string
		want int // -1: not reported
	}{
		{"openai and vllm", `data: {"choices":[],"usage":{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,"prompt_tokens_details":{"cached_tokens":1920}}}` + "\n\n", 1920},
		{"ollama", `data: {"choices":[],"usage":{"prompt_tokens":21,"completion_tokens":9,"total_tokens":30,"prompt_tokens_details":{"cached_tokens":16}}}` + "\n\n", 16},
		{"llama.cpp timings", `data: {"choices":[],"usage":{"prompt_tokens":212,"completion_tokens":24,"total_tokens":236},"timings":{"cache_n":200,"prompt_n":12,"prompt_ms":10.5}}` + "\n\n", 200},
		{"llama.cpp timings before usage", `data: {"choices":[],"timings":{"cache_n":0,"prompt_n":212}}` + "\n\n" + `data: {"choices":[],"usage":{"prompt_tokens":212,"completion_tokens":24,"total_tokens":236}}` + "\n\n", 0},
		{"details win over timings", `data: {"choices":[],"usage":{"prompt_tokens":212,"completion_tokens":24,"total_tokens":236,"prompt_tokens_details":{"cached_tokens":100}},"timings":{"cache_n":90,"prompt_n":122}}` + "\n\n", 100},
		{"not reported", `data: {"choices":[],"usage":{"prompt_tokens":212,"completion_tokens":24,"total_tokens":236}}` + "\n\n", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := serveSSEBody(t, "text/event-stream", []byte(text+finish+tt.tail+"data: [DONE]\n\n"))
			c := newFixtureClient(srv.URL)
			comp, err := c.Stream(context.Background(), openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "x"}}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := -1
			if comp.CachedTokens != nil {
				got = *comp.CachedTokens
			}
			if got != tt.want {
				t.Fatalf("cached tokens = %d, want %d", got, tt.want)
			}
		})
	}
}
