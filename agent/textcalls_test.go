package agent

import (
	"context"
	"fmt"
	"testing"

	"github.com/sashabaranov/go-openai"

	"myclaw/approval"
)

// wantToolCall is a tool call a parse must find.
type wantToolCall struct{ id, name, args string }

func TestParseTextToolCalls(t *testing.T) {
	known := func(name string) bool { return name == "read_file" || name == "list_dir" || name == "time_now" }
	tests := []struct {
		name    string
		content string
		want    []wantToolCall
		rest    string
	}{
		{
			name:    "json fence",
			content: "I'll read it.\n\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"README.md\"}}\n```\n",
			want:    []wantToolCall{{"text_call_1", "read_file", `{"path":"README.md"}`}},
			rest:    "I'll read it.",
		},
		{
			name:    "tool_call fence with parameters",
			content: "```tool_call\n{\"name\":\"list_dir\",\"parameters\":{\"path\":\".\"}}\n```",
			want:    []wantToolCall{{"text_call_1", "list_dir", `{"path":"."}`}},
			rest:    "",
		},
		{
			name:    "tool_call tags, two blocks, text between",
			content: "First <tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n</tool_call> then\n<tool_call>{\"name\":\"time_now\"}</tool_call>\nDone.",
			want:    []wantToolCall{{"text_call_1", "read_file", `{"path":"a"}`}, {"text_call_2", "time_now", `{}`}},
			rest:    "First then\n\nDone.",
		},
		{
			name:    "list of calls",
			content: "```json\n[{\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}},{\"name\":\"list_dir\",\"arguments\":{\"path\":\".\"}}]\n```",
			want:    []wantToolCall{{"text_call_1", "read_file", `{"path":"a"}`}, {"text_call_2", "list_dir", `{"path":"."}`}},
		},
		{
			name:    "arguments as a JSON string",
			content: "<tool_call>{\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\": \\\"a\\\"}\"}</tool_call>",
			want:    []wantToolCall{{"text_call_1", "read_file", `{"path":"a"}`}},
		},
		{
			name:    "wire shape with function",
			content: "```json\n{\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":{\"path\":\"a\"}}}\n```",
			want:    []wantToolCall{{"text_call_1", "read_file", `{"path":"a"}`}},
		},
		{
			name:    "unclosed tag at the end",
			content: "Reading.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}",
			want:    []wantToolCall{{"text_call_1", "read_file", `{"path":"a"}`}},
			rest:    "Reading.",
		},
		{
			name:    "arguments holding a code fence",
			content: "```json\n{\"name\":\"read_file\",\"arguments\":{\"path\":\"a\",\"note\":\"```go\\nx\\n```\"}}\n```\nok",
			want:    []wantToolCall{{"text_call_1", "read_file", `{"path":"a","note":"` + "```go\\nx\\n```" + `"}`}},
			rest:    "ok",
		},
		{
			name:    "unknown tool is left alone",
			content: "```json\n{\"name\": \"rm_rf\", \"arguments\": {}}\n```",
			rest:    "```json\n{\"name\": \"rm_rf\", \"arguments\": {}}\n```",
		},
		{
			name:    "a list with one unknown call is left whole",
			content: "```json\n[{\"name\":\"read_file\",\"arguments\":{}},{\"name\":\"nope\",\"arguments\":{}}]\n```",
			rest:    "```json\n[{\"name\":\"read_file\",\"arguments\":{}},{\"name\":\"nope\",\"arguments\":{}}]\n```",
		},
		{
			name:    "ordinary JSON with a name key is not a call",
			content: "```json\n{\"name\": \"read_file\", \"version\": \"1.0\"}\n```",
			rest:    "```json\n{\"name\": \"read_file\", \"version\": \"1.0\"}\n```",
		},
		{
			name:    "arguments not an object",
			content: "<tool_call>{\"name\":\"read_file\",\"arguments\":\"README.md\"}</tool_call>",
			rest:    "<tool_call>{\"name\":\"read_file\",\"arguments\":\"README.md\"}</tool_call>",
		},
		{
			name:    "other languages' fences are skipped whole",
			content: "```go\nfmt.Println(\"```json\")\n```\n```json\n{\"name\":\"time_now\"}\n```",
			want:    []wantToolCall{{"text_call_1", "time_now", `{}`}},
			rest:    "```go\nfmt.Println(\"```json\")\n```",
		},
		{
			name:    "invalid JSON stays",
			content: "```json\n{\"name\": \"read_file\", \"arguments\": {\n```",
			rest:    "```json\n{\"name\": \"read_file\", \"arguments\": {\n```",
		},
		{
			name:    "plain text",
			content: "  Just an answer.  ",
			rest:    "  Just an answer.  ",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, rest := ParseTextToolCalls(tt.content, known)
			var got []wantToolCall
			for _, c := range calls {
				if c.Type != "function" {
					t.Errorf("Type = %q; want function", c.Type)
				}
				got = append(got, wantToolCall{c.ID, c.Function.Name, c.Function.Arguments})
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.want) {
				t.Errorf("calls = %q; want %q", got, tt.want)
			}
			if rest != tt.rest {
				t.Errorf("rest = %q; want %q", rest, tt.rest)
			}
		})
	}
}

func TestParseTextToolCallsNilKnown(t *testing.T) {
	calls, rest := ParseTextToolCalls("<tool_call>{\"name\":\"x\"}</tool_call>", nil)
	if calls != nil || rest != "<tool_call>{\"name\":\"x\"}</tool_call>" {
		t.Errorf("got %v, %q; want no calls and the content unchanged", calls, rest)
	}
}

func TestTextCallLeavesTheAnswerWithoutIt(t *testing.T) {
	srv := windowServer(t, nil,
		openAIStyle("Let me check the time.\n\n<tool_call>{\"name\": \"time_now\", \"arguments\": {}}</tool_call>"),
		openAIStyle("It is now."),
	)
	h := newHarness(t, approval.Ask, srv)
	if err := h.run(context.Background(), "what time is it?", nil); err != nil {
		t.Fatal(err)
	}
	const want = "Let me check the time."
	var notice *NoticeEvent
	for _, e := range h.eventsOf("notice") {
		if n := e.(NoticeEvent); n.TextCalls {
			notice = &n
		}
	}
	if notice == nil || notice.Answer != want {
		t.Fatalf("notice %+v; want one marking the text calls with the answer %q", notice, want)
	}
	check := func(when string, msgs []openai.ChatCompletionMessage) {
		t.Helper()
		var answer *openai.ChatCompletionMessage
		answered := map[string]bool{}
		for i, m := range msgs {
			if m.Role == openai.ChatMessageRoleAssistant && len(m.ToolCalls) > 0 {
				answer = &msgs[i]
			}
			if m.Role == openai.ChatMessageRoleTool {
				answered[m.ToolCallID] = true
			}
		}
		if answer == nil || answer.Content != want {
			t.Fatalf("%s: the answer with the call is %+v; want content %q", when, answer, want)
		}
		for _, c := range answer.ToolCalls {
			if !answered[c.ID] {
				t.Errorf("%s: call %s has no result", when, c.ID)
			}
		}
	}
	check("live", h.agent.Messages())
	id := h.agent.Session().Info().ID
	if err := h.agent.NewConversation(); err != nil {
		t.Fatal(err)
	}
	if err := h.agent.OpenSession(id); err != nil {
		t.Fatal(err)
	}
	check("resumed", h.agent.Messages())
}
