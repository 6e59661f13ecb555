package history

import "testing"

// An entry says when /redo put it back, and says so again after a restart
// (the cards of a resumed session show it); undoing it clears that.
func TestEntryKnowsItWasRedone(t *testing.T) {
	h := newHarness(t)
	h.write("c1", "a.txt", "one")
	redone := func() bool {
		t.Helper()
		es := h.j.Entries()
		if len(es) != 1 {
			t.Fatalf("got %d entries, want 1", len(es))
		}
		return es[0].Redone
	}
	if redone() {
		t.Fatal("a call that was only applied says it was redone")
	}
	h.undo(1, false)
	h.redo(1)
	if !redone() {
		t.Fatal("after /redo the entry does not say it was redone")
	}
	h.reopen()
	if !redone() {
		t.Fatal("after a restart the entry no longer says it was redone")
	}
	h.undo(1, false)
	if got := h.j.Entries()[0]; got.Redone || got.State != StateUndone {
		t.Fatalf("after undoing it again: state %s, redone %v; want undone, not redone", got.State, got.Redone)
	}
}
