package agent_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"unsafe"

	"github.com/sashabaranov/go-openai"

	"myclaw/agent"
	"myclaw/agent/chat"
	"myclaw/approval"
	"myclaw/history"
	"myclaw/internal/seedsession"
	"myclaw/tools"
)

type idleServer struct{}

func (idleServer) Stream(context.Context, openai.ChatCompletionRequest, func(chat.StreamDelta)) (chat.Completion, error) {
	return chat.Completion{}, nil
}
func (idleServer) Models(context.Context) ([]string, error)        { return nil, nil }
func (idleServer) ProbeWindow(context.Context, string) chat.Window { return chat.Window{} }
func (idleServer) BaseURL() string                                 { return "idle" }

// A resumed session, read ahead or not, has the conversation, the call
// records and the usage that a plain decode of its transcript gives, line
// by line: nothing lost, reordered or changed by the parallel load.
func TestResumeLoadsTheWholeSession(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds a session of 50 turns, every record fsynced")
	}
	state, ws := filepath.Join(t.TempDir(), "myclaw"), t.TempDir()
	id, err := seedsession.Seed(state, ws, 50)
	if err != nil {
		t.Fatal(err)
	}
	store := history.NewStore(state)
	d, err := seedsession.Decode(filepath.Join(state, "sessions", id, "transcript.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	msgs, calls, requests := d.Messages, d.Calls, d.Requests
	if len(msgs) != 50*2+41*2 || len(calls) != 41 { // four turns in five and the 50th call a tool
		t.Fatalf("the seed wrote %d messages and %d calls", len(msgs), len(calls))
	}
	for _, ahead := range []bool{false, true} {
		sess, err := store.OpenSession(id)
		if err != nil {
			t.Fatal(err)
		}
		policy, _ := approval.NewPolicy(approval.Ask, nil)
		opts := agent.Options{Client: idleServer{}, Model: "m", Registry: tools.NewRegistry(), Policy: policy, Store: store, Session: sess, Workspace: ws}
		if ahead {
			opts.Preloaded = agent.Preload(sess)
		}
		ag, err := agent.New(opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := ag.Messages(); !reflect.DeepEqual(got, msgs) {
			t.Fatalf("ahead=%v: the conversation differs from the transcript's (%d messages; want %d)", ahead, len(got), len(msgs))
		}
		got := ag.PastCalls()
		if !reflect.DeepEqual(got, calls) {
			t.Fatalf("ahead=%v: the call records differ from the transcript's", ahead)
		}
		if c := ag.Cost(); c.Requests != requests {
			t.Fatalf("ahead=%v: %d requests counted; want %d", ahead, c.Requests, requests)
		}
		// A read's result is kept once: its record's text is the tool
		// message's.
		first := got[0].Result
		if first.Call.Tool != "fs_read" || first.Body == "" || !inside(first.Body, ag.Messages()[2].Content) || !inside(first.Content, ag.Messages()[2].Content) {
			t.Fatalf("ahead=%v: the first read's record does not share the tool message's text", ahead)
		}
		sess.Close()
	}
}

// inside reports whether s's bytes lie in text's memory.
func inside(s, text string) bool {
	p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(text)))
	return p >= lo && p+uintptr(len(s)) <= lo+uintptr(len(text))
}
