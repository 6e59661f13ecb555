package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"myclaw/agent/chat"
	"myclaw/approval"
)

// windowServer answers the chat endpoint from replies and the window
// endpoints of one kind of server, shaped as that server answers them.
func windowServer(t *testing.T, extra map[string]string, replies ...reply) *fakeServer {
	f := &fakeServer{t: t, replies: replies}
	mux := http.NewServeMux()
	for path, body := range extra {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, body)
		})
	}
	mux.HandleFunc("/v1/chat/completions", f.serve)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

var windowShapes = []struct {
	name   string
	paths  map[string]string
	tokens int
	server string
}{
	{"vLLM", map[string]string{"/v1/models": `{"object":"list","data":[{"id":"test-model","object":"model","owned_by":"vllm","max_model_len":16384}]}`}, 16384, "vLLM"},
	{"OpenRouter", map[string]string{"/v1/models": `{"data":[{"id":"test-model","name":"T","context_length":200000,"pricing":{"prompt":"0.000003"}}]}`}, 200000, "OpenRouter"},
	{"Ollama loaded", map[string]string{
		"/v1/models": `{"object":"list","data":[{"id":"test-model","object":"model","owned_by":"library"}]}`,
		"/api/show":  `{"modelfile":"FROM x","parameters":"stop \"<|im_end|>\"","model_info":{"general.architecture":"qwen2","qwen2.context_length":32768}}`,
		"/api/ps":    `{"models":[{"name":"test-model","model":"test-model","size":1,"context_length":8192}]}`,
	}, 8192, "Ollama"},
	{"Ollama num_ctx", map[string]string{
		"/api/show": `{"parameters":"num_ctx                        12288\nstop \"<|im_end|>\"","model_info":{"llama.context_length":131072}}`,
		"/api/ps":   `{"models":[]}`,
	}, 12288, "Ollama"},
	{"Ollama default", map[string]string{
		"/api/show": `{"parameters":"","model_info":{"llama.context_length":131072}}`,
		"/api/ps":   `{"models":[]}`,
	}, chat.OllamaDefaultWindow, "Ollama"},
	{"llama.cpp", map[string]string{"/props": `{"default_generation_settings":{"n_ctx":4096,"params":{"n_predict":-1}},"total_slots":1,"model_path":"m.gguf"}`}, 4096, "llama.cpp"},
	{"LM Studio", map[string]string{"/api/v0/models": `{"object":"list","data":[{"id":"test-model","object":"model","type":"llm","state":"loaded","max_context_length":131072,"loaded_context_length":8192}]}`}, 8192, "LM Studio"},
	{"another server with context_length", map[string]string{"/v1/models": `{"data":[{"id":"test-model","object":"model","context_length":65536}]}`}, 65536, ""},
	{"plain OpenAI", map[string]string{"/v1/models": `{"object":"list","data":[{"id":"test-model","object":"model"}]}`}, 0, ""},
}

func TestProbeWindowOfEachServer(t *testing.T) {
	for _, tc := range windowShapes {
		t.Run(tc.name, func(t *testing.T) {
			srv := windowServer(t, tc.paths)
			w := chat.NewClient(chat.ClientConfig{BaseURL: srv.url()}).ProbeWindow(context.Background(), "test-model")
			if w.Tokens != tc.tokens || w.Server != tc.server {
				t.Fatalf("window %+v; want %d tokens from %q", w, tc.tokens, tc.server)
			}
		})
	}
}

// The detected window reaches the status line and the usage events; a
// configured one is not overridden.
func TestDetectedWindowIsUsed(t *testing.T) {
	shape := windowShapes[0]
	srv := windowServer(t, shape.paths, openAIStyle("hi"))
	h := newHarness(t, approval.Ask, srv)
	if err := h.run(context.Background(), "hello", nil); err != nil {
		t.Fatal(err)
	}
	st := h.agent.Status()
	if st.ContextWindow != 16384 || st.WindowSource != "vLLM max_model_len" {
		t.Fatalf("status %d (%s); want 16384 from vLLM", st.ContextWindow, st.WindowSource)
	}
	u := h.eventsOf("usage")[0].(UsageEvent)
	if u.ContextWindow != 16384 || u.WindowSource == "" {
		t.Fatalf("usage event %+v", u)
	}

	srv2 := windowServer(t, shape.paths, openAIStyle("hi"))
	h2 := newHarness(t, approval.Ask, srv2, func(o *Options) { o.ContextWindow = 50000 })
	if err := h2.run(context.Background(), "hello", nil); err != nil {
		t.Fatal(err)
	}
	if st := h2.agent.Status(); st.ContextWindow != 50000 || st.WindowSource != "config" {
		t.Fatalf("configured window became %d (%s)", st.ContextWindow, st.WindowSource)
	}
}

