package agent

import (
	"sync"
	"testing"
)

// The newest progress note is not lost when the stream closes before its
// interval is up: a preview (an edit agent's run) ends with the card
// waiting for approval, and what it shows must be the last word (its
// calls counted), not a note from before.
func TestLastProgressNoteSurvivesClose(t *testing.T) {
	var mu sync.Mutex
	var notes []string
	o := newOutputStream("c1", func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		if p := e.(ToolOutputEvent).Progress; p != "" {
			notes = append(notes, p)
		}
	})
	o.progress("a1 · 0 calls · thinking")
	o.progress("a1 · 1 call · fs_write")
	o.close()
	o.progress("after close")
	mu.Lock()
	defer mu.Unlock()
	if len(notes) == 0 || notes[len(notes)-1] != "a1 · 1 call · fs_write" {
		t.Errorf("notes shown %q; want the newest last", notes)
	}
}
