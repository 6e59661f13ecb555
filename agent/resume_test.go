package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"myclaw/agent/chat"
	"myclaw/approval"
)

func TestResumedSessionKeepsHowCallsEnded(t *testing.T) {
	srv := newFakeServer(t,
		openAIStyle("",
			call{"d1", "fs_write", `{"path":"no.txt","content":"x"}`},
			call{"e1", "fs_write", `{"path":"ed.txt","content":"model"}`},
			call{"a1", "fs_write", `{"path":"ok.txt","content":"fine\n"}`}),
		openAIStyle("done"),
	)
	h := newHarness(t, approval.Ask, srv)
	ap := approverFunc(func(ctx context.Context, req approval.Request) (approval.Decision, error) {
		switch {
		case req.CallID == "d1":
			return approval.Decision{Choice: approval.Deny, Reason: "not that file"}, nil
		case req.CallID == "e1" && strings.Contains(string(req.Args), "model"):
			return approval.Decision{Choice: approval.Edit, Args: json.RawMessage(`{"path":"ed.txt","content":"user"}`)}, nil
		}
		return approval.Decision{Choice: approval.ApproveOnce}, nil
	})
	if err := h.run(context.Background(), "go", ap); err != nil {
		t.Fatal(err)
	}
	s, err := h.store.OpenSession(h.agent.Session().Info().ID)
	if err != nil {
		t.Fatal(err)
	}
	a2, err := New(Options{Client: chat.NewClient(chat.ClientConfig{BaseURL: srv.url()}), Model: "test-model", Registry: h.reg, Policy: h.policy, Store: h.store, Session: s, Workspace: h.ws})
	if err != nil {
		t.Fatal(err)
	}
	calls := a2.PastCalls()
	if len(calls) != 3 {
		t.Fatalf("past calls %+v; want 3", calls)
	}
	d, e, a := calls[0].Result, calls[1].Result, calls[2].Result
	if d.Status != StatusDenied || !strings.Contains(d.Message, "not that file") {
		t.Errorf("denied call recorded as %+v", d)
	}
	if !e.Call.Edited || !strings.Contains(string(e.Call.Args), "user") || e.Status != StatusOK {
		t.Errorf("edited call recorded as %+v", e)
	}
	if a.Status != StatusOK || !a.Reversible || !strings.Contains(a.Diff, "+fine") || calls[2].Decision == nil || calls[2].Decision.By != "user" {
		t.Errorf("approved call recorded as %+v (decision %+v)", a, calls[2].Decision)
	}
}
