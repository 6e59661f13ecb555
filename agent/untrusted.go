package agent

import (
	"html"
	"regexp"

	"github.com/sashabaranov/go-openai"

	"myclaw/approval"
)

// fenceOpen finds the opening of an untrusted fence in a tool message, as
// written or inside the JSON envelope (quotes escaped).
var fenceOpen = regexp.MustCompile(`<untrusted source=\\?"([^"\\]*)\\?"`)

// untrustedOf rebuilds, from a loaded transcript, the untrusted text the
// session read (approval.Request.Earlier): every tool message that holds
// a fence, by the fence's source, bounded like the live record.
func untrustedOf(msgs []openai.ChatCompletionMessage) []approval.Seen {
	var out []approval.Seen
	for _, m := range msgs {
		if m.Role != openai.ChatMessageRoleTool {
			continue
		}
		text := m.Content
		for _, p := range m.MultiContent {
			text += "\n" + p.Text
		}
		if sub := fenceOpen.FindStringSubmatch(text); sub != nil {
			out = approval.KeepEarlier(out, approval.Seen{Source: html.UnescapeString(sub[1]), Text: text})
		}
	}
	return out
}
