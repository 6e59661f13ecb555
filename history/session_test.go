package history

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// fakeClock returns a clock that moves one second per reading.
func fakeClock() func() time.Time {
	t := time.Date(2026, 11, 30, 4, 58, 37, 0, time.UTC)
	return func() time.Time {
		t = t.Add(time.Second)
		return t
	}
}

func newTestStore(t *testing.T) *Store {
	t.Helper()
	s := NewStore(filepath.Join(t.TempDir(), "myclaw"))
	s.now = fakeClock()
	return s
}

func TestNewSessionLayout(t *testing.T) {
	s := newTestStore(t)
	ws := t.TempDir()
	sess, err := s.NewSession(ws, "qwen3")
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	info := sess.Info()
	if !regexp.MustCompile(`^20261130-045838-[0-9a-f]{4}$`).MatchString(info.ID) {
		t.Errorf("id = %q; want like 20261130-045838-a1b2", info.ID)
	}
	if info.Workspace != ws || info.Model != "qwen3" || info.Created.IsZero() || !info.Updated.Equal(info.Created) {
		t.Errorf("info = %+v; want workspace %s, model qwen3, created = updated", info, ws)
	}
	if want := filepath.Join(s.Dir(), "sessions", info.ID); sess.Dir() != want {
		t.Errorf("Dir() = %s; want %s", sess.Dir(), want)
	}
	if err := sess.Append("message", map[string]string{"role": "user", "content": "hi"}); err != nil {
		t.Fatal(err)
	}
	j, err := sess.Journal()
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Irreversible(Entry{CallID: "c1", Tool: "shell_run"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Blobs().Put([]byte("x")); err != nil {
		t.Fatal(err)
	}
	modes := []struct {
		path string
		want os.FileMode
	}{
		{s.Dir(), 0o700},
		{filepath.Join(s.Dir(), "sessions"), 0o700},
		{sess.Dir(), 0o700},
		{filepath.Join(sess.Dir(), "session.json"), 0o600},
		{filepath.Join(sess.Dir(), "transcript.jsonl"), 0o600},
		{filepath.Join(sess.Dir(), "journal.jsonl"), 0o600},
		{filepath.Join(s.Dir(), "blobs"), 0o700},
	}
	for _, m := range modes {
		t.Run(filepath.Base(m.path), func(t *testing.T) {
			fi, err := os.Stat(m.path)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != m.want {
				t.Fatalf("mode of %s = %v; want %v", m.path, got, m.want)
			}
		})
	}
}

func TestNewSessionRejectsEmptyWorkspace(t *testing.T) {
	s := newTestStore(t)
	if _, err := s.NewSession("", "m"); err == nil || !strings.Contains(err.Error(), "workspace is empty") {
		t.Fatalf("NewSession(\"\") error = %v; want one saying the workspace is empty", err)
	}
}

func TestSessionIDsAreUnique(t *testing.T) {
	s := NewStore(t.TempDir())
	now := time.Date(2026, 11, 30, 4, 58, 37, 0, time.UTC)
	s.now = func() time.Time { return now } // every session in the same second
	seen := map[string]bool{}
	for range 20 {
		sess, err := s.NewSession("/ws", "m")
		if err != nil {
			t.Fatal(err)
		}
		id := sess.Info().ID
		if seen[id] {
			t.Fatalf("id %s given twice", id)
		}
		seen[id] = true
		sess.Close()
	}
}

// TestSessionReopenedByNewStore uses a session from a second Store on the
// same dir, as `myclaw undo` in a new process does after the session ended.
func TestSessionReopenedByNewStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "myclaw")
	ws := t.TempDir()
	first := NewStore(dir)
	sess, err := first.NewSession(ws, "m")
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.SetTitle("  fix the\nbuild  "); err != nil {
		t.Fatal(err)
	}
	for _, content := range []string{"one", "two"} {
		if err := sess.Append("message", map[string]string{"content": content}); err != nil {
			t.Fatal(err)
		}
	}
	j, err := sess.Journal()
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, dir: ws, path: j.Path(), blobs: first.Blobs(), j: j}
	h.w = &testWriter{blobs: h.blobs}
	h.write("c1", "a.txt", "hello")
	if err := sess.Close(); err != nil {
		t.Fatal(err)
	}
	if err := sess.Append("note", "late"); err == nil {
		t.Fatal("Append after Close succeeded; want an error")
	}

	second := NewStore(dir)
	latest, err := second.Latest(ws)
	if err != nil {
		t.Fatal(err)
	}
	if latest.ID != sess.Info().ID || latest.Title != "fix the build" {
		t.Fatalf("Latest = %+v; want session %s titled %q", latest, sess.Info().ID, "fix the build")
	}
	again, err := second.OpenSession(latest.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	recs, warns, err := again.Records()
	if err != nil || len(warns) != 0 {
		t.Fatalf("Records: %v, warnings %q", err, warns)
	}
	if len(recs) != 2 || recs[0].Kind != "message" || string(recs[1].Data) != `{"content":"two"}` || recs[1].Time.IsZero() {
		t.Fatalf("records = %+v; want the two messages", recs)
	}
	j2, err := again.Journal()
	if err != nil {
		t.Fatal(err)
	}
	if j3, _ := again.Journal(); j3 != j2 {
		t.Fatal("Journal() opened the journal twice; want it cached")
	}
	outs, err := j2.Undo(context.Background(), 1, false, storeResolver(second))
	if err != nil {
		t.Fatal(err)
	}
	wantOutcomes(t, outs, "done:c1")
	if _, err := os.Stat(filepath.Join(ws, "a.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a.txt after undo from a new store: %v; want it removed", err)
	}
}

