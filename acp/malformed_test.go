package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// A line the SDK cannot read as a message gets the JSON-RPC error for it,
// with id null, and the connection goes on: the next request is answered.
func TestMalformedLinesGetAJSONRPCError(t *testing.T) {
	for _, v := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"} {
		t.Setenv(v, t.TempDir())
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	toAgentR, toAgentW := io.Pipe()
	fromAgentR, fromAgentW := io.Pipe()
	srv := start(ctx, Options{}, toAgentR, fromAgentW)
	defer func() {
		_ = toAgentW.Close()
		srv.closeAll()
		srv.logClose()
	}()
	replies := bufio.NewScanner(fromAgentR)
	next := func() map[string]any {
		t.Helper()
		if !replies.Scan() {
			t.Fatalf("no reply: %v", replies.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(replies.Bytes(), &m); err != nil {
			t.Fatalf("reply %q: %v", replies.Text(), err)
		}
		return m
	}
	bad := []struct {
		line string
		code float64
	}{
		{"not json", -32700},
		{`{"jsonrpc":"2.0","id":1,`, -32700},
		{"[1,2]", -32600},
		{`"x"`, -32600},
		{`{"jsonrpc":"2.0","id":2,"method":5}`, -32600},
		{`{"jsonrpc":"2.0"}`, -32600},
	}
	// All at once, then a request: the errors come first, in order, since
	// the lines are read one after the other.
	var in strings.Builder
	for _, tc := range bad {
		in.WriteString(tc.line + "\n")
	}
	in.WriteString("\n" + `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":1}}` + "\n")
	go func() { _, _ = io.WriteString(toAgentW, in.String()) }()
	for _, tc := range bad {
		m := next()
		e, _ := m["error"].(map[string]any)
		if id, ok := m["id"]; !ok || id != nil || e == nil || e["code"] != tc.code {
			t.Fatalf("%s: reply %v; want error %v with id null", tc.line, m, tc.code)
		}
	}
	if m := next(); m["id"] != float64(7) || m["result"] == nil || !strings.Contains(replies.Text(), "protocolVersion") {
		t.Fatalf("initialize after the bad lines: %v", m)
	}
}
