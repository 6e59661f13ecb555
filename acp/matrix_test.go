package acp

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"myclaw/tools"
)

// recordingClient is an editor that rejects every permission request and
// records what it was told.
type recordingClient struct {
	mu      sync.Mutex
	asked   map[acpsdk.ToolCallId]bool
	updates []acpsdk.SessionUpdate
	// buffers are the files open in the editor, by absolute path.
	buffers map[string]string
	// silent leaves permission requests unanswered until they are
	// withdrawn.
	silent bool
}

func (c *recordingClient) RequestPermission(ctx context.Context, p acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked[p.ToolCall.ToolCallId] = true
	silent := c.silent
	c.mu.Unlock()
	if silent {
		<-ctx.Done()
		return acpsdk.RequestPermissionResponse{}, ctx.Err()
	}
	return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeSelected(optReject)}, nil
}

func (c *recordingClient) SessionUpdate(_ context.Context, n acpsdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n.Update)
	c.mu.Unlock()
	return nil
}

var errNoFS = errors.New("this client offers no file system or terminal")

func (c *recordingClient) ReadTextFile(_ context.Context, p acpsdk.ReadTextFileRequest) (acpsdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if text, ok := c.buffers[p.Path]; ok {
		return acpsdk.ReadTextFileResponse{Content: text}, nil
	}
	return acpsdk.ReadTextFileResponse{}, errNoFS
}

func (c *recordingClient) WriteTextFile(context.Context, acpsdk.WriteTextFileRequest) (acpsdk.WriteTextFileResponse, error) {
	return acpsdk.WriteTextFileResponse{}, errNoFS
}

func (c *recordingClient) CreateTerminal(context.Context, acpsdk.CreateTerminalRequest) (acpsdk.CreateTerminalResponse, error) {
	return acpsdk.CreateTerminalResponse{}, errNoFS
}

func (c *recordingClient) KillTerminal(context.Context, acpsdk.KillTerminalRequest) (acpsdk.KillTerminalResponse, error) {
	return acpsdk.KillTerminalResponse{}, errNoFS
}

func (c *recordingClient) TerminalOutput(context.Context, acpsdk.TerminalOutputRequest) (acpsdk.TerminalOutputResponse, error) {
	return acpsdk.TerminalOutputResponse{}, errNoFS
}

func (c *recordingClient) ReleaseTerminal(context.Context, acpsdk.ReleaseTerminalRequest) (acpsdk.ReleaseTerminalResponse, error) {
	return acpsdk.ReleaseTerminalResponse{}, errNoFS
}

func (c *recordingClient) WaitForTerminalExit(context.Context, acpsdk.WaitForTerminalExitRequest) (acpsdk.WaitForTerminalExitResponse, error) {
	return acpsdk.WaitForTerminalExitResponse{}, errNoFS
}

// sideEffectArgs are arguments for a call of each builtin tool with side
// effects. A tool missing here fails the matrix: each must be covered.
var sideEffectArgs = map[string]string{
	"fs_write":     `{"path":"new.txt","content":"written\n"}`,
	"fs_edit":      `{"path":"notes.txt","old_string":"hello","new_string":"bye"}`,
	"shell_run":    `{"command":"echo ran > shell.txt"}`,
	"memory_store": `{"key":"matrix","text":"a note"}`,
	"web_fetch":    `{"url":"http://127.0.0.1:9/page"}`,
}

// connect serves ACP in this process, with a fresh home and the model,
// to a recording client on the Go SDK.
func connect(t *testing.T, model *fakeModel, caps acpsdk.ClientCapabilities) (*server, *recordingClient, *acpsdk.ClientSideConnection) {
	t.Helper()
	t.Setenv("OPENAI_BASE_URL", model.url())
	for _, v := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"} {
		t.Setenv(v, t.TempDir())
	}
	ctx, cancel := context.WithCancel(context.Background())
	toAgentR, toAgentW := io.Pipe()
	fromAgentR, fromAgentW := io.Pipe()
	srv := start(ctx, Options{}, toAgentR, fromAgentW)
	t.Cleanup(func() {
		_ = toAgentW.Close()
		srv.closeAll()
		srv.logClose()
		cancel()
	})
	client := &recordingClient{asked: map[acpsdk.ToolCallId]bool{}}
	conn := acpsdk.NewClientSideConnection(client, toAgentW, fromAgentR)
	if _, err := conn.Initialize(ctx, acpsdk.InitializeRequest{ProtocolVersion: acpsdk.ProtocolVersionNumber, ClientCapabilities: caps}); err != nil {
		t.Fatal(err)
	}
	return srv, client, conn
}