// storeResolver resolves test_write with blobs from s.
func storeResolver(s *Store) Resolver {
	h := &harness{w: &testWriter{blobs: s.Blobs()}}
	return h.resolve
}

func TestLatestAndSessions(t *testing.T) {
	s := newTestStore(t)
	wsA, wsB := t.TempDir(), t.TempDir()
	a1, err := s.NewSession(wsA, "m")
	if err != nil {
		t.Fatal(err)
	}
	b1, err := s.NewSession(wsB, "m")
	if err != nil {
		t.Fatal(err)
	}
	a2, err := s.NewSession(wsA, "m")
	if err != nil {
		t.Fatal(err)
	}
	// A directory left half-made by a crash is not a session.
	if err := os.Mkdir(filepath.Join(s.Dir(), "sessions", "20261130-000000-dead"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, sess := range []*Session{a1, b1, a2} {
		defer sess.Close()
	}

	latest := func(ws string) string {
		t.Helper()
		info, err := s.Latest(ws)
		if err != nil {
			t.Fatal(err)
		}
		return info.ID
	}
	tests := []struct {
		name string
		ws   string
		want string
	}{
		{"newest of workspace A", wsA, a2.Info().ID},
		{"workspace B", wsB, b1.Info().ID},
		{"relative path of workspace B", relTo(t, wsB), b1.Info().ID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := latest(tt.ws); got != tt.want {
				t.Fatalf("Latest = %s; want %s", got, tt.want)
			}
		})
	}
	if _, err := s.Latest(t.TempDir()); !errors.Is(err, ErrNoSession) {
		t.Fatalf("Latest of a workspace without sessions: got %v; want ErrNoSession", err)
	}

	// Using the older session makes it the latest.
	if err := a1.Append("message", "again"); err != nil {
		t.Fatal(err)
	}
	if got := latest(wsA); got != a1.Info().ID {
		t.Fatalf("Latest after using the older session = %s; want %s", got, a1.Info().ID)
	}
	all, err := s.Sessions("")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, info := range all {
		ids = append(ids, info.ID)
	}
	if got, want := strings.Join(ids, " "), strings.Join([]string{a1.Info().ID, a2.Info().ID, b1.Info().ID}, " "); got != want {
		t.Fatalf("Sessions(\"\") = %s; want %s", got, want)
	}

	// A session newer than the last one used but with nothing in it (a
	// run that only opened another) is passed over.
	a3, err := s.NewSession(wsA, "m")
	if err != nil {
		t.Fatal(err)
	}
	defer a3.Close()
	if got := latest(wsA); got != a1.Info().ID {
		t.Fatalf("Latest with a newer empty session = %s; want %s, the one with a conversation", got, a1.Info().ID)
	}
	if got := latest(wsB); got != b1.Info().ID {
		t.Fatalf("Latest of a workspace with only an empty session = %s; want it, %s", got, b1.Info().ID)
	}
}

func relTo(t *testing.T, path string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

func TestOpenSessionErrors(t *testing.T) {
	s := newTestStore(t)
	sess, err := s.NewSession("/ws", "m")
	if err != nil {
		t.Fatal(err)
	}
	sess.Close()
	if err := os.WriteFile(filepath.Join(s.Dir(), "sessions", sess.Info().ID, "session.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		id        string
		noSession bool
		substr    string
	}{
		{"absent", "20261130-045837-beef", true, "not found"},
		{"empty", "", false, "not a session id"},
		{"path", "../sessions", false, "not a session id"},
		{"corrupt info", sess.Info().ID, false, "not valid session info"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.OpenSession(tt.id)
			if err == nil || !strings.Contains(err.Error(), tt.substr) || errors.Is(err, ErrNoSession) != tt.noSession {
				t.Fatalf("OpenSession(%q) error = %v; want one containing %q (ErrNoSession: %v)", tt.id, err, tt.substr, tt.noSession)
			}
		})
	}
	if _, err := NewStore(t.TempDir()).Latest("/ws"); !errors.Is(err, ErrNoSession) {
		t.Fatalf("Latest in an empty store: got %v; want ErrNoSession", err)
	}
}

func TestSetTitle(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"one line", "  Fix\tthe\n\nbuild ", "Fix the build"},
		{"long", strings.Repeat("é", 100), strings.Repeat("é", 79) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestStore(t)
			sess, err := s.NewSession("/ws", "m")
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			if err := sess.SetTitle(tt.in); err != nil {
				t.Fatal(err)
			}
			again, err := s.OpenSession(sess.Info().ID)
			if err != nil {
				t.Fatal(err)
			}
			if got := again.Info().Title; got != tt.want {
				t.Fatalf("title = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestTranscriptDamage(t *testing.T) {
	tests := []struct {
		name     string
		damage   func(lines []string) string
		contents string
		warnings []string
	}{
		{
			name:     "truncated last line",
			damage:   func(l []string) string { return l[0] + l[1] + l[2][:len(l[2])/2] },
			contents: "one two",
			warnings: []string{"skipped a truncated last line (line 3) of "},
		},
		{
			name:     "corrupt last line",
			damage:   func(l []string) string { return l[0] + l[1] + "{\"kind\":\n" },
			contents: "one two",
			warnings: []string{"skipped a corrupt last line (line 3) of "},
		},
		{
			name:     "corrupt line in the middle",
			damage:   func(l []string) string { return l[0] + "garbage\n" + l[2] },
			contents: "one three",
			warnings: []string{"skipped corrupt line 2 of "},
		},
		{
			name:     "line without a kind",
			damage:   func(l []string) string { return l[0] + "{\"data\":1}\n" + l[2] },
			contents: "one three",
			warnings: []string{"skipped corrupt line 2 of "},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestStore(t)
			sess, err := s.NewSession("/ws", "m")
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []string{"one", "two", "three"} {
				if err := sess.Append("message", c); err != nil {
					t.Fatal(err)
				}
			}
			sess.Close()
			path := filepath.Join(sess.Dir(), "transcript.jsonl")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(string(data), "\n")
			if err := os.WriteFile(path, []byte(tt.damage(lines)), 0o600); err != nil {
				t.Fatal(err)
			}

			again, err := s.OpenSession(sess.Info().ID)
			if err != nil {
				t.Fatal(err)
			}
			defer again.Close()
			recs, warns, err := again.Records()
			if err != nil {
				t.Fatal(err)
			}
			if got := contents(t, recs); got != tt.contents {
				t.Fatalf("records = %q; want %q", got, tt.contents)
			}
			if len(warns) != len(tt.warnings) {
				t.Fatalf("warnings = %q; want %d", warns, len(tt.warnings))
			}
			for i, w := range tt.warnings {
				if !strings.HasPrefix(warns[i], w+path) {
					t.Errorf("warning %d = %q; want it to start with %q", i, warns[i], w+path)
				}
			}

			// The next record lands on a line of its own.
			if err := again.Append("message", "four"); err != nil {
				t.Fatal(err)
			}
			recs, _, err = again.Records()
			if err != nil {
				t.Fatal(err)
			}
			if got, want := contents(t, recs), tt.contents+" four"; got != want {
				t.Fatalf("records after the next append = %q; want %q", got, want)
			}
		})
	}
}

func contents(t *testing.T, recs []Record) string {
	t.Helper()
	var out []string
	for _, r := range recs {
		var s string
		if err := json.Unmarshal(r.Data, &s); err != nil {
			t.Fatalf("record data %s: %v", r.Data, err)
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestAppendRejectsBadInput(t *testing.T) {
	s := newTestStore(t)
	sess, err := s.NewSession("/ws", "m")
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	tests := []struct {
		name   string
		kind   string
		data   any
		substr string
	}{
		{"empty kind", "", "x", "kind is empty"},
		{"unmarshalable data", "meta", func() {}, "append meta record"},
		{"invalid raw JSON", "meta", json.RawMessage("{"), "append meta record"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := sess.Append(tt.kind, tt.data); err == nil || !strings.Contains(err.Error(), tt.substr) {
				t.Fatalf("Append error = %v; want one containing %q", err, tt.substr)
			}
		})
	}
	recs, warns, err := sess.Records()
	if err != nil || len(recs) != 0 || len(warns) != 0 {
		t.Fatalf("Records after rejected appends = %d records, %q, %v; want none", len(recs), warns, err)
	}
}

// Updated comes from the transcript: appends do not rewrite session.json,
// yet a new Store sees the time of the last record.
func TestUpdatedIsTheLastRecordTime(t *testing.T) {
	dir := t.TempDir()
	st := NewStore(dir)
	s, err := st.NewSession(t.TempDir(), "m")
	if err != nil {
		t.Fatal(err)
	}
	infoPath := filepath.Join(s.Dir(), "session.json")
	before, _ := os.ReadFile(infoPath)
	if err := s.Append("message", "one"); err != nil {
		t.Fatal(err)
	}
	if err := s.Append("message", strings.Repeat("long ", 3000)); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(infoPath)
	if string(before) != string(after) {
		t.Fatal("an append rewrote session.json")
	}
	recs, _, err := s.Records()
	if err != nil || len(recs) != 2 {
		t.Fatalf("records %d, %v", len(recs), err)
	}
	got, err := NewStore(dir).OpenSession(s.Info().ID)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Info().Updated.Equal(recs[1].Time) {
		t.Fatalf("Updated %v; want the last record's time %v", got.Info().Updated, recs[1].Time)
	}
}
