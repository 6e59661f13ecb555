// Package apptest holds what the tests of myclaw's command and app share:
// a scripted model server, a test environment, a stdio MCP server.
package apptest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server answers chat requests from a script keyed by the first user
// message, and records every request body.
type Server struct {
	Mu       sync.Mutex
	Bodies   []map[string]any
	Auths    []string // the Authorization header of each chat request
	Script   Script
	HTTP     *httptest.Server
	ModelIDs []string
}

// Call is a tool call a script makes.
type Call struct{ Name, Args string }

// Script answers the conversation that began with first, after round
// answers of the model.
type Script func(first string, round int) (text string, calls []Call)

// withoutNotes drops the notes myclaw puts ahead of a prompt (the date,
// the autonomy level), so that scripts match what the user typed.
func withoutNotes(s string) string {
	for strings.HasPrefix(s, "[myclaw note] ") {
		_, s, _ = strings.Cut(s, "\n")
	}
	return strings.TrimPrefix(s, "\n")
}

// NewServer starts a server that follows script.
func NewServer(t testing.TB, script Script) *Server {
	s := &Server{Script: script, ModelIDs: []string{"test-model"}}
	s.HTTP = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.HTTP.Close)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/models") && !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		// An OpenAI-style server: no endpoints that tell the context window.
		http.NotFound(w, r)
		return
	}
	if r.Method == http.MethodGet {
		var data []map[string]string
		for _, id := range s.ModelIDs {
			data = append(data, map[string]string{"id": id, "object": "model"})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
		return
	}
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	s.Mu.Lock()
	s.Bodies = append(s.Bodies, body)
	s.Auths = append(s.Auths, r.Header.Get("Authorization"))
	s.Mu.Unlock()
	msgs, _ := body["messages"].([]any)
	first, rounds := "", 0
	for _, m := range msgs {
		mm := m.(map[string]any)
		if mm["role"] == "user" && first == "" {
			first, _ = mm["content"].(string)
			first = withoutNotes(first)
		}
		if mm["role"] == "assistant" {
			rounds++
		}
	}
	text, calls := s.Script(first, rounds)
	w.Header().Set("Content-Type", "text/event-stream")
	write := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	delta := func(d map[string]any, finish any) map[string]any {
		return map[string]any{"choices": []any{map[string]any{"index": 0, "delta": d, "finish_reason": finish}}}
	}
	if text != "" {
		write(delta(map[string]any{"role": "assistant", "content": text}, nil))
	}
	for i, c := range calls {
		write(delta(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": fmt.Sprintf("call_%d_%d", rounds, i), "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Args}}}}, nil))
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	write(delta(map[string]any{}, finish))
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
}

// ToolResults returns the contents of all tool messages the server saw.
func (s *Server) ToolResults() []string {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	var out []string
	if len(s.Bodies) == 0 {
		return nil
	}
	msgs, _ := s.Bodies[len(s.Bodies)-1]["messages"].([]any)
	for _, m := range msgs {
		mm := m.(map[string]any)
		if mm["role"] == "tool" {
			out = append(out, mm["content"].(string))
		}
	}
	return out
}

// LastSystem is the system prompt of the newest request.
func (s *Server) LastSystem(t testing.TB) string {
	t.Helper()
	s.Mu.Lock()
	defer s.Mu.Unlock()
	if len(s.Bodies) == 0 {
		t.Fatal("no request reached the server")
	}
	msgs := s.Bodies[len(s.Bodies)-1]["messages"].([]any)
	return msgs[0].(map[string]any)["content"].(string)
}

// Env is a test environment: a workspace, state and config dirs, a server.
type Env struct {
	T      testing.TB
	WS     string
	State  string
	Config string
	Srv    *Server
}

// NewEnv makes an environment whose server follows script.
func NewEnv(t testing.TB, script Script) *Env {
	return &Env{T: t, WS: t.TempDir(), State: t.TempDir(), Config: t.TempDir(), Srv: NewServer(t, script)}
}

// Vars is the environment myclaw runs with in e.
func (e *Env) Vars() []string {
	return []string{
		"OPENAI_BASE_URL=" + e.Srv.HTTP.URL + "/v1",
		"XDG_STATE_HOME=" + e.State,
		"XDG_CONFIG_HOME=" + e.Config,
		"HOME=" + e.T.TempDir(),
		"PATH=" + os.Getenv("PATH"),
	}
}

// Setenv sets Vars in this process for the rest of the test.
func (e *Env) Setenv(t *testing.T) {
	for _, kv := range e.Vars() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

// WriteNote is a script: "write the note" writes notes/hello.txt, "show
// env" prints the environment of a shell command, anything else says hello.
func WriteNote(first string, round int) (string, []Call) {
	switch {
	case strings.Contains(first, "write the note") && round == 0:
		return "", []Call{{"fs_write", `{"path":"notes/hello.txt","content":"hello\n"}`}}
	case strings.Contains(first, "write the note"):
		return "The note is written.", nil
	case strings.Contains(first, "show env") && round == 0:
		return "", []Call{{"shell_run", `{"command":"env; tr '\\0' '\\n' < /proc/$PPID/environ"}`}}
	}
	return "Hello there.", nil
}

// WaitFor polls cond until it holds, for at most 30 s.
func WaitFor(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 30s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