// snapshot is the workspace's files and contents.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEveryCallAsksOrSaysWhy runs every builtin tool with side effects
// under every mode, with an editor that rejects every request: a call
// either was asked about (and then did not run and changed nothing), or
// its card names the rule or level that allowed it. No exceptions.
func TestEveryCallAsksOrSaysWhy(t *testing.T) {
	calls := map[string][2]string{}
	for name, args := range sideEffectArgs {
		calls["call "+name] = [2]string{name, args}
	}
	srv, client, conn := connect(t, newFakeModel(t, calls), acpsdk.ClientCapabilities{})
	ctx := context.Background()

	checked := 0
	for _, m := range modeList {
		ws := t.TempDir()
		if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		sess, err := conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: ws, McpServers: []acpsdk.McpServer{}})
		if err != nil {
			t.Fatalf("%s: new session: %v", m.level, err)
		}
		if _, err := conn.SetSessionMode(ctx, acpsdk.SetSessionModeRequest{SessionId: sess.SessionId, ModeId: acpsdk.SessionModeId(m.level)}); err != nil {
			t.Fatalf("%s: set mode: %v", m.level, err)
		}
		// Call ids are unique within a session.
		client.mu.Lock()
		client.asked = map[acpsdk.ToolCallId]bool{}
		client.mu.Unlock()
		ss, err := srv.session(sess.SessionId)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, info := range ss.es.Agent.Tools() {
			if info.Meta.Source == tools.SourceBuiltin && info.Meta.HasSideEffects() {
				names = append(names, info.Meta.Name)
			}
		}
		slices.Sort(names)
		if len(names) == 0 {
			t.Fatal("no builtin tool with side effects is registered")
		}
		for _, name := range names {
			if _, ok := sideEffectArgs[name]; !ok {
				t.Errorf("the builtin %s has side effects and no case in sideEffectArgs", name)
				continue
			}
			client.mu.Lock()
			from := len(client.updates)
			client.mu.Unlock()
			before := snapshot(t, ws)
			if _, err := conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("call " + name)}}); err != nil {
				t.Fatalf("%s × %s: prompt: %v", m.level, name, err)
			}
			changed := !mapsEqual(before, snapshot(t, ws))
			checkCalls(t, client, from, string(m.level), name, changed)
			checked++
		}
	}
	if checked < len(modeList)*len(sideEffectArgs) {
		t.Errorf("checked %d cases, want %d", checked, len(modeList)*len(sideEffectArgs))
	}
}

// checkCalls holds the updates since from to the rule: a call that ran
// (or a workspace that changed) has a card naming what allowed it, and a
// call asked about did not run.
func checkCalls(t *testing.T, c *recordingClient, from int, level, tool string, changed bool) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	type card struct {
		ran, named bool
	}
	cards := map[acpsdk.ToolCallId]*card{}
	get := func(id acpsdk.ToolCallId) *card {
		if cards[id] == nil {
			cards[id] = &card{}
		}
		return cards[id]
	}
	for _, u := range c.updates[from:] {
		switch {
		case u.ToolCall != nil:
			get(u.ToolCall.ToolCallId)
		case u.ToolCallUpdate != nil:
			cd := get(u.ToolCallUpdate.ToolCallId)
			if st := u.ToolCallUpdate.Status; st != nil && (*st == acpsdk.ToolCallStatusInProgress || *st == acpsdk.ToolCallStatusCompleted) {
				cd.ran = true
			}
			if d, ok := u.ToolCallUpdate.Meta["myclaw"].(map[string]any); ok {
				s, _ := d["decided"].(string)
				if strings.HasPrefix(s, "allowed by level: ") || strings.HasPrefix(s, "allowed by rule") {
					cd.named = true
				}
			}
		}
	}
	if len(cards) == 0 {
		t.Errorf("%s × %s: no tool call reached the editor", level, tool)
	}
	anyNamed := false
	for id, cd := range cards {
		switch {
		case c.asked[id] && cd.ran:
			t.Errorf("%s × %s: the call ran though the editor rejected it", level, tool)
		case cd.ran && !c.asked[id] && !cd.named:
			t.Errorf("%s × %s: the call ran without a permission request and its card names no rule or level", level, tool)
		}
		anyNamed = anyNamed || cd.named
		t.Logf("%s × %s: asked %v, ran %v, named %v, workspace changed %v", level, tool, c.asked[id], cd.ran, cd.named, changed)
	}
	if changed && !anyNamed {
		t.Errorf("%s × %s: the workspace changed with no call allowed by a named rule or level", level, tool)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
