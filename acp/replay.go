package acp

import (
	"context"

	acpsdk "github.com/coder/acp-go-sdk"
	"github.com/sashabaranov/go-openai"

	"myclaw/agent"
)

// replay sends a loaded session's conversation as updates, the way the
// TUI shows a resumed one: prompts, answers, and each call as it ended.
func (ss *session) replay(_ context.Context) {
	ag := ss.es.Agent
	byID := map[string][]agent.CallRecord{}
	for _, c := range ag.PastCalls() {
		byID[c.Result.Call.ID] = append(byID[c.Result.Call.ID], c)
	}
	u := newUpdater(ss, 0, ag.Tools())
	for _, m := range ag.Messages() {
		switch m.Role {
		case openai.ChatMessageRoleUser:
			if agent.ToolImages(m) {
				continue
			}
			ss.send(acpsdk.UpdateUserMessageText(agent.PromptText(m)))
		case openai.ChatMessageRoleAssistant:
			if m.Content != "" {
				ss.text(m.Content)
			}
			for _, c := range m.ToolCalls {
				call := agent.Call{ID: c.ID, Tool: c.Function.Name, Wire: c.Function.Name, Args: []byte(c.Function.Arguments)}
				q := byID[c.ID]
				if len(q) == 0 {
					// Cut off: myclaw stopped before it ended.
					u.result(agent.ToolResultEvent{Call: call, Status: agent.StatusCancelled})
					continue
				}
				byID[c.ID] = q[1:]
				ev := q[0].Result
				ev.Body = q[0].Body
				u.result(ev)
			}
		}
	}
}
