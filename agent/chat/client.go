package chat

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/sashabaranov/go-openai"
)

// ClientConfig configures a Client. Zero values select the defaults noted.
type ClientConfig struct {
	// BaseURL is the server's OpenAI-compatible API, e.g.
	// http://localhost:11434/v1.
	BaseURL string
	// APIKey is sent as a Bearer token when non-empty; it is never logged
	// or put in errors.
	APIKey string
	// HTTPClient nil selects a client with connect and header timeouts and
	// no overall timeout, since streams are long.
	HTTPClient *http.Client
	// MaxTries counts the tries of one request, the first included
	// (0 -> 4).
	MaxTries int
	// BaseDelay is the first wait before a retry, doubled at each retry
	// with jitter (0 -> 1 s); MaxDelay caps every wait, Retry-After
	// included (0 -> 30 s).
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// Sleep waits between tries; nil selects a timer honouring ctx.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Client talks to one OpenAI-compatible chat-completions server. It is safe
// for concurrent use.
type Client struct {
	cfg    ClientConfig
	base   string // BaseURL without trailing slashes
	server string // base for messages, credentials removed
	// baseErr is set when the base URL cannot be used at all.
	baseErr *APIError
	oa      *openai.Client
	now     func() time.Time
}

// StreamDelta is a piece of the answer as it arrives: text, reasoning, or
// both.
type StreamDelta struct{ Content, Reasoning string }

// Completion is the model's whole answer to one request.
type Completion struct {
	Content   string
	Reasoning string
	// ToolCalls are accumulated in order; Type "function"; an empty or
	// repeated id becomes a generated "call_<n>" (unique in the
	// completion); empty arguments become "{}".
	ToolCalls []openai.ToolCall
	// FinishReason is as sent, and may be "" or wrong.
	FinishReason string
	// Usage is set when the server sent it; Cost (USD) when the server
	// priced the request itself.
	Usage *openai.Usage
	Cost  *float64
	// CachedTokens is how many prompt tokens the server took from its
	// prompt cache, when it said (usage.prompt_tokens_details.cached_tokens
	// from OpenAI, vLLM and Ollama; timings.cache_n from llama.cpp); nil
	// when it did not.
	CachedTokens *int
	// TruncatedCall is set when the stream ended with finish_reason "length"
	// while a tool call was being written, or a call's arguments are not
	// complete JSON at the end: that call is dropped from ToolCalls and must
	// be reported, not run.
	TruncatedCall bool
}

// Retry defaults.
const (
	defaultMaxTries  = 4
	defaultBaseDelay = time.Second
	defaultMaxDelay  = 30 * time.Second
)

// emptyToolContent stands in for a tool message without content, which
// strict servers (Ollama) refuse with HTTP 400.
const emptyToolContent = "(no output)"

// NewClient returns a client for cfg.BaseURL. An unusable base URL is
// reported by the first request, with a hint naming the setting to change.
func NewClient(cfg ClientConfig) *Client {
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = newStreamingHTTPClient()
	}
	if cfg.MaxTries <= 0 {
		cfg.MaxTries = defaultMaxTries
	}
	if cfg.BaseDelay <= 0 {
		cfg.BaseDelay = defaultBaseDelay
	}
	if cfg.MaxDelay <= 0 {
		cfg.MaxDelay = defaultMaxDelay
	}
	if cfg.Sleep == nil {
		cfg.Sleep = sleepOrDone
	}
	c := &Client{cfg: cfg, now: time.Now}
	c.base = strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	c.server = c.base
	u, err := url.Parse(c.base)
	if err == nil {
		c.server = u.Redacted()
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.baseErr = &APIError{
			Server:  c.server,
			Message: fmt.Sprintf("invalid base URL %q: want http(s)://host[:port]/v1", c.server),
			kind:    kindBadURL,
		}
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = c.base
	oc.HTTPClient = cfg.HTTPClient
	c.oa = openai.NewClientWithConfig(oc)
	return c
}

// newStreamingHTTPClient bounds connecting and waiting for headers but not
// the whole exchange: an answer may stream for many minutes. The header
// timeout is generous because servers send headers only once a model is
// loaded and, for some, once a long prompt is processed on a CPU.
func newStreamingHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = 10 * time.Second
	t.ResponseHeaderTimeout = 5 * time.Minute
	return &http.Client{Transport: t}
}

