// Package seedsession writes a long session into a state directory the
// way myclaw writes it: a real agent runs every turn against a scripted
// model (no network), with the builtin file and shell tools running for
// real in the workspace. The transcript, call records, usage records,
// undo journal and blobs are the agent's own. Benchmarks and the resume
// script (bench/resume.sh) resume what it writes.
package seedsession

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sashabaranov/go-openai"

	"myclaw/agent"
	"myclaw/agent/chat"
	"myclaw/approval"
	"myclaw/history"
	"myclaw/tools"
	"myclaw/tools/builtin"
)

// Model is the model name the seeded session records.
const Model = "seed-model"

// Window is the context window the seeding agent assumes: large enough
// that no turn is compacted, so every turn stays in the conversation.
const Window = 4 << 20

// Seed writes a session of turns turns for workspace into the state
// directory stateDir and returns its id. Each turn is a prompt, and an
// answer of a few hundred bytes of Markdown; most turns call a tool first
// (a read, a search, an edit or a write, journaled with their blobs), and
// every 50th runs a command with a big output.
func Seed(stateDir, workspace string, turns int) (string, error) {
	if turns <= 0 {
		return "", errors.New("seed: the number of turns must be positive")
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return "", err
	}
	ws, err := builtin.OpenWorkspace(workspace)
	if err != nil {
		return "", err
	}
	defer ws.Close()
	if err := os.WriteFile(filepath.Join(ws.Dir(), "notes.md"), []byte(noteFile(0)), 0o600); err != nil {
		return "", err
	}
	store := history.NewStore(stateDir)
	reg := tools.NewRegistry()
	for _, t := range []tools.Tool{
		builtin.NewFsRead(ws), builtin.NewFsWrite(ws, store.Blobs()), builtin.NewFsEdit(ws, store.Blobs()),
		builtin.NewGrepSearch(ws),
		builtin.NewShellRun(builtin.ShellOptions{Dir: ws.Dir(), OutputDir: filepath.Join(stateDir, "shell-output")}),
	} {
		reg.MustRegister(t)
	}
	policy, err := approval.NewPolicy(approval.Full, nil)
	if err != nil {
		return "", err
	}
	// Nothing is confined while seeding: the commands are the seed's own.
	policy.SetSandbox(approval.Sandbox{Off: true})
	session, err := store.NewSession(ws.Dir(), Model)
	if err != nil {
		return "", err
	}
	defer session.Close()
	srv := &server{}
	ag, err := agent.New(agent.Options{
		Client: srv, Model: Model, Registry: reg, Policy: policy, Store: store, Session: session,
		Workspace: ws.Dir(), ContextWindow: Window,
	})
	if err != nil {
		return "", err
	}
	ctx := context.Background()
	for i := range turns {
		srv.turn = i
		srv.round = 0
		var failed error
		emit := func(e agent.Event) {
			if r, ok := e.(agent.ToolResultEvent); ok && r.Status != agent.StatusOK && failed == nil {
				failed = fmt.Errorf("seed turn %d: %s failed: %s", i+1, r.Call.Tool, r.Message)
			}
		}
		if err := ag.Run(ctx, Prompt(i), emit, approveAll{}); err != nil {
			return "", fmt.Errorf("seed turn %d: %w", i+1, err)
		}
		if failed != nil {
			return "", failed
		}
	}
	return session.Info().ID, nil
}

// Prompt is the user's prompt of turn i (from 0).
func Prompt(i int) string {
	return fmt.Sprintf("Turn %d: look at notes.md and tell me what the resume path costs, section %d.", i+1, i%17)
}

// Answer is the model's answer that ends turn i.
func Answer(i int) string {
	return fmt.Sprintf("Turn %d. The **first frame** waits for the session to load; see `attach` in agent/agent.go.\n\n"+
		"- the transcript is read once\n- each message decodes once\n- the screen renders only what it shows\n\n"+
		"```go\nfor _, r := range records {\n\tmsgs = append(msgs, decode(r))\n}\n```\n\n"+
		"So section %d is done; the next one is about memory.", i+1, i%17)
}

// Call is the tool call turn i makes first, if any: its name and
// arguments.
func Call(i int) (name, args string, ok bool) {
	switch {
	case i%50 == 49:
		return "shell_run", `{"command":"seq 1 4000"}`, true
	case i%5 == 0:
		return "fs_read", `{"path":"notes.md"}`, true
	case i%5 == 1:
		return "grep_search", `{"pattern":"section","path":"."}`, true
	case i%5 == 2:
		// notes.md says "state N" as the last write (or the seed) left it.
		n := 1
		if i >= 5 {
			n = i - 3
		}
		return "fs_edit", fmt.Sprintf(`{"path":"notes.md","old_string":"state %d\n","new_string":"state %d, edited in turn %d\n"}`, n, n, i+1), true
	case i%5 == 3:
		return "fs_write", fmt.Sprintf(`{"path":"notes.md","content":%q}`, noteFile(i)), true
	}
	return "", "", false
}

// noteFile is notes.md as turn i writes it.
func noteFile(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Notes\n\nstate %d\n\n", i+1)
	for s := range 17 {
		fmt.Fprintf(&b, "## section %d\n\nWhat the resume path costs, part %d, as of turn %d.\n\n", s, s, i+1)
	}
	return b.String()
}

// server is the scripted model: a tool call, then the answer.
type server struct{ turn, round int }

func (s *server) Stream(_ context.Context, _ openai.ChatCompletionRequest, onDelta func(chat.StreamDelta)) (chat.Completion, error) {
	s.round++
	if name, args, ok := Call(s.turn); ok && s.round == 1 {
		id := fmt.Sprintf("call_%d", s.turn)
		return chat.Completion{FinishReason: "tool_calls", ToolCalls: []openai.ToolCall{{ID: id, Type: "function",
			Function: openai.FunctionCall{Name: name, Arguments: args}}}}, nil
	}
	text := Answer(s.turn)
	onDelta(chat.StreamDelta{Content: text})
	return chat.Completion{Content: text, FinishReason: "stop"}, nil
}

func (s *server) Models(context.Context) ([]string, error) { return []string{Model}, nil }

func (s *server) ProbeWindow(context.Context, string) chat.Window {
	return chat.Window{Tokens: Window, Source: "seed"}
}

func (s *server) BaseURL() string { return "seed" }

type approveAll struct{}

func (approveAll) Approve(context.Context, approval.Request) (approval.Decision, error) {
	return approval.Decision{Choice: approval.ApproveOnce}, nil
}
