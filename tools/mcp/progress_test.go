package mcp

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"myclaw/tools"
)

func TestProgressReachesTheCall(t *testing.T) {
	seen := make(chan struct{})
	var once sync.Once
	var tokens []any
	srv := sdk.NewServer(&sdk.Implementation{Name: "slow", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "index", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			tok := req.Params.GetProgressToken()
			tokens = append(tokens, tok)
			if tok != nil {
				_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: "someone-else", Progress: 9})
				_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 4, Message: "indexing \x1b[31mfiles\n\tnow"})
				// The result waits for the note to arrive, so the test does not
				// depend on the order the client handles the two in.
				select {
				case <-seen:
				case <-time.After(30 * time.Second):
				}
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "done"}}}, nil
		})
	reg := runServer(t, srv, ServerConfig{Name: "slow", Command: "unused", Enabled: true, Timeout: 60 * time.Second})

	var mu sync.Mutex
	var notes []string
	ctx := tools.WithProgressNote(context.Background(), func(s string) {
		mu.Lock()
		notes = append(notes, s)
		mu.Unlock()
		once.Do(func() { close(seen) })
	})
	tl, _ := reg.Lookup("slow/index")
	res, err := tools.Call(ctx, tl, json.RawMessage(`{}`), false)
	if err != nil || res.Body != "done" {
		t.Fatalf("got %+v, %v", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 1 || notes[0] != "1/4 (25%) · indexing files now" {
		t.Errorf("got notes %q; want the one of this call, cleaned", notes)
	}
	// A call without a watcher still sends a token (the server may want it).
	once.Do(func() { close(seen) })
	if _, err := call(t, reg, "slow/index", `{}`); err != nil {
		t.Fatal(err)
	}
	if len(tokens) != 2 || tokens[0] == nil || tokens[1] == nil || tokens[0] == tokens[1] {
		t.Errorf("got tokens %v; want a distinct one per call", tokens)
	}
}
