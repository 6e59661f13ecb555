package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"myclaw/tools"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// memoryTestOpen opens a memory in a temp dir with a clock that advances one
// second per call.
func memoryTestOpen(t *testing.T) (*Memory, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state", "memory.json")
	m, err := OpenMemory(path)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	clock := time.Date(2026, 4, 21, 10, 0, 0, 0, time.UTC)
	m.now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(time.Second)
		return clock
	}
	return m, path
}

func memoryStoreCall(t *testing.T, tool tools.Tool, key, text string) tools.Result {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"key": key, "text": text})
	res, err := tool.Execute(context.Background(), b)
	if err != nil {
		t.Fatalf("memory_store(%q) error: %v", key, err)
	}
	return res
}

func memoryFetchCall(t *testing.T, tool tools.Tool, query string) memoryFetchOutput {
	t.Helper()
	args := json.RawMessage(`{}`)
	if query != "" {
		args, _ = json.Marshal(map[string]string{"query": query})
	}
	res, err := tool.Execute(context.Background(), args)
	if err != nil {
		t.Fatalf("memory_fetch(%q) error: %v", query, err)
	}
	return res.Output.(memoryFetchOutput)
}

func memoryKeys(out memoryFetchOutput) string {
	var keys []string
	for _, n := range out.Notes {
		keys = append(keys, n.Key)
	}
	return strings.Join(keys, ",")
}

func TestMemoryStoreAndFetch(t *testing.T) {
	m, path := memoryTestOpen(t)
	store, fetch := NewMemoryStore(m), NewMemoryFetch(m)
	memoryStoreCall(t, store, "build", "Run make test before committing.")
	memoryStoreCall(t, store, "style", "The user prefers tabs and short functions.")
	memoryStoreCall(t, store, "deploy", "Deploys go through the staging branch.")
	res := memoryStoreCall(t, store, "build", "Run go test -race ./... before committing.")
	if out := res.Output.(memoryStoreOutput); out.Action != "replaced" || out.NotesTotal != 3 {
		t.Errorf("replace output = %+v; want action replaced, 3 notes", out)
	}
	if out := memoryStoreCall(t, store, "build", "Run go test -race ./... before committing.").Output.(memoryStoreOutput); out.Action != "unchanged" {
		t.Errorf("storing the same text: action = %q; want unchanged", out.Action)
	}

	tests := []struct {
		query string
		want  string
	}{
		{"", "build,deploy,style"},
		{"COMMITTING", "build"},
		{"staging branch", "deploy"},
		{"user tabs", "style"},
		{"style", "style"},
		{"nothing like this", ""},
	}
	for _, tt := range tests {
		t.Run("query "+tt.query, func(t *testing.T) {
			out := memoryFetchCall(t, fetch, tt.query)
			if got := memoryKeys(out); got != tt.want {
				t.Errorf("keys = %q; want %q (newest first)", got, tt.want)
			}
			if out.NotesTotal != 3 || out.Matches != out.Shown {
				t.Errorf("output = %+v; want 3 notes in total and all matches shown", out)
			}
			if tt.want == "" && !strings.Contains(out.Note, "no note matches") {
				t.Errorf("note = %q; want it to say nothing matched", out.Note)
			}
		})
	}
	if got := memoryFetchCall(t, fetch, "build").Notes[0].Text; got != "Run go test -race ./... before committing." {
		t.Errorf("text = %q; want the replacement", got)
	}

	// A second Memory on the same file (another session) sees the notes.
	m2, err := OpenMemory(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := memoryKeys(memoryFetchCall(t, NewMemoryFetch(m2), "")); got != "build,deploy,style" {
		t.Errorf("reopened keys = %q; want build,deploy,style", got)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("memory file mode = %v (%v); want 0600", fi.Mode().Perm(), err)
	}
}

func TestMemoryFetchEmptyAndBounded(t *testing.T) {
	m, _ := memoryTestOpen(t)
	fetch := NewMemoryFetch(m)
	if out := memoryFetchCall(t, fetch, ""); out.NotesTotal != 0 || len(out.Notes) != 0 || !strings.Contains(out.Note, "no notes") {
		t.Errorf("empty memory output = %+v; want no notes and a note saying so", out)
	}
	store := NewMemoryStore(m)
	for i := range memoryFetchMax + 5 {
		memoryStoreCall(t, store, fmt.Sprintf("k%03d", i), "note number")
	}
	out := memoryFetchCall(t, fetch, "")
	if out.Shown != memoryFetchMax || out.Matches != memoryFetchMax+5 || !strings.Contains(out.Note, "shown the newest 50 of 55") {
		t.Errorf("output shown %d of %d, note %q; want 50 of 55 with a note", out.Shown, out.Matches, out.Note)
	}
	if first, last := out.Notes[0].Key, out.Notes[len(out.Notes)-1].Key; first != "k054" || last != "k005" {
		t.Errorf("shown notes run from %s to %s; want k054 to k005 (newest first)", first, last)
	}
}

func TestMemoryStoreLimits(t *testing.T) {
	m, _ := memoryTestOpen(t)
	store := NewMemoryStore(m)
	tests := []struct {
		name string
		args string
		kind tools.Kind
		want string
	}{
		{"empty key", `{"key":" ","text":"x"}`, tools.KindInvalidArgs, "key is empty"},
		{"long key", `{"key":"` + strings.Repeat("k", 101) + `","text":"x"}`, tools.KindInvalidArgs, "key is 101 characters"},
		{"key with newline", `{"key":"a\nb","text":"x"}`, tools.KindInvalidArgs, "line break"},
		{"empty text", `{"key":"k","text":""}`, tools.KindInvalidArgs, "text is empty"},
		{"long text", `{"key":"k","text":"` + strings.Repeat("é", 4001) + `"}`, tools.KindInvalidArgs, "4001 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, run := range []func(context.Context, json.RawMessage) (tools.Result, error){store.Execute, store.(tools.DryRunner).DryRun} {
				_, err := run(context.Background(), json.RawMessage(tt.args))
				var te *tools.Error
				if !errors.As(err, &te) || te.Kind != tt.kind || !strings.Contains(te.Message, tt.want) {
					t.Errorf("error = %v; want %s containing %q", err, tt.kind, tt.want)
				}
			}
		})
	}
	if _, err := store.Execute(context.Background(), json.RawMessage(`{"key":"k","text":"`+strings.Repeat("é", 4000)+`"}`)); err != nil {
		t.Errorf("4000 two-byte characters refused: %v", err)
	}

	t.Run("note count", func(t *testing.T) {
		f := &memoryFile{Version: memoryFileVersion}
		for i := range memoryMaxNotes {
			f.Notes = append(f.Notes, memoryNote{Key: fmt.Sprintf("n%03d", i), Text: "t"})
		}
		if err := m.save(f); err != nil {
			t.Fatal(err)
		}
		_, err := store.Execute(context.Background(), json.RawMessage(`{"key":"one-more","text":"t"}`))
		var te *tools.Error
		if !errors.As(err, &te) || te.Kind != tools.KindQuotaExceeded {
			t.Errorf("501st note: error = %v; want quota_exceeded", err)
		}
		if _, err := tools.Call(context.Background(), store, json.RawMessage(`{"key":"one-more","text":"t"}`), true); !errors.As(err, &te) || te.Kind != tools.KindQuotaExceeded {
			t.Errorf("501st note dry run: error = %v; want quota_exceeded", err)
		}
		if _, err := store.Execute(context.Background(), json.RawMessage(`{"key":"n007","text":"replaced"}`)); err != nil {
			t.Errorf("replacing a note at the limit: %v; want it allowed", err)
		}
	})
}