// BaseURL returns the server's base URL as configured, without trailing
// slashes.
func (c *Client) BaseURL() string { return c.base }

// Stream sends req (Stream forced true, stream_options.include_usage true) and
// reads the SSE answer, calling onDelta for each content/reasoning piece as it
// arrives. It returns the completion, or an error: *APIError for
// HTTP/status/server errors (before or mid-stream), ErrStreamCut (wrapped,
// with the partial Completion still returned) when the stream ended with
// neither a finish_reason nor [DONE], ctx.Err() when cancelled.
//
// 429, 500, 502, 503, 504 and connection failures before the first byte of
// the answer are retried, up to MaxTries tries in all, waiting as Retry-After
// says or with exponential backoff and jitter; nothing is retried once the
// answer has begun, so onDelta never sees a piece twice. A mid-stream error
// also returns the partial Completion.
func (c *Client) Stream(ctx context.Context, req openai.ChatCompletionRequest, onDelta func(StreamDelta)) (Completion, error) {
	if c.baseErr != nil {
		return Completion{}, c.baseErr
	}
	body, err := json.Marshal(prepareStreamRequest(req))
	if err != nil {
		return Completion{}, fmt.Errorf("encode chat request: %w", err)
	}
	tries := c.cfg.MaxTries
	if ctx.Value(noRetryKey{}) != nil {
		tries = 1
	}
	for attempt := 1; ; attempt++ {
		comp, err := c.streamOnce(ctx, body, onDelta)
		var te *transientError
		if !errors.As(err, &te) {
			return comp, err
		}
		if attempt >= tries {
			te.api.tries = attempt
			return Completion{}, te.api
		}
		wait := c.retryWait(attempt, te)
		ev := Retry{Attempt: attempt + 1, Max: c.cfg.MaxTries, Wait: wait, Reason: te.reason}
		if hook, ok := ctx.Value(retryHookKey{}).(func(Retry)); ok {
			hook(ev)
		}
		if err := c.cfg.Sleep(ctx, wait); err != nil {
			if ctx.Err() != nil {
				return Completion{}, ctx.Err()
			}
			return Completion{}, err
		}
	}
}

// transientError is a failed try that may be tried again.
type transientError struct {
	api    *APIError
	reason string // for Retry, e.g. "HTTP 503 from http://host/v1"
	// retryAfter is the server's Retry-After, when hasRetryAfter.
	retryAfter    time.Duration
	hasRetryAfter bool
}

func (e *transientError) Error() string { return e.api.Error() }

