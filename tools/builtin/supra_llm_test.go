package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"myclaw/tools"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const supraTestKey = "sk-supra-test-key-123"

// supraFake serves /v1/chat/completions with a fixed status and body and
// keeps the last request.
func supraFake(t *testing.T, status int, body string) (*httptest.Server, *atomic.Value) {
	t.Helper()
	var last atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+supraTestKey {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"bad key","type":"invalid_request_error"}}`)
			return
		}
		b, _ := io.ReadAll(r.Body)
		last.Store(b)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, &last
}

const supraOKBody = `{"id":"c1","object":"chat.completion","model":"big-model-2026","choices":[{"index":0,"message":{"role":"assistant","content":"Use a mutex."},"finish_reason":"stop"}],"usage":{"prompt_tokens":40,"completion_tokens":5,"total_tokens":45}}`

func TestSupraLLMAnswers(t *testing.T) {
	srv, last := supraFake(t, 200, supraOKBody)
	tool := NewSupraLLM(SupraOptions{BaseURL: srv.URL + "/v1/", APIKey: supraTestKey, Model: "big-model"})
	res, err := tool.Execute(context.Background(), json.RawMessage(`{"question":"How do I avoid this race?","context":"x++ in two goroutines"}`))
	if err != nil {
		t.Fatalf("Execute error: %v", err)
	}
	out := res.Output.(supraOutput)
	want := supraOutput{Model: "big-model-2026", Answer: "Use a mutex.", PromptTokens: 40, CompletionTokens: 5, TotalTokens: 45}
	if out != want {
		t.Errorf("output = %+v; want %+v", out, want)
	}
	var req struct {
		Model    string `json:"model"`
		Stream   bool   `json:"stream"`
		Messages []struct{ Role, Content string }
	}
	if err := json.Unmarshal(last.Load().([]byte), &req); err != nil {
		t.Fatal(err)
	}
	if req.Model != "big-model" || req.Stream || len(req.Messages) != 2 || req.Messages[0].Role != "system" {
		t.Errorf("request = %+v; want model big-model, no streaming, a system and a user message", req)
	}
	if u := req.Messages[len(req.Messages)-1].Content; !strings.Contains(u, "How do I avoid this race?") || !strings.Contains(u, "Context:\nx++ in two goroutines") {
		t.Errorf("user message = %q; want the question and the context", u)
	}
	if strings.Contains(string(last.Load().([]byte)), supraTestKey) {
		t.Errorf("the API key appears in the request body")
	}
}

func TestSupraLLMErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		key    string
		kind   tools.Kind
		want   string
	}{
		{"wrong key", 200, supraOKBody, "sk-wrong-key-999", tools.KindExternalError, "api_key_env"},
		{"key echoed by server is masked", 401, `{"error":{"message":"Incorrect API key provided: ` + supraTestKey + `"}}`, supraTestKey, tools.KindExternalError, "[redacted]"},
		{"unknown model", 404, `{"error":{"message":"model not found"}}`, supraTestKey, tools.KindExternalError, `model "big-model"`},
		{"rate limited", 429, `{"error":{"message":"slow down"}}`, supraTestKey, tools.KindQuotaExceeded, "429"},
		{"context too long", 400, `{"error":{"message":"context length exceeded"}}`, supraTestKey, tools.KindInvalidArgs, "context length exceeded"},
		{"server failure", 503, `upstream down`, supraTestKey, tools.KindNetworkError, "503"},
		{"no choices", 200, `{"choices":[],"usage":{}}`, supraTestKey, tools.KindExternalError, "empty answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := supraFake(t, tt.status, tt.body)
			tool := NewSupraLLM(SupraOptions{BaseURL: srv.URL + "/v1", APIKey: tt.key, Model: "big-model"})
			_, err := tool.Execute(context.Background(), json.RawMessage(`{"question":"q"}`))
			var te *tools.Error
			if !errors.As(err, &te) || te.Kind != tt.kind {
				t.Fatalf("error = %v; want kind %s", err, tt.kind)
			}
			if !strings.Contains(te.Message+" "+te.Hint, tt.want) {
				t.Errorf("error %q (hint %q) lacks %q", te.Message, te.Hint, tt.want)
			}
			if strings.Contains(te.Message+te.Hint, tt.key) {
				t.Errorf("error %q reveals the API key", te.Message)
			}
		})
	}
}

func TestSupraLLMUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	tool := NewSupraLLM(SupraOptions{BaseURL: url + "/v1", APIKey: supraTestKey, Model: "m", Timeout: 5 * time.Second})
	_, err := tool.Execute(context.Background(), json.RawMessage(`{"question":"q"}`))
	var te *tools.Error
	if !errors.As(err, &te) || te.Kind != tools.KindNetworkError || !strings.Contains(te.Hint, "base_url") {
		t.Errorf("error = %v; want network_error pointing at base_url", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tool.Execute(ctx, json.RawMessage(`{"question":"q"}`)); !errors.Is(err, context.Canceled) {
		t.Errorf("Execute with a cancelled context = %v; want context.Canceled", err)
	}
}

func TestSupraLLMMeta(t *testing.T) {
	m := NewSupraLLM(SupraOptions{APIKey: supraTestKey, Model: "m"}).Meta()
	if !m.ReadOnly || m.ReturnsUntrusted || m.Risk != tools.RiskLow {
		t.Errorf("meta = %+v; want read-only, trusted, low risk", m)
	}
	if strings.Contains(string(m.Schema)+m.Description, supraTestKey) {
		t.Errorf("the API key appears in the schema or description")
	}
	_, err := NewSupraLLM(SupraOptions{}).Execute(context.Background(), json.RawMessage(`{"question":"q"}`))
	var te *tools.Error
	if !errors.As(err, &te) || te.Kind != tools.KindUnsupported {
		t.Errorf("without a model: error = %v; want unsupported", err)
	}
}
