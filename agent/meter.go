package agent

import "github.com/sashabaranov/go-openai"

// counted is the server's own count of the last turn request it counted:
// the prompt's tokens and how many messages of the conversation that
// prompt carried. The meter is that count plus an estimate of what came
// after (the answer, tool results, the next prompt), so a session shows
// the same figure live and resumed (the transcript keeps the count in its
// usage records, after the messages of the request), and a cancelled
// request, which the server never counts, cannot lower it.
type counted struct {
	prompt, upTo int
	// total is the request's prompt and completion, for /context.
	total int
	ok    bool
}

// countOf is the count a turn request's usage gives: none when the server
// sent no usage (an estimate is not a count). upTo is how many messages
// the request carried.
func countOf(rec usageRecord, upTo int) (counted, bool) {
	if rec.Kind != RequestTurn || rec.Estimated || rec.PromptTokens <= 0 {
		return counted{}, false
	}
	return counted{prompt: rec.PromptTokens, upTo: upTo, total: rec.PromptTokens + rec.CompletionTokens, ok: true}, true
}

// sinceCountLocked estimates what the next request carries beyond the
// server's last count: the messages after it and the attachments waiting.
// ok is false when there is no count to go on from (none yet, or a
// compaction changed what was counted). The caller holds a.mu.
func (a *Agent) sinceCountLocked() (tokens int, ok bool) {
	c := a.lastCount
	if !c.ok {
		return 0, false
	}
	n := c.prompt + estimateMessages(a.messages[min(c.upTo, len(a.messages)):])
	for _, at := range a.attachments {
		n += estimateText(at.Text) + estimateImage(at.ImageURL)
	}
	return n, true
}

// meter is the context the next request will carry, as the status line
// shows it: the server's last count and an estimate of what came since;
// without a count, the estimate /context makes (system prompt, tools,
// conversation and attachments). estimated says no server count is in it.
func (a *Agent) meter() (tokens int, estimated bool) {
	a.mu.Lock()
	n, ok := a.sinceCountLocked()
	a.mu.Unlock()
	if ok {
		return n, false
	}
	r := a.Context()
	return r.System + r.Catalog + r.Conversation + r.Attached, true
}

// answerTokens estimates the answer a request's usage is reported before:
// the meter shown with the usage event includes it, as it will once the
// answer is in the conversation.
func answerTokens(content string, calls []openai.ToolCall) int {
	return estimateMessage(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: content, ToolCalls: calls})
}
