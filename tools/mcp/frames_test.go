package mcp

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"myclaw/tools"
)

// A server that prints a banner, log lines and a 50 MB result keeps
// working: the lines are skipped, the result is cut to the output cap with
// a note, and the next call is answered.
func TestStdioSurvivesBannerAndHugeResult(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (moves hundreds of megabytes): left out of the quick -short run")
	}
	cfg, _ := helperConfig(t, "helper", "banner", 120*time.Second)
	reg := tools.NewRegistry()
	m := newTestManager(t, reg, cfg)
	m.Start(context.Background(), nil)
	waitStatus(t, m, "helper", inState(StateRunning))

	if res, err := call(t, reg, "helper/echo", `{"text":"hi"}`); err != nil || res.Body != "echo: hi" {
		t.Fatalf("echo after the banner: %q, %v", res.Body, err)
	}
	if res, err := call(t, reg, "helper/chatty", `{}`); err != nil || res.Body != "said it" {
		t.Fatalf("a call that logs on stdout: %q, %v", res.Body, err)
	}
	res, err := call(t, reg, "helper/huge", `{}`)
	if err != nil {
		t.Fatalf("huge: %v", err)
	}
	if len(res.Body) > maxBody+500 || !strings.HasPrefix(res.Body, "BEGIN xxx") || !strings.Contains(res.Body, "output truncated: the server sent a message of 50.0 MB") {
		t.Errorf("huge: got %d bytes, %q…; want the start cut to the cap with a note", len(res.Body), tools.Clip(res.Body, 80))
	}
	if res, err := call(t, reg, "helper/echo", `{"text":"still"}`); err != nil || res.Body != "echo: still" {
		t.Fatalf("echo after the huge result: %q, %v", res.Body, err)
	}
	if st := waitStatus(t, m, "helper", inState(StateRunning)); st.State != StateRunning {
		t.Errorf("server state %s; want running", st.State)
	}
}

// frameFilter on its own: the id is found whether it comes first or last,
// and lines that are not JSON-RPC are dropped.
func TestFrameFilter(t *testing.T) {
	big := strings.Repeat("y", maxFrame+10)
	in := "banner line\n\n" +
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" +
		`{"level":"debug"}` + "\n" +
		`{"jsonrpc":"2.0","id":"a\"b","result":{"content":[{"type":"text","text":"` + big + `"}]}}` + "\n" +
		`{"result":{"content":[{"type":"text","text":"` + big + `"}]},"jsonrpc":"2.0","id":7}` + "\n"
	var logged []string
	f := newFrameFilter(strings.NewReader(in), "s", func(format string, args ...any) { logged = append(logged, format) })
	out, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d lines; want 3:\n%.300s", len(lines), out)
	}
	for i, want := range []string{`1`, `"a\"b"`, `7`} {
		var msg struct {
			ID     json.RawMessage
			Result struct{ Content []struct{ Text string } }
		}
		if err := json.Unmarshal([]byte(lines[i]), &msg); err != nil || string(msg.ID) != want {
			t.Errorf("line %d: id %s (%v); want %s", i, msg.ID, err, want)
		}
		if i > 0 && (len(msg.Result.Content) != 1 || !strings.HasPrefix(msg.Result.Content[0].Text, "yyy") || len(msg.Result.Content[0].Text) > maxBody+500) {
			t.Errorf("line %d: content not cut to the cap", i)
		}
	}
	if len(logged) != 4 {
		t.Errorf("logged %d events; want 2 skipped lines and 2 cut messages: %q", len(logged), logged)
	}
}
