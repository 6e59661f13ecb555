package agent

import (
	"context"
	"testing"

	"myclaw/approval"
)

// /sessions lists what there is to continue: a session with nothing in it
// (a run opened and quit at once) is left out, as --continue passes it
// over, but the one in use stays even while it is empty.
func TestSessionsLeaveOutEmptyOnes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, approval.Ask, newFakeServer(t, openAIStyle("hi")))
	empty, err := h.store.NewSession(h.ws, "m")
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	full, err := h.store.NewSession(h.ws, "m")
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	if err := full.Append("message", map[string]string{"role": "user", "content": "a prompt"}); err != nil {
		t.Fatal(err)
	}
	ids := func() map[string]bool {
		t.Helper()
		list, err := h.agent.Sessions()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, s := range list {
			out[s.ID] = true
		}
		return out
	}
	cur := h.agent.Session().Info().ID
	if got := ids(); len(got) != 2 || !got[cur] || !got[full.Info().ID] {
		t.Fatalf("Sessions() = %v; want this (empty) one %s and %s, not the empty %s", got, cur, full.Info().ID, empty.Info().ID)
	}
	// Once this one holds a conversation and another is opened, it is
	// listed for what it holds.
	if err := h.run(context.Background(), "hello", nil); err != nil {
		t.Fatal(err)
	}
	if err := h.agent.NewConversation(); err != nil {
		t.Fatal(err)
	}
	if got := ids(); len(got) != 3 || !got[cur] || !got[h.agent.Session().Info().ID] || got[empty.Info().ID] {
		t.Fatalf("Sessions() after a turn and /clear = %v; want the old one, the new (empty) one and %s", got, full.Info().ID)
	}
}
