package agent

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai"

	"myclaw/approval"
)

// BenchmarkBuildRequest1000 builds the request of a 1,000-message session
// (user prompts, calls and 2 KB tool outputs), as every round does.
func BenchmarkBuildRequest1000(b *testing.B) {
	h := newHarness(b, approval.Ask, newFakeServer(b))
	out := strings.Repeat("output line of a tool\n", 100)
	var msgs []openai.ChatCompletionMessage
	for i := 0; len(msgs) < 1000; i++ {
		id := fmt.Sprintf("c%d", i)
		msgs = append(msgs,
			openai.ChatCompletionMessage{Role: "user", Content: fmt.Sprintf("step %d: look at the next file", i)},
			openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: id, Type: "function", Function: openai.FunctionCall{Name: "fs_read", Arguments: `{"path":"a.go"}`}}}},
			openai.ChatCompletionMessage{Role: "tool", ToolCallID: id, Content: out},
			openai.ChatCompletionMessage{Role: "assistant", Content: "Read it; next."},
		)
	}
	h.agent.messages = msgs
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req, _ := h.agent.buildRequest()
		if len(req.Messages) != 1001 {
			b.Fatalf("%d messages", len(req.Messages))
		}
	}
}