// streamOnce makes one try. It returns a *transientError when the try may be
// repeated.
func (c *Client) streamOnce(ctx context.Context, body []byte, onDelta func(StreamDelta)) (Completion, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return Completion{}, &APIError{Server: c.server, Message: c.scrub(err.Error()), kind: kindBadURL}
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	if c.cfg.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.cfg.HTTPClient.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return Completion{}, ctx.Err()
		}
		return Completion{}, c.connError(err)
	}
	defer resp.Body.Close()

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if ctx.Err() != nil {
			return Completion{}, ctx.Err()
		}
		api := &APIError{
			Server:    c.server,
			Status:    resp.StatusCode,
			Message:   c.scrub(serverErrorMessage(raw)),
			Retryable: retryableStatus(resp.StatusCode),
			kind:      kindHTTP,
		}
		if !api.Retryable {
			return Completion{}, api
		}
		te := &transientError{api: api, reason: fmt.Sprintf("HTTP %d from %s", resp.StatusCode, c.server)}
		te.retryAfter, te.hasRetryAfter = parseRetryAfter(resp.Header, c.now())
		return Completion{}, te
	}

	counted := &countingReader{r: resp.Body}
	st := &streamState{ctx: ctx, onDelta: onDelta}
	err = c.readAnswer(counted, st)
	comp := st.completion()
	if err == nil {
		switch {
		case st.done && st.chunks == 0:
			return comp, fmt.Errorf("%w: the server sent [DONE] before any answer", ErrStreamCut)
		case st.finished():
			return comp, nil
		case ctx.Err() != nil:
			return comp, ctx.Err()
		case counted.n == 0:
			return comp, fmt.Errorf("%w: the server sent an empty answer", ErrStreamCut)
		}
		return comp, fmt.Errorf("%w: the stream ended with neither a finish reason nor [DONE]", ErrStreamCut)
	}
	if ctx.Err() != nil {
		return comp, ctx.Err()
	}
	var readErr *bodyReadError
	if !errors.As(err, &readErr) {
		return comp, err
	}
	if counted.n == 0 {
		return Completion{}, c.connError(readErr.err)
	}
	if st.finished() {
		return comp, nil // only the tail ([DONE], usage) was lost
	}
	return comp, fmt.Errorf("%w: %v", ErrStreamCut, readErr.err) //nolint:errorlint // a cut stream is not its cause: a wrapped context error would read as a cancel
}

// connError describes a connection that failed before the answer began.
// Certificate errors are not retried: trying again cannot fix them.
func (c *Client) connError(err error) error {
	msg := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		msg = ue.Err.Error() // without the URL, which may carry credentials
	}
	api := &APIError{Server: c.server, Message: c.scrub(msg), Retryable: true, kind: kindConn}
	var certErr *tls.CertificateVerificationError
	if errors.As(err, &certErr) {
		api.Retryable = false
		return api
	}
	return &transientError{api: api, reason: fmt.Sprintf("connection to %s failed: %s", c.server, api.Message)}
}

// midStreamError builds the error for an error event or chunk.
func (c *Client) midStreamError(payload []byte) *APIError {
	msg := serverErrorMessage(payload)
	if msg == "" {
		msg = "the server reported an error without a message"
	}
	return &APIError{Server: c.server, Message: c.scrub(msg), kind: kindMidStream}
}

// protocolError builds the error for an answer that is not a chat
// completion.
func (c *Client) protocolError(msg string) *APIError {
	return &APIError{Server: c.server, Message: c.scrub(msg), kind: kindProtocol}
}

// scrub removes the API key from text that came from the server or the
// network stack, in case either echoes it.
func (c *Client) scrub(s string) string {
	if len(c.cfg.APIKey) >= 4 {
		s = strings.ReplaceAll(s, c.cfg.APIKey, "[redacted]")
	}
	return s
}

