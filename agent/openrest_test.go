package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"myclaw/agent/chat"
	"myclaw/approval"
	"myclaw/history"
	"myclaw/tools"
)

// inNewSession is an agent of store's workspace in a new session, as the
// TUI starts without --continue; recover is its Options.Recover.
func inNewSession(t *testing.T, store *history.Store, ws string, srv ModelServer, rec func(*history.Journal) []string) *Agent {
	t.Helper()
	s, err := store.NewSession(ws, "test-model")
	if err != nil {
		t.Fatal(err)
	}
	policy, _ := approval.NewPolicy(approval.Ask, nil)
	a, err := New(Options{Client: srv, Model: "test-model", Registry: tools.NewRegistry(), Policy: policy, Store: store, Session: s,
		Workspace: ws, Recover: rec, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		a.Settle()
		a.Session().Close()
	})
	return a
}

// storedWorkspace is the workspace a stored session belongs to.
func storedWorkspace(t *testing.T, store *history.Store, id string) string {
	t.Helper()
	s, err := store.OpenSession(id)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return s.Info().Workspace
}

// /resume ID of a long session opens it from its end, as --session does:
// its last turns at once, the rest (with the journal's recovery) loading
// when something needs it; a prompt sent meanwhile waits for it and its
// request carries every earlier message.
func TestOpenSessionOfALongSessionOpensFromItsEnd(t *testing.T) {
	store, id := longSession(t)
	srv := newFakeServer(t, reply{body: sse(chunk(map[string]any{"role": "assistant", "content": "noted"}, nil), chunk(map[string]any{}, "stop"))})
	entered, gate := make(chan struct{}), make(chan struct{})
	recovered := 0
	a := inNewSession(t, store, storedWorkspace(t, store, id), chat.NewClient(chat.ClientConfig{BaseURL: srv.url()}), func(*history.Journal) []string {
		recovered++
		close(entered)
		<-gate
		return []string{"recovered"}
	})
	if _, ok := a.Tail(); ok {
		t.Fatal("a new session is loading a rest")
	}
	if err := a.OpenSession(id); err != nil {
		t.Fatal(err)
	}
	promptWaitsForTheRest(t, a, id, srv, entered, gate)
	if notes, err := a.LoadRest(); err != nil || len(notes) != 1 || recovered != 1 {
		t.Fatalf("the load's notes %q, %v, recovered %d times", notes, err, recovered)
	}
}

// A fork of a long session copies the whole transcript and opens the
// copy from its end; the copy holds every message.
func TestForkOfALongSessionOpensFromItsEnd(t *testing.T) {
	store, id := longSession(t)
	a := inNewSession(t, store, storedWorkspace(t, store, id), idle{}, nil)
	if err := a.OpenSession(id); err != nil {
		t.Fatal(err)
	}
	// The fork waits for the session it copies.
	f, err := a.Fork(0)
	if err != nil {
		t.Fatal(err)
	}
	if f.Parent != id || a.Session().Info().ID != f.ID {
		t.Fatalf("forked %+v; now in %s", f, a.Session().Info().ID)
	}
	if _, ok := a.Tail(); !ok {
		t.Fatal("the fork of a long session was not opened from its end")
	}
	if n := len(a.Messages()); n != 2*turns {
		t.Fatalf("the fork holds %d messages; want %d", n, 2*turns)
	}
	// A fork before an early prompt is short: loaded whole.
	if _, err := a.Fork(3); err != nil {
		t.Fatal(err)
	}
	if _, ok := a.Tail(); ok || len(a.Messages()) != 4 {
		t.Fatalf("a fork before prompt 3: from its end %v, %d messages", ok, len(a.Messages()))
	}
}

// A long session opened whose load fails refuses turns and forks, and
// another session can still be opened in its place.
func TestOpenSessionWhoseLoadFailsRefusesTurns(t *testing.T) {
	store, id := longSession(t)
	if err := os.Mkdir(filepath.Join(store.Dir(), "sessions", id, "journal.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	ws := storedWorkspace(t, store, id)
	a := inNewSession(t, store, ws, idle{}, nil)
	first := a.Session().Info().ID
	if err := a.OpenSession(id); err != nil {
		t.Fatal(err)
	}
	if _, err := a.LoadRest(); err == nil || !strings.Contains(err.Error(), "open the undo journal") {
		t.Fatalf("the failed load says %v", err)
	}
	var ue *UserError
	if err := a.Run(context.Background(), "go on", func(Event) {}, approveAll()); !errors.As(err, &ue) || !strings.Contains(ue.Msg, "could not be loaded") {
		t.Fatalf("a turn after a failed load: %v", err)
	}
	if _, err := a.Fork(0); !errors.As(err, &ue) || !strings.Contains(ue.Msg, "could not be loaded") {
		t.Fatalf("a fork after a failed load: %v", err)
	}
	if err := a.OpenSession(first); err != nil {
		t.Fatalf("leaving the session that failed to load: %v", err)
	}
	if _, ok := a.Tail(); ok || a.Status().SessionID != first {
		t.Fatal("the session opened after the failed one is not the one asked for, loaded whole")
	}
}

// Loaded gives the conversation as the load made it, without a turn sent
// meanwhile (the TUI shows that one already), once; then as it is now.
func TestLoadedIsTheConversationAsLoaded(t *testing.T) {
	store, id := longSession(t)
	srv := newFakeServer(t, reply{body: sse(chunk(map[string]any{"role": "assistant", "content": "noted"}, nil), chunk(map[string]any{}, "stop"))})
	a := resumeFromTail(t, store, id, chat.NewClient(chat.ClientConfig{BaseURL: srv.url()}), nil)
	// The turn starts the load and waits for it.
	if err := a.Run(context.Background(), "sent during the load", func(Event) {}, approveAll()); err != nil {
		t.Fatal(err)
	}
	msgs, _, err := a.Loaded()
	if err != nil || len(msgs) != 2*turns || !strings.HasPrefix(msgs[len(msgs)-1].Content, fmt.Sprintf("answer %d:", turns)) {
		t.Fatalf("Loaded gives %d messages (%v); want the %d loaded, ending with the last answer", len(msgs), err, 2*turns)
	}
	if msgs, _, _ = a.Loaded(); len(msgs) != 2*turns+2 {
		t.Fatalf("Loaded again gives %d messages; want the conversation now, %d", len(msgs), 2*turns+2)
	}
}