func TestMemoryStoreDryRun(t *testing.T) {
	m, path := memoryTestOpen(t)
	store := NewMemoryStore(m)
	res, err := tools.Call(context.Background(), store, json.RawMessage(`{"key":"style","text":"`+strings.Repeat("a", 120)+`"}`), true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary != `Remember "style" (120 chars)` || res.Capability != "memory:write" || len(res.Undo) == 0 {
		t.Errorf("dry run = %+v; want Remember \"style\" (120 chars), memory:write and undo data", res)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("dry run wrote the memory file (stat err %v)", err)
	}
	memoryStoreCall(t, store, "style", "tabs")
	res, err = tools.Call(context.Background(), store, json.RawMessage(`{"key":"style","text":"spaces"}`), true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary != `Replace note "style"` || !strings.Contains(res.Preview, "Before:\ntabs") || !strings.Contains(res.Preview, "After:\nspaces") {
		t.Errorf("dry run = %q / %q; want Replace note \"style\" with before and after", res.Summary, res.Preview)
	}
	m0 := store.Meta()
	if m0.ReadOnly || !m0.SupportsDryRun || m0.Risk != tools.RiskLow || m0.Capability != "memory:write" {
		t.Errorf("memory_store meta = %+v; want side-effecting, dry run, low risk, memory:write", m0)
	}
	if m1 := NewMemoryFetch(m).Meta(); !m1.ReadOnly || m1.ReturnsUntrusted {
		t.Errorf("memory_fetch meta = %+v; want read-only and trusted", m1)
	}
}

func TestMemoryUndoRedo(t *testing.T) {
	ctx := context.Background()
	type step struct {
		name     string
		setup    func(t *testing.T, store tools.Tool) json.RawMessage // returns undo data
		tamper   func(t *testing.T, store tools.Tool)
		force    bool
		wantErr  bool
		wantText string // text of "k" after the revert; "" = absent
		redoText string // text of "k" after reverting the redo data; "-" = skip
	}
	tests := []step{
		{
			name: "undo a creation, then redo",
			setup: func(t *testing.T, s tools.Tool) json.RawMessage {
				return memoryStoreCall(t, s, "k", "first").Undo
			},
			wantText: "", redoText: "first",
		},
		{
			name: "undo a replacement, then redo",
			setup: func(t *testing.T, s tools.Tool) json.RawMessage {
				memoryStoreCall(t, s, "k", "old")
				return memoryStoreCall(t, s, "k", "new").Undo
			},
			wantText: "old", redoText: "new",
		},
		{
			name: "undo twice is a no-op",
			setup: func(t *testing.T, s tools.Tool) json.RawMessage {
				memoryStoreCall(t, s, "k", "old")
				u := memoryStoreCall(t, s, "k", "new").Undo
				if _, err := s.(tools.Reverter).Revert(ctx, u, false); err != nil {
					t.Fatal(err)
				}
				return u
			},
			wantText: "old", redoText: "new",
		},
		{
			name: "conflict when changed since",
			setup: func(t *testing.T, s tools.Tool) json.RawMessage {
				memoryStoreCall(t, s, "k", "old")
				return memoryStoreCall(t, s, "k", "new").Undo
			},
			tamper:   func(t *testing.T, s tools.Tool) { memoryStoreCall(t, s, "k", "edited by the user") },
			wantErr:  true,
			wantText: "edited by the user", redoText: "-",
		},
		{
			name: "forced revert over a change, then redo",
			setup: func(t *testing.T, s tools.Tool) json.RawMessage {
				memoryStoreCall(t, s, "k", "old")
				return memoryStoreCall(t, s, "k", "new").Undo
			},
			tamper:   func(t *testing.T, s tools.Tool) { memoryStoreCall(t, s, "k", "edited by the user") },
			force:    true,
			wantText: "old", redoText: "edited by the user",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := memoryTestOpen(t)
			store := NewMemoryStore(m)
			undo := tt.setup(t, store)
			if tt.tamper != nil {
				tt.tamper(t, store)
			}
			redo, err := store.(tools.Reverter).Revert(ctx, undo, tt.force)
			if tt.wantErr {
				var c *tools.Conflict
				if !errors.As(err, &c) || !strings.Contains(c.Error(), `memory note "k"`) {
					t.Errorf("Revert error = %v; want a *Conflict naming the note", err)
				}
			} else if err != nil {
				t.Fatalf("Revert error: %v", err)
			}
			got := ""
			if n := (memoryFetchCall(t, NewMemoryFetch(m), "")); len(n.Notes) > 0 {
				got = n.Notes[0].Text
			}
			if got != tt.wantText {
				t.Errorf("after revert the note is %q; want %q", got, tt.wantText)
			}
			if tt.redoText == "-" {
				return
			}
			if _, err := store.(tools.Reverter).Revert(ctx, redo, false); err != nil {
				t.Fatalf("redo error: %v", err)
			}
			got = ""
			if n := memoryFetchCall(t, NewMemoryFetch(m), ""); len(n.Notes) > 0 {
				got = n.Notes[0].Text
			}
			if got != tt.redoText {
				t.Errorf("after redo the note is %q; want %q", got, tt.redoText)
			}
		})
	}
	m, _ := memoryTestOpen(t)
	if _, err := NewMemoryStore(m).(tools.Reverter).Revert(ctx, json.RawMessage(`{"nope`), false); !errors.Is(err, tools.ErrCorruptUndo) {
		t.Errorf("Revert of garbage = %v; want ErrCorruptUndo", err)
	}
}

func TestOpenMemoryErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{not json"), 0o600)
	newer := filepath.Join(dir, "newer.json")
	os.WriteFile(newer, []byte(`{"version": 9, "notes": []}`), 0o600)
	tests := []struct {
		name, path, want string
	}{
		{"empty path", "", "no file path"},
		{"corrupt file", bad, "not valid JSON"},
		{"newer version", newer, "version 9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := OpenMemory(tt.path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("OpenMemory error = %v; want it to mention %q", err, tt.want)
			}
		})
	}
	if b, _ := os.ReadFile(bad); string(b) != "{not json" {
		t.Errorf("corrupt file was changed to %q; want it left alone", b)
	}
}

func TestMemoryConcurrentStores(t *testing.T) {
	m, path := memoryTestOpen(t)
	m2, err := OpenMemory(path) // a second session on the same file
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mem := m
			if i%2 == 1 {
				mem = m2
			}
			b, _ := json.Marshal(map[string]string{"key": fmt.Sprintf("k%03d", i), "text": "t"})
			if _, err := NewMemoryStore(mem).Execute(context.Background(), b); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if out := memoryFetchCall(t, NewMemoryFetch(m), ""); out.NotesTotal != 20 {
		t.Errorf("notes after 20 concurrent stores = %d; want 20", out.NotesTotal)
	}
}
