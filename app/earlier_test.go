package app

import (
	"fmt"
	"testing"

	"github.com/sashabaranov/go-openai"

	"myclaw/agent"
)

// A resumed session of 1,000 turns hands the TUI every one of them, each
// call with its own record.
func TestEarlierKeepsEveryTurn(t *testing.T) {
	var msgs []openai.ChatCompletionMessage
	var recs []agent.CallRecord
	for i := range 1000 {
		id := fmt.Sprint("c", i)
		msgs = append(msgs,
			openai.ChatCompletionMessage{Role: "user", Content: fmt.Sprint("prompt ", i)},
			openai.ChatCompletionMessage{Role: "assistant", Content: fmt.Sprint("answer ", i),
				ToolCalls: []openai.ToolCall{{ID: id, Type: "function", Function: openai.FunctionCall{Name: "fs_read", Arguments: "{}"}}}},
			openai.ChatCompletionMessage{Role: "tool", ToolCallID: id})
		recs = append(recs, agent.CallRecord{Result: agent.ToolResultEvent{Call: agent.Call{ID: id, Tool: "fs_read"}, Summary: fmt.Sprint("read ", i)}})
	}
	out := earlier(msgs, recs)
	if len(out) != 3000 {
		t.Fatalf("got %d earlier messages; want 3000", len(out))
	}
	if out[0].Text != "prompt 0" || out[2].Call == nil || out[2].Call.Result.Summary != "read 0" {
		t.Fatalf("first turn: %+v %+v %+v", out[0], out[1], out[2])
	}
}
