package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"myclaw/approval"
	"myclaw/history"
)

// aged makes a stored session last updated at t.
func aged(tb testing.TB, store *history.Store, id string, t time.Time) {
	tb.Helper()
	path := filepath.Join(store.Dir(), "sessions", id, "session.json")
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var info map[string]any
	if err := json.Unmarshal(b, &info); err != nil {
		tb.Fatal(err)
	}
	info["created"], info["updated"] = t.UTC(), t.UTC()
	b, _ = json.Marshal(info)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		tb.Fatal(err)
	}
}

func TestPruneSubagentTranscripts(t *testing.T) {
	now := time.Now()
	sessions := history.NewStore(t.TempDir())
	agents := history.NewStore(t.TempDir())
	alive, err := sessions.NewSession(t.TempDir(), "m")
	if err != nil {
		t.Fatal(err)
	}
	current, err := sessions.NewSession(t.TempDir(), "m")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, s := range []struct {
		name, parent string
		ago          time.Duration
	}{
		{"fresh1", alive.Info().ID, time.Hour},
		{"fresh2", alive.Info().ID, 2 * time.Hour},
		{"fresh3", "", 3 * time.Hour}, // from before parents were noted
		{"fresh4", alive.Info().ID, 4 * time.Hour},
		{"orphan", "20200101-000000-dead", 30 * time.Minute},
		{"old", alive.Info().ID, 40 * 24 * time.Hour},
		{"current", current.Info().ID, 40 * 24 * time.Hour},
	} {
		sub, err := agents.NewSession(t.TempDir(), "m")
		if err != nil {
			t.Fatal(err)
		}
		if err := noteParent(sub, s.parent); err != nil {
			t.Fatal(err)
		}
		aged(t, agents, sub.Info().ID, now.Add(-s.ago))
		ids[sub.Info().ID] = s.name
	}
	n, err := PruneSubagentTranscripts(agents, sessions, current.Info().ID, now, 3, 30*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	left, _ := agents.Sessions("")
	var names []string
	for _, info := range left {
		names = append(names, ids[info.ID])
	}
	slices.Sort(names)
	if got := strings.Join(names, ","); got != "current,fresh1,fresh2,fresh3" || n != 3 {
		t.Errorf("left %s (removed %d); want the newest three, and the running session's whatever their age", got, n)
	}
}

// A sub-agent's transcript names the session that ran it; the first
// sub-agent prunes the transcript of a session that is gone.
func TestSubagentTranscriptNamesItsParent(t *testing.T) {
	var h *harness
	var layers []*fakeLayer
	o := editOptions(t, &h, &layers)
	h, _ = subHarness(t, approval.Ask, editRoute, o)
	agents := history.NewStore(filepath.Join(h.state, "agents"))
	orphan, err := agents.NewSession(h.ws, "m")
	if err != nil {
		t.Fatal(err)
	}
	noteParent(orphan, "20200101-000000-dead")
	if err := h.run(context.Background(), "go", approveAll()); err != nil {
		t.Fatal(err)
	}
	list, err := agents.Sessions("")
	if err != nil || len(list) != 1 {
		t.Fatalf("sub-agent transcripts: %v, %v", list, err)
	}
	b, err := os.ReadFile(filepath.Join(agents.Dir(), "sessions", list[0].ID, parentFile))
	if got, want := strings.TrimSpace(string(b)), h.agent.Session().Info().ID; err != nil || got != want {
		t.Errorf("the transcript's parent is %q (%v); want %q", got, err, want)
	}
}
