package agent

import (
	"context"
	"myclaw/agent/chat"

	"github.com/sashabaranov/go-openai"
)

// SampleMessage is one message of a request an MCP server makes of the
// model (sampling).
type SampleMessage struct {
	Role, Text string
}

// Sample sends a request an MCP server made (sampling/createMessage),
// once the person approved it, to the session's model, and returns the
// answer and the model that gave it. It is not part of the conversation:
// no tools are offered, and only its usage goes into the transcript, for
// /cost.
func (a *Agent) Sample(ctx context.Context, system string, msgs []SampleMessage, maxTokens int) (text, model string, err error) {
	model = a.Model()
	// max_tokens, not max_completion_tokens: local servers (llama.cpp,
	// Ollama, LM Studio) read the older field.
	req := openai.ChatCompletionRequest{Model: model, MaxTokens: maxTokens} //nolint:staticcheck // SA1019, see above
	if system != "" {
		req.Messages = append(req.Messages, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: system})
	}
	for _, m := range msgs {
		role := openai.ChatMessageRoleUser
		if m.Role == openai.ChatMessageRoleAssistant {
			role = openai.ChatMessageRoleAssistant
		}
		req.Messages = append(req.Messages, openai.ChatCompletionMessage{Role: role, Content: m.Text})
	}
	comp, err := a.opts.Client.Stream(ctx, req, func(chat.StreamDelta) {})
	if !chat.Unreachable(err) {
		ev := usageOf(comp, req)
		ev.Kind = RequestSampling
		a.count(ev, model)
	}
	if err != nil {
		return "", model, err
	}
	return comp.Content, model, nil
}