// usageReply is an answer whose usage reports promptTokens.
func usageReply(text string, promptTokens int, calls ...call) reply {
	r := openAIStyle(text, calls...)
	r.body = strings.Replace(r.body, `"prompt_tokens":4000`, fmt.Sprintf(`"prompt_tokens":%d`, promptTokens), 1)
	return r
}

func TestSilentTruncationStopsTheTurnWithTheFix(t *testing.T) {
	srv := windowServer(t, windowShapes[4].paths, // Ollama with its default window
		usageReply("", 900, call{"c1", "fs_write", `{"path":"x.txt","content":"x"}`}))
	h := newHarness(t, approval.Full, srv)
	// A prompt of about 3,000 tokens, of which the server reports 900.
	err := h.run(context.Background(), "write x\n"+strings.Repeat("context line ", 1000), nil)
	var ue *UserError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v; want a UserError", err)
	}
	if !strings.Contains(ue.Msg, "read only 900 of about") || !strings.Contains(ue.Hint, "OLLAMA_CONTEXT_LENGTH=") {
		t.Fatalf("error %q / hint %q", ue.Msg, ue.Hint)
	}
	if len(h.results()) != 0 {
		t.Fatal("a call of an answer to a cut prompt was run")
	}
	if st := h.agent.Status(); st.ContextWindow != 900 {
		t.Fatalf("window %d after the cut; want the 900 the server showed", st.ContextWindow)
	}
	// The transcript stays valid: the kept answer has no dangling calls.
	msgs := h.agent.Messages()
	if last := msgs[len(msgs)-1]; last.Role != "assistant" || len(last.ToolCalls) != 0 {
		t.Fatalf("last message %+v", last)
	}
}

func TestModelWithoutToolsFallsBackToTextCalls(t *testing.T) {
	srv := windowServer(t, nil,
		reply{status: 400, body: `{"error":{"message":"registry.ollama.ai/library/gemma:2b does not support tools","type":"api_error"}}`},
		openAIStyle("<tool_call>{\"name\": \"time_now\", \"arguments\": {}}</tool_call>"),
		openAIStyle("It is now."),
	)
	h := newHarness(t, approval.Ask, srv)
	if err := h.run(context.Background(), "what time is it?", nil); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.toolNames(1)); n != 0 {
		t.Fatalf("the retry still sent %d tools", n)
	}
	sys := srv.messages(1)[0]["content"].(string)
	if !strings.Contains(sys, "<tool_call>") || !strings.Contains(sys, "- time_now:") {
		t.Fatalf("system prompt does not describe the tools as text:\n%s", sys)
	}
	if res := h.results(); len(res) != 1 || res[0].Call.Tool != "time_now" || res[0].Status != StatusOK {
		t.Fatalf("results %+v; want time_now run from the text call", res)
	}
	var noticed, said bool
	for _, e := range h.eventsOf("notice") {
		noticed = noticed || strings.Contains(e.(NoticeEvent).Text, "does not support tool calls")
		said = said || e.(NoticeEvent).Text == "The model wrote a tool call as text; running it as a call."
	}
	if !noticed {
		t.Fatal("the user was not told about the fallback")
	}
	if !said {
		t.Errorf("the text call was not announced in the singular: %v", h.eventsOf("notice"))
	}
}

// systemAndTools is the size in tokens (four bytes each) of a request's
// system prompt and tool catalog, as sent.
func systemAndTools(t *testing.T, req map[string]any) int {
	t.Helper()
	tools, _ := json.Marshal(req["tools"])
	sys := req["messages"].([]any)[0].(map[string]any)["content"].(string)
	return (len(tools) + len(sys) + 3) / 4
}

func TestSmallWindowGetsACompactCatalog(t *testing.T) {
	llama := func(n int) map[string]string {
		return map[string]string{"/props": fmt.Sprintf(`{"default_generation_settings":{"n_ctx":%d}}`, n)}
	}
	small := windowServer(t, llama(8192), openAIStyle("hi"))
	hs := newHarness(t, approval.Ask, small)
	if err := hs.run(context.Background(), "hello", nil); err != nil {
		t.Fatal(err)
	}
	big := windowServer(t, llama(131072), openAIStyle("hi"))
	hb := newHarness(t, approval.Ask, big)
	if err := hb.run(context.Background(), "hello", nil); err != nil {
		t.Fatal(err)
	}
	s, b := systemAndTools(t, small.request(0)), systemAndTools(t, big.request(0))
	t.Logf("system prompt + tools: %d tokens at 8k, %d at 128k", s, b)
	if s > 1200 {
		t.Errorf("with an 8k window the system prompt and tools take %d tokens; want ≤ 1200", s)
	}
	if b < 2*s {
		t.Errorf("with a 128k window they take %d tokens; want the full texts", b)
	}
	if got, want := strings.Join(small.toolNames(0), ","), strings.Join(big.toolNames(0), ","); got != want {
		t.Errorf("compact catalog has tools %s; want the same as the full one, %s", got, want)
	}
}

