package ui

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/exp/teatest"

	"myclaw/agent"
	"myclaw/agent/chat"
	"myclaw/approval"
	"myclaw/history"
	"myclaw/tools"
	"myclaw/tools/builtin"
)

// e2eModel is a model server on 127.0.0.1 whose answer in round n (from
// 1) answer streams through chunk; it serves the model list too. It
// returns the server's base URL.
func e2eModel(t *testing.T, answer func(n int, chunk func(delta map[string]any, finish any))) string {
	t.Helper()
	var mu sync.Mutex
	round := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
			io.WriteString(w, `{"object":"list","data":[{"id":"e2e-model","object":"model"}]}`)
			return
		}
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			http.NotFound(w, r)
			return
		}
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		round++
		n := round
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		answer(n, func(delta map[string]any, finish any) {
			b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
			fmt.Fprintf(w, "data: %s\n\n", b)
		})
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// e2eAgent is the real agent in a fresh workspace, over the tools build
// makes for it, asking at autonomy ask, talking to the model at url.
func e2eAgent(t *testing.T, url string, build func(ws *builtin.Workspace, store *history.Store) []tools.Tool, audit *approval.Audit) (*agent.Agent, string) {
	t.Helper()
	ws, err := builtin.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	store := history.NewStore(t.TempDir())
	reg := tools.NewRegistry()
	for _, tl := range build(ws, store) {
		reg.MustRegister(tl)
	}
	policy, err := approval.NewPolicy(approval.Ask, nil)
	if err != nil {
		t.Fatal(err)
	}
	session, err := store.NewSession(ws.Dir(), "e2e-model")
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(agent.Options{
		Client: chat.NewClient(chat.ClientConfig{BaseURL: url}), Model: "e2e-model",
		Registry: reg, Policy: policy, Store: store, Session: session, Workspace: ws.Dir(), Audit: audit,
	})
	if err != nil {
		t.Fatal(err)
	}
	return a, ws.Dir()
}

// realBackend is the real agent over real tools, talking to a server that
// streams one fs_write call, then a short answer.
func realBackend(t *testing.T) (*agent.Agent, string) {
	t.Helper()
	url := e2eModel(t, func(n int, chunk func(map[string]any, any)) {
		if n%2 == 1 {
			chunk(map[string]any{"role": "assistant", "content": "Writing it."}, nil)
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": fmt.Sprintf("w%d", n), "type": "function",
				"function": map[string]any{"name": "fs_write", "arguments": `{"path":"notes/todo.md","content":"- [ ] ship\n"}`}}}}, nil)
			chunk(map[string]any{}, "tool_calls")
			return
		}
		chunk(map[string]any{"role": "assistant", "content": "All done."}, nil)
		chunk(map[string]any{}, "stop")
	})
	return e2eAgent(t, url, func(ws *builtin.Workspace, store *history.Store) []tools.Tool {
		return []tools.Tool{builtin.NewFsWrite(ws, store.Blobs()), builtin.NewFsRead(ws)}
	}, nil)
}

// TestEndToEndApproveThenUndo drives the real agent through the TUI: ask,
// see the diff, approve, see the file written, /undo it.
func TestEndToEndApproveThenUndo(t *testing.T) {
	a, ws := realBackend(t)
	tm := teatest.NewTestModel(t, New(a, Options{Workspace: ws}), teatest.WithInitialTermSize(testWidth, testHeight))
	waitFor(t, tm, "e2e-model")
	tm.Type("write the todo")
	send(tm, "enter")
	waitFor(t, tm, "approve fs_write?", "+- [ ] ship")
	send(tm, "y")
	waitFor(t, tm, "All done.")
	file := filepath.Join(ws, "notes", "todo.md")
	if b, err := os.ReadFile(file); err != nil || string(b) != "- [ ] ship\n" {
		t.Fatalf("after approval the file holds %q (%v)", b, err)
	}
	tm.Type("/undo")
	send(tm, "enter")
	waitFor(t, tm, "Undid fs_write")
	if _, err := os.Stat(filepath.Join(ws, "notes")); !os.IsNotExist(err) {
		t.Fatalf("after /undo: %v; want the file and its folder gone", err)
	}
	quitProgram(t, tm)
}

// TestEndToEndDenyWithReason: the reason typed in the pane reaches the
// model in the same turn, and nothing is written.
func TestEndToEndDenyWithReason(t *testing.T) {
	a, ws := realBackend(t)
	tm := teatest.NewTestModel(t, New(a, Options{Workspace: ws}), teatest.WithInitialTermSize(testWidth, testHeight))
	tm.Type("write the todo")
	send(tm, "enter")
	waitFor(t, tm, "approve fs_write?")
	send(tm, "r")
	tm.Type("use TODO.md")
	send(tm, "enter")
	waitFor(t, tm, "All done.")
	quitProgram(t, tm)
	if _, err := os.Stat(filepath.Join(ws, "notes")); !os.IsNotExist(err) {
		t.Fatal("a denied write happened")
	}
	msgs := a.Messages()
	var toolMsg string
	for _, m := range msgs {
		if m.Role == "tool" {
			toolMsg = m.Content
		}
	}
	if !strings.Contains(toolMsg, "permission_denied") || !strings.Contains(toolMsg, "use TODO.md") {
		t.Fatalf("the model read %q", toolMsg)
	}
}
