package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"myclaw/tools"
	"net/http"
	"strings"
	"time"

	"github.com/sashabaranov/go-openai"
)

//go:embed supra_llm.md
var supraLLMDescription string

const (
	supraDefaultTimeout = 120 * time.Second
	supraMaxQuestion    = 20000
	supraMaxContext     = 200000
	supraAnswerCap      = 50 << 10
	supraSystemPrompt   = "Another AI assistant is consulting you on a hard question while helping a user. Answer it directly, precisely and concisely; say when you are unsure. Give code only when it helps."
)

// SupraOptions configures supra_llm: the OpenAI-compatible server and model
// it asks. The key is sent as a bearer token and never shown to the model.
type SupraOptions struct {
	BaseURL, APIKey, Model string
	Timeout                time.Duration // 0 -> 120 s
}

type supraLLM struct {
	opts   SupraOptions
	client *openai.Client
	meta   tools.Meta
}

// NewSupraLLM returns the supra_llm tool, which puts one question (with
// optional context) to a stronger model through the OpenAI-compatible chat
// completions API, without streaming.
func NewSupraLLM(opts SupraOptions) tools.Tool {
	if opts.Timeout <= 0 {
		opts.Timeout = supraDefaultTimeout
	}
	cfg := openai.DefaultConfig(opts.APIKey)
	if opts.BaseURL != "" {
		cfg.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	}
	cfg.HTTPClient = &http.Client{Timeout: opts.Timeout}
	return &supraLLM{opts: opts, client: openai.NewClientWithConfig(cfg), meta: tools.Meta{
		Name:        "supra_llm",
		Description: strings.TrimSpace(supraLLMDescription),
		Schema: json.RawMessage(fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "question": {"type": "string", "minLength": 1, "maxLength": %d, "description": "The question, self-contained: the other model has not seen this conversation."},
    "context": {"type": "string", "maxLength": %d, "description": "Code, logs or facts the question depends on."}
  },
  "required": ["question"],
  "additionalProperties": false
}`, supraMaxQuestion, supraMaxContext)),
		ReadOnly:   true,
		Risk:       tools.RiskLow,
		Capability: "llm:supra",
		Timeout:    opts.Timeout + 10*time.Second,
		Source:     tools.SourceBuiltin,
	}}
}

// Meta implements Tool.
func (s *supraLLM) Meta() tools.Meta { return s.meta }

// supraOutput is the answer and what it cost.
type supraOutput struct {
	Model            string `json:"model"`
	Answer           string `json:"answer"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
	TotalTokens      int    `json:"total_tokens"`
	Note             string `json:"note,omitempty"`
}

// Execute implements Tool.
func (s *supraLLM) Execute(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Question string `json:"question"`
		Context  string `json:"context"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, `Send {"question": "..."} with an optional "context".`, "arguments are not valid: %v", err)
	}
	if strings.TrimSpace(a.Question) == "" {
		return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, "Put the question in \"question\".", "question is empty")
	}
	if s.opts.Model == "" {
		return tools.Result{}, tools.Errorf(tools.KindUnsupported, "supra_llm has no model configured; tell the user to set model in the [supra_llm] section of the config.", "no model is configured for supra_llm")
	}
	user := a.Question
	if c := strings.TrimSpace(a.Context); c != "" {
		user += "\n\nContext:\n" + c
	}
	resp, err := s.client.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
		Model: s.opts.Model,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: supraSystemPrompt},
			{Role: openai.ChatMessageRoleUser, Content: user},
		},
	})
	if err != nil {
		return tools.Result{}, s.mapError(ctx, err)
	}
	if len(resp.Choices) == 0 || strings.TrimSpace(resp.Choices[0].Message.Content) == "" {
		return tools.Result{}, tools.Errorf(tools.KindExternalError, "The model gave no answer; rephrase the question or go on without it.", "%s returned an empty answer", s.opts.Model)
	}
	answer := resp.Choices[0].Message.Content
	out := supraOutput{
		Model:            s.opts.Model,
		PromptTokens:     resp.Usage.PromptTokens,
		CompletionTokens: resp.Usage.CompletionTokens,
		TotalTokens:      resp.Usage.TotalTokens,
	}
	if resp.Model != "" {
		out.Model = resp.Model
	}
	if len(answer) > supraAnswerCap {
		cut := tools.CutUTF8(answer, supraAnswerCap)
		out.Note = fmt.Sprintf("shown first %s of a %s answer; ask a narrower question for the rest", tools.HumanSize(int64(len(cut))), tools.HumanSize(int64(len(answer))))
		answer = cut
	}
	if resp.Choices[0].FinishReason == openai.FinishReasonLength {
		out.Note = strings.TrimPrefix(out.Note+"; the answer was cut by the model's output limit", "; ")
	}
	out.Answer = answer
	return tools.Result{
		Output:     out,
		Summary:    fmt.Sprintf("Asked %s (%d tokens)", out.Model, out.TotalTokens),
		Capability: "llm:supra",
	}, nil
}

// mapError turns a client failure into the model's error kinds. Server
// messages are passed on with the key masked, in case a server echoes it.
func (s *supraLLM) mapError(ctx context.Context, err error) error {
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return ctx.Err()
	}
	status, msg := 0, ""
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr):
		status, msg = apiErr.HTTPStatusCode, apiErr.Message
	case errors.As(err, &reqErr):
		status = reqErr.HTTPStatusCode
		if reqErr.Err != nil {
			msg = reqErr.Err.Error()
		}
	}
	msg = s.mask(tools.ClipOneLine(msg, 300))
	model := s.opts.Model
	withMsg := func(e *tools.Error) *tools.Error {
		if msg != "" {
			e.Message += ": " + msg
		}
		return e.With("status", status)
	}
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return withMsg(tools.Errorf(tools.KindExternalError,
			"Do not retry. Tell the user the supra_llm server refused its API key: check the variable named by api_key_env in the [supra_llm] section (or its provider) of the config.",
			"the supra_llm server refused the API key (HTTP %d)", status))
	case status == http.StatusNotFound:
		return withMsg(tools.Errorf(tools.KindExternalError,
			"Do not retry. Tell the user the supra_llm model or URL is wrong: check model and base_url in the [supra_llm] section of the config.",
			"the supra_llm server does not know model %q or the URL is wrong (HTTP 404)", model))
	case status == http.StatusTooManyRequests:
		return withMsg(tools.Errorf(tools.KindQuotaExceeded, "The stronger model is rate limited or out of quota; go on without it or try much later.",
			"the supra_llm server is rate limiting (HTTP 429)"))
	case status == http.StatusBadRequest || status == http.StatusRequestEntityTooLarge:
		return withMsg(tools.Errorf(tools.KindInvalidArgs, "Shorten the context (send only the relevant part) and ask again.",
			"the supra_llm server rejected the request (HTTP %d)", status))
	case status >= 500:
		return withMsg(tools.Errorf(tools.KindNetworkError, "The stronger model's server failed; retry once later or go on without it.",
			"the supra_llm server failed (HTTP %d)", status))
	case status != 0:
		return withMsg(tools.Errorf(tools.KindExternalError, "The stronger model's server refused the request; go on without it.",
			"the supra_llm server answered HTTP %d", status))
	}
	if netIsTimeout(err) {
		return tools.Errorf(tools.KindNetworkError, "The stronger model took too long; ask a smaller question or go on without it.",
			"the supra_llm server did not answer within %s", s.opts.Timeout)
	}
	return tools.Errorf(tools.KindNetworkError,
		"The stronger model cannot be reached; tell the user to check that its server runs and base_url in the [supra_llm] section of the config.",
		"the supra_llm server could not be reached: %s", s.mask(tools.ClipOneLine(err.Error(), 300)))
}

// mask hides the API key in text that came from elsewhere.
func (s *supraLLM) mask(text string) string {
	if len(s.opts.APIKey) < 4 {
		return text
	}
	return strings.ReplaceAll(text, s.opts.APIKey, "[redacted]")
}
