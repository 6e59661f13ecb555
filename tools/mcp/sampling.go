package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"myclaw/tools"
)

// maxSamplingTokens bounds the answer a server may ask of the model.
const maxSamplingTokens = 8192

// maxSamplingText bounds the messages of one sampling request.
const maxSamplingText = 64 << 10

// SamplingRequest is a server's request to use the model
// (sampling/createMessage), for a server with sampling = true. It is
// shown to the person for approval before anything reaches the model, and
// it is never part of the conversation.
type SamplingRequest struct {
	Server string
	// System is the server's system prompt, if any.
	System string
	// Messages are the conversation the server sends, as text.
	Messages []SamplingMessage
	// MaxTokens bounds the answer (at most maxSamplingTokens).
	MaxTokens int
}

// SamplingMessage is one message of a SamplingRequest.
type SamplingMessage struct {
	Role string // "user" or "assistant"
	Text string
}

// SamplingAnswer is the model's answer to a SamplingRequest.
type SamplingAnswer struct {
	Text  string
	Model string
}

// Describe is the request as the person reviews it: cleaned of control
// sequences, bounded.
func (r SamplingRequest) Describe() string {
	clean := func(s string) string { return tools.Neutralize(strings.TrimSpace(s)) }
	var b strings.Builder
	fmt.Fprintf(&b, "The server asks your model for an answer of at most %d tokens; the answer goes to %s only.\n", r.MaxTokens, r.Server)
	if r.System != "" {
		fmt.Fprintf(&b, "\n[system]\n%s\n", clean(r.System))
	}
	for _, m := range r.Messages {
		fmt.Fprintf(&b, "\n[%s]\n%s\n", m.Role, clean(m.Text))
	}
	return tools.Clip(b.String(), 4000)
}

// samplingHandler answers a server's sampling requests: each goes to
// Options.Sample, which asks the person; without one (headless) every
// request is declined.
func (m *Manager) samplingHandler(server string) func(context.Context, *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
	return func(ctx context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
		declined := &jsonrpc.Error{Code: -1, Message: ErrSamplingDeclined.Error()}
		m.mu.Lock()
		sample := m.opts.Sample
		m.mu.Unlock()
		if sample == nil {
			m.logf("mcp: server %s asked to use the model; declined (nobody to ask)", server)
			return nil, declined
		}
		sr, err := samplingRequest(server, req.Params)
		if err != nil {
			m.logf("mcp: server %s: declined a sampling request: %v", server, err)
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		ans, err := sample(ctx, sr)
		switch {
		case errors.Is(err, ErrSamplingDeclined):
			m.logf("mcp: server %s asked to use the model; the user declined", server)
			return nil, declined
		case err != nil:
			m.logf("mcp: server %s: its sampling request failed: %v", server, err)
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the model request failed: " + tools.Clip(err.Error(), 500)}
		}
		m.logf("mcp: server %s used the model %s (%d bytes answered)", server, ans.Model, len(ans.Text))
		return &sdk.CreateMessageResult{Content: &sdk.TextContent{Text: ans.Text}, Model: ans.Model, Role: "assistant", StopReason: "endTurn"}, nil
	}
}

// samplingRequest reads the request's parameters: text messages (other
// content becomes its placeholder), the system prompt, the token bound.
func samplingRequest(server string, p *sdk.CreateMessageParams) (SamplingRequest, error) {
	if p == nil || len(p.Messages) == 0 {
		return SamplingRequest{}, errors.New("the request has no messages")
	}
	sr := SamplingRequest{Server: server, System: p.SystemPrompt, MaxTokens: int(min(max(p.MaxTokens, 1), maxSamplingTokens))}
	total := len(sr.System)
	for _, msg := range p.Messages {
		if msg == nil {
			continue
		}
		role := string(msg.Role)
		if role != "user" && role != "assistant" {
			return SamplingRequest{}, fmt.Errorf("message role %q: want user or assistant", tools.Clip(role, 40))
		}
		text := describeContent(msg.Content)
		total += len(text)
		sr.Messages = append(sr.Messages, SamplingMessage{Role: role, Text: text})
	}
	if total > maxSamplingText {
		return SamplingRequest{}, fmt.Errorf("the request has %s of text; at most %s is sent", tools.HumanSize(int64(total)), tools.HumanSize(maxSamplingText))
	}
	return sr, nil
}
