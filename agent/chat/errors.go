package chat

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// ErrStreamCut reports that the model server ended its answer with neither a
// finish_reason nor [DONE]: the connection dropped or the server gave up
// mid-answer. Stream wraps it and still returns the partial Completion.
var ErrStreamCut = errors.New("the model's answer was cut off")

// APIError is a failure of the model server: an HTTP error status, a
// connection that could not be made, or an error the server sent in the
// middle of a stream. It never contains the API key.
type APIError struct {
	// Server is the base URL the client talks to (credentials removed).
	Server string
	// Status is the HTTP status, 0 for connection failures and mid-stream
	// errors.
	Status int
	// Message is the server's message, or what went wrong with the
	// connection.
	Message string
	// Retryable says the failure is transient in kind (429, 5xx, connection
	// failure): trying again later may work. It is set also when the
	// client's own retries were used up.
	Retryable bool

	kind  apiErrorKind
	tries int // attempts made before giving up
}

// apiErrorKind says where a failure arose, for Error and Hint.
type apiErrorKind int

const (
	kindUnspecified apiErrorKind = iota
	kindHTTP                     // a non-2xx status
	kindConn                     // no connection, or it broke before the first byte
	kindMidStream                // an error the server sent after the stream began
	kindBadURL                   // the base URL itself is unusable
	kindProtocol                 // a 2xx answer that is not a chat completion
)

func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString("model server ")
	b.WriteString(e.Server)
	switch {
	case e.Status != 0:
		fmt.Fprintf(&b, ": HTTP %d", e.Status)
		if t := http.StatusText(e.Status); t != "" {
			b.WriteString(" " + t)
		}
	case e.kind == kindConn:
		b.WriteString(": connection failed")
	case e.kind == kindMidStream:
		b.WriteString(": error during the answer")
	case e.kind == kindProtocol:
		b.WriteString(": unexpected answer")
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.tries > 1 {
		fmt.Fprintf(&b, " (gave up after %d tries)", e.tries)
	}
	return b.String()
}

// Hint says what to check: OPENAI_BASE_URL / the server running, the model
// name (404 or "model not found"), OPENAI_API_KEY (401/403), rate limit (429),
// context too long (400 mentioning context/tokens).
func (e *APIError) Hint() string {
	msg := strings.ToLower(e.Message)
	switch {
	case e.kind == kindBadURL:
		return "Set OPENAI_BASE_URL (or the provider's base_url) to the server's API address, e.g. http://localhost:11434/v1."
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		return "Check OPENAI_API_KEY (or the provider's api_key_env): the server refused the key."
	case e.Status == http.StatusTooManyRequests:
		return "The server is rate limiting requests: wait a minute and try again, or switch to another model or provider."
	case e.Status == http.StatusNotFound || mentionsMissingModel(msg):
		return fmt.Sprintf("Check the model name (--model or the config's model; /model lists what the server has) and that OPENAI_BASE_URL (now %s) ends in /v1.", e.Server)
	case mentionsContext(msg):
		return "The conversation is too long for the model's context window: /clear to start over, or raise the server's context size (Ollama num_ctx, llama.cpp -c, vLLM --max-model-len)."
	case e.kind == kindConn || e.kind == kindUnspecified && e.Status == 0:
		return fmt.Sprintf("Check that the model server is running and that OPENAI_BASE_URL (now %s) points at it.", e.Server)
	case e.kind == kindProtocol:
		return fmt.Sprintf("The answer is not an OpenAI-compatible chat completion: check that OPENAI_BASE_URL (now %s) points at the server's /v1 API.", e.Server)
	case e.Status >= 500:
		return "The model server failed: check its logs (out of memory? model failed to load?) and try again."
	case e.kind == kindMidStream:
		return "The model server failed while answering: check its logs and try again."
	default:
		return fmt.Sprintf("The server refused the request: check OPENAI_BASE_URL (now %s) and the model name; its message says what it rejected.", e.Server)
	}
}

func mentionsMissingModel(msg string) bool {
	if !strings.Contains(msg, "model") {
		return false
	}
	return strings.Contains(msg, "not found") || strings.Contains(msg, "does not exist") ||
		strings.Contains(msg, "no such model") || strings.Contains(msg, "unknown model")
}

// mentionsContext recognises the servers' ways of saying the prompt is too
// long: "context length", "exceeds the available context size", "maximum
// context length is 8192 tokens", "too many tokens".
func mentionsContext(msg string) bool {
	if strings.Contains(msg, "context") {
		return true
	}
	if !strings.Contains(msg, "token") {
		return false
	}
	for _, w := range []string{"maximum", "exceed", "too long", "too many", "limit"} {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}
