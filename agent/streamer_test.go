package agent

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sashabaranov/go-openai"

	"myclaw/agent/chat"
	"myclaw/approval"
)

// scriptedServer is a ModelServer without HTTP: it answers each request
// with the next completion and keeps the requests.
type scriptedServer struct {
	answers  []chat.Completion
	requests []openai.ChatCompletionRequest
}

func (s *scriptedServer) Stream(ctx context.Context, req openai.ChatCompletionRequest, onDelta func(chat.StreamDelta)) (chat.Completion, error) {
	s.requests = append(s.requests, req)
	c := s.answers[0]
	s.answers = s.answers[1:]
	onDelta(chat.StreamDelta{Content: c.Content})
	return c, nil
}
func (s *scriptedServer) Models(context.Context) ([]string, error) {
	return []string{"test-model"}, nil
}
func (s *scriptedServer) ProbeWindow(context.Context, string) chat.Window {
	return chat.Window{Tokens: 32768, Source: "scripted"}
}
func (s *scriptedServer) BaseURL() string { return "scripted" }

// The loop runs on any ModelServer: a call, its result in the next
// request, then the answer.
func TestLoopRunsOnAScriptedServer(t *testing.T) {
	s := &scriptedServer{answers: []chat.Completion{
		{ToolCalls: []openai.ToolCall{{ID: "c1", Type: "function", Function: openai.FunctionCall{Name: "fs_write", Arguments: `{"path":"a.txt","content":"hi\n"}`}}}, FinishReason: "tool_calls"},
		{Content: "wrote it", FinishReason: "stop"},
	}}
	h := newHarness(t, approval.AutoEdit, newFakeServer(t), func(o *Options) { o.Client = s })
	if err := h.run(context.Background(), "write a", approveAll()); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(h.ws, "a.txt")); err != nil || string(b) != "hi\n" {
		t.Fatalf("a.txt = %q, %v", b, err)
	}
	if len(s.requests) != 2 {
		t.Fatalf("%d requests; want 2", len(s.requests))
	}
	last := s.requests[1].Messages
	if m := last[len(last)-1]; m.Role != openai.ChatMessageRoleTool || m.ToolCallID != "c1" {
		t.Errorf("the second request ends with %+v; want the call's result", m)
	}
	if h.text() != "wrote it" {
		t.Errorf("answer %q", h.text())
	}
}
