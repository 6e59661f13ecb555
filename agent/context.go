package agent

import (
	"github.com/sashabaranov/go-openai"
)

// Token counts are estimated at four bytes a token when the server reports
// no usage; that errs on the side of eliding early.
const bytesPerToken = 4

func estimateText(s string) int {
	return (len(s) + bytesPerToken - 1) / bytesPerToken
}

func estimateMessage(m openai.ChatCompletionMessage) int {
	n := 4 + estimateText(m.Content) + estimateText(m.ReasoningContent)
	for _, p := range m.MultiContent {
		n += estimateText(p.Text)
		if p.ImageURL != nil {
			n += estimateImage(p.ImageURL.URL)
		}
	}
	for _, c := range m.ToolCalls {
		n += 8 + estimateText(c.Function.Name) + estimateText(c.Function.Arguments)
	}
	return n
}

func estimateMessages(msgs []openai.ChatCompletionMessage) int {
	n := 0
	for _, m := range msgs {
		n += estimateMessage(m)
	}
	return n
}

// estimateCatalog counts catalog as the JSON it is sent as.
func estimateCatalog(catalog []openai.Tool) int {
	return (catalogLen(catalog) + bytesPerToken - 1) / bytesPerToken
}

func estimateRequest(req openai.ChatCompletionRequest) int {
	return estimateMessages(req.Messages) + estimateCatalog(req.Tools)
}

// elidedOutput replaces a tool output that no longer fits; it keeps the
// envelope shape so the model reads it like any other result.
const elidedOutput = `{"ok":true,"elided":"this older tool output was removed to fit the context window; call the tool again if you still need it"}`

// fitContext returns the messages to send within budget tokens. When they
// do not fit, the oldest tool outputs are elided first (never the current
// round's); user and assistant messages are never dropped. It returns how
// many outputs it elided.
func fitContext(msgs []openai.ChatCompletionMessage, budget int) ([]openai.ChatCompletionMessage, int) {
	total := estimateMessages(msgs)
	// Keep a margin for the answer.
	limit := budget * 85 / 100
	if total <= limit {
		return msgs, 0
	}
	// The current round's tool outputs are those after the last assistant message.
	lastAssistant := len(msgs)
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == openai.ChatMessageRoleAssistant {
			lastAssistant = i
			break
		}
	}
	out := append([]openai.ChatCompletionMessage(nil), msgs...)
	elided := 0
	for i := 0; i < lastAssistant && total > limit; i++ {
		m := out[i]
		if m.Role != openai.ChatMessageRoleTool || len(m.Content) <= len(elidedOutput) {
			continue
		}
		total -= estimateText(m.Content) - estimateText(elidedOutput)
		m.Content = elidedOutput
		out[i] = m
		elided++
	}
	return out, elided
}