func retryableStatus(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// retryWait is the wait before the try after attempt: the server's
// Retry-After when it sent one, otherwise BaseDelay doubled per retry with
// jitter in [d/2, d]; MaxDelay caps both.
func (c *Client) retryWait(attempt int, te *transientError) time.Duration {
	if te.hasRetryAfter {
		return min(te.retryAfter, c.cfg.MaxDelay)
	}
	d := c.cfg.MaxDelay
	if attempt-1 < 32 {
		if b := c.cfg.BaseDelay << (attempt - 1); b > 0 && b < d {
			d = b
		}
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// parseRetryAfter reads Retry-After (seconds or an HTTP date) or OpenAI's
// retry-after-ms. A date in the past means no wait.
func parseRetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 && !math.IsInf(ms, 0) {
			return durationFromSeconds(ms / 1000), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 && !math.IsInf(s, 0) {
		return durationFromSeconds(s), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// durationFromSeconds converts without overflowing: absurd values saturate
// and are capped by MaxDelay later.
func durationFromSeconds(s float64) time.Duration {
	if s >= float64(math.MaxInt64/int64(time.Second)) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(s * float64(time.Second))
}

// sleepOrDone waits d or until ctx is done.
func sleepOrDone(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// prepareStreamRequest returns a copy of req fit for strict servers: it
// streams with usage; a tool message never has empty content and a tool call
// never has empty arguments (Ollama answers HTTP 400 to both, and go-openai's
// omitempty would drop them from the JSON). Otherwise the messages, the
// assistant's tool calls included, are sent exactly as given.
func prepareStreamRequest(req openai.ChatCompletionRequest) openai.ChatCompletionRequest {
	req.Stream = true
	req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	msgs := make([]openai.ChatCompletionMessage, len(req.Messages))
	copy(msgs, req.Messages)
	for i := range msgs {
		m := &msgs[i]
		if m.Role == openai.ChatMessageRoleTool && m.Content == "" && len(m.MultiContent) == 0 {
			m.Content = emptyToolContent
		}
		if len(m.ToolCalls) > 0 {
			calls := make([]openai.ToolCall, len(m.ToolCalls))
			copy(calls, m.ToolCalls)
			for j := range calls {
				if strings.TrimSpace(calls[j].Function.Arguments) == "" {
					calls[j].Function.Arguments = "{}"
				}
			}
			m.ToolCalls = calls
		}
	}
	req.Messages = msgs
	return req
}

// Models lists model ids (GET /models), via go-openai's client.
func (c *Client) Models(ctx context.Context) ([]string, error) {
	if c.baseErr != nil {
		return nil, c.baseErr
	}
	list, err := c.oa.ListModels(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, c.modelsError(err)
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	return ids, nil
}

// modelsError turns go-openai's errors into an *APIError.
func (c *Client) modelsError(err error) *APIError {
	var oaErr *openai.APIError
	var reqErr *openai.RequestError
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &oaErr):
		return &APIError{Server: c.server, Status: oaErr.HTTPStatusCode, Message: c.scrub(cleanServerText(oaErr.Message)),
			Retryable: retryableStatus(oaErr.HTTPStatusCode), kind: kindHTTP}
	case errors.As(err, &reqErr):
		msg := serverErrorMessage(reqErr.Body)
		if msg == "" && reqErr.Err != nil {
			msg = cleanServerText(reqErr.Err.Error())
		}
		return &APIError{Server: c.server, Status: reqErr.HTTPStatusCode, Message: c.scrub(msg),
			Retryable: retryableStatus(reqErr.HTTPStatusCode), kind: kindHTTP}
	case errors.As(err, &syntaxErr), errors.As(err, &typeErr):
		return c.protocolError("the model list is not OpenAI-compatible JSON: " + err.Error())
	}
	api := &APIError{Server: c.server, Retryable: true, kind: kindConn}
	var ue *url.Error
	if errors.As(err, &ue) {
		api.Message = c.scrub(ue.Err.Error())
	} else {
		api.Message = c.scrub(err.Error())
	}
	return api
}

// retryHookKey carries a per-request retry callback in the context (as
// net/http/httptrace carries its hooks), so the loop can report each wait
// to the turn that is waiting.
type retryHookKey struct{}

// Retry is a wait before trying the server again.
type Retry struct {
	Attempt int
	Max     int
	Wait    time.Duration
	Reason  string
}

// WithRetryHook returns ctx carrying hook, called before each wait.
func WithRetryHook(ctx context.Context, hook func(Retry)) context.Context {
	return context.WithValue(ctx, retryHookKey{}, hook)
}

// noRetryKey marks a request to try once: the server was found down, and
// waiting through the retries would only delay saying so.
type noRetryKey struct{}

// WithoutRetries returns ctx asking for one try only.
func WithoutRetries(ctx context.Context) context.Context {
	return context.WithValue(ctx, noRetryKey{}, true)
}

// Unreachable reports whether err is a connection that never reached the
// server (nothing was sent, nothing answered).
func Unreachable(err error) bool {
	var api *APIError
	return errors.As(err, &api) && api.kind == kindConn
}