// A probe that found nothing (the server was down, or still loading the
// model) is made once more after the next answer: the window is the
// server's from then on. A server that tells nothing is not asked again on
// every request.
func TestWindowIsProbedAgainAfterTheServerAnswers(t *testing.T) {
	var up atomic.Bool
	var probes atomic.Int32
	f := &fakeServer{t: t, fallback: func(int) reply { return openAIStyle("hi") }}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		probes.Add(1)
		if !up.Load() {
			http.Error(w, "loading model", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, `{"data":[{"id":"test-model","object":"model","context_length":65536}]}`)
	})
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			http.Error(w, `{"error":{"message":"loading model"}}`, http.StatusServiceUnavailable)
			return
		}
		f.serve(w, r)
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	h := newHarness(t, approval.Ask, f)
	ctx := context.Background()
	if err := h.run(ctx, "hello", nil); err == nil {
		t.Fatal("a turn against a server still loading succeeded")
	}
	if st := h.agent.Status(); st.WindowSource != chat.SourceEstimated {
		t.Fatalf("window %d (%s); want the guess while the server does not answer", st.ContextWindow, st.WindowSource)
	}
	up.Store(true)
	before := probes.Load()
	if err := h.run(ctx, "again", nil); err != nil {
		t.Fatal(err)
	}
	if st := h.agent.Status(); st.ContextWindow != 65536 || st.WindowSource == chat.SourceEstimated {
		t.Fatalf("window %d (%s) after an answer; want the server's 65536", st.ContextWindow, st.WindowSource)
	}
	usage := h.eventsOf("usage")
	if u := usage[len(usage)-1].(UsageEvent); u.ContextWindow != 65536 {
		t.Fatalf("the answer's usage event says a window of %d; want 65536", u.ContextWindow)
	}
	if n := probes.Load() - before; n != 1 {
		t.Fatalf("%d probes of /models after the answer; want 1", n)
	}
	before = probes.Load()
	if err := h.run(ctx, "once more", nil); err != nil {
		t.Fatal(err)
	}
	if n := probes.Load() - before; n != 0 {
		t.Fatalf("%d probes once the window was known; want none", n)
	}

	// A plain OpenAI server: one probe at the start, one after the first
	// answer, then none.
	var asked atomic.Int32
	plain := &fakeServer{t: t, replies: []reply{openAIStyle("a"), openAIStyle("b"), openAIStyle("c")}}
	plain.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			asked.Add(1)
		}
		plain.serve(w, r)
	}))
	t.Cleanup(plain.srv.Close)
	h2 := newHarness(t, approval.Ask, plain)
	for _, p := range []string{"one", "two", "three"} {
		if err := h2.run(ctx, p, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := asked.Load(); n != 2*4 {
		t.Fatalf("%d probe requests over three answers; want the four probes twice", n)
	}
}

// The start-up check asks for the window too: the status shows the
// server's figure before the first turn, and that turn does not ask again.
func TestServerCheckLearnsTheWindow(t *testing.T) {
	var probes atomic.Int32
	f := &fakeServer{t: t, fallback: func(int) reply { return openAIStyle("hi") }}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		probes.Add(1)
		io.WriteString(w, `{"data":[{"id":"test-model","object":"model","context_length":65536}]}`)
	})
	mux.HandleFunc("/v1/chat/completions", f.serve)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	h := newHarness(t, approval.Ask, f)
	ctx := context.Background()
	if err := h.agent.CheckServer(ctx); err != nil {
		t.Fatal(err)
	}
	if st := h.agent.Status(); st.ContextWindow != 65536 || st.WindowSource == chat.SourceEstimated {
		t.Fatalf("window %d (%s) after the check; want the server's 65536", st.ContextWindow, st.WindowSource)
	}
	before := probes.Load()
	if err := h.run(ctx, "hello", nil); err != nil {
		t.Fatal(err)
	}
	if n := probes.Load() - before; n != 0 {
		t.Fatalf("%d requests to /models in the first turn; want none", n)
	}
}
