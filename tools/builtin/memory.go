package builtin

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"myclaw/internal/durable"
	"myclaw/tools"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

//go:embed memory_store.md
var memoryStoreDescription string

//go:embed memory_fetch.md
var memoryFetchDescription string

const (
	memoryMaxKey       = 100
	memoryMaxText      = 4000
	memoryMaxNotes     = 500
	memoryFetchMax     = 50
	memoryFetchMaxText = 40 << 10
	memoryFileVersion  = 1
)

// Memory holds long-term notes in one JSON file. Every change re-reads the
// file under a lock (a mutex, and flock on a sidecar ".lock" file for other
// myclaw processes) and replaces it atomically (temp file, fsync, rename),
// so concurrent sessions do not lose each other's notes and a crash leaves
// either the old file or the new one.
type Memory struct {
	path string
	mu   sync.Mutex
	now  func() time.Time
}

// memoryNote is one stored note.
type memoryNote struct {
	Key       string    `json:"key"`
	Text      string    `json:"text"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

type memoryFile struct {
	Version int          `json:"version"`
	Notes   []memoryNote `json:"notes"`
}

func (f *memoryFile) find(key string) *memoryNote {
	for i := range f.Notes {
		if f.Notes[i].Key == key {
			n := f.Notes[i]
			return &n
		}
	}
	return nil
}

// set replaces the note under key with n, or removes it when n is nil.
func (f *memoryFile) set(key string, n *memoryNote) {
	kept := f.Notes[:0]
	for _, o := range f.Notes {
		if o.Key != key {
			kept = append(kept, o)
		}
	}
	f.Notes = kept
	if n != nil {
		f.Notes = append(f.Notes, *n)
	}
}

// OpenMemory opens the notes file at path, creating its directory. A missing
// file is an empty memory; a file that does not parse is an error, and is
// left untouched.
func OpenMemory(path string) (*Memory, error) {
	if path == "" {
		return nil, errors.New("open memory: no file path given")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open memory %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("open memory %s: %w", abs, err)
	}
	m := &Memory{path: abs, now: time.Now}
	if _, err := m.load(); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Memory) load() (*memoryFile, error) {
	b, err := os.ReadFile(m.path)
	if errors.Is(err, os.ErrNotExist) {
		return &memoryFile{Version: memoryFileVersion}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read memory %s: %w", m.path, err)
	}
	var f memoryFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("memory file %s is not valid JSON (%w); fix or move it, myclaw will not overwrite it", m.path, err)
	}
	if f.Version > memoryFileVersion {
		return nil, fmt.Errorf("memory file %s has version %d, newer than this myclaw understands (%d)", m.path, f.Version, memoryFileVersion)
	}
	f.Version = memoryFileVersion
	return &f, nil
}

func (m *Memory) save(f *memoryFile) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encode memory: %w", err)
	}
	if err := durable.WriteFile(m.path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write memory %s: %w", m.path, err)
	}
	return nil
}

// update runs fn on the current notes under the locks and saves the result
// when fn reports a change.
func (m *Memory) update(fn func(f *memoryFile) (changed bool, err error)) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	lock, err := os.OpenFile(m.path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("lock memory %s: %w", m.path, err)
	}
	defer lock.Close()
	if err := durable.Lock(lock, true); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	defer func() { _ = durable.Unlock(lock) }() // closing the file releases it too
	f, err := m.load()
	if err != nil {
		return err
	}
	changed, err := fn(f)
	if err != nil || !changed {
		return err
	}
	return m.save(f)
}

// snapshot returns the current notes; the atomic rename makes a read
// without the lock consistent.
func (m *Memory) snapshot() (*memoryFile, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.load()
}

// memoryStoreTool is memory_store.
type memoryStoreTool struct {
	m    *Memory
	meta tools.Meta
}

// NewMemoryStore returns the memory_store tool. It implements Reverter.
func NewMemoryStore(m *Memory) tools.Tool {
	return &memoryStoreTool{m: m, meta: tools.Meta{
		Name:        "memory_store",
		Description: strings.TrimSpace(memoryStoreDescription),
		Schema: json.RawMessage(fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "key": {"type": "string", "minLength": 1, "maxLength": %d, "description": "A short name for the note, e.g. \"user-preferences\" or \"project-build\". Storing under an existing key replaces that note."},
    "text": {"type": "string", "minLength": 1, "maxLength": %d, "description": "The note itself, self-contained."}
  },
  "required": ["key", "text"],
  "additionalProperties": false
}`, memoryMaxKey, memoryMaxText)),
		Risk:           tools.RiskLow,
		Idempotent:     true,
		SupportsDryRun: true,
		Persists:       true,
		Capability:     "memory:write",
		Timeout:        10 * time.Second,
		Source:         tools.SourceBuiltin,
	}}
}

// Meta implements Tool.
func (s *memoryStoreTool) Meta() tools.Meta { return s.meta }

func (s *memoryStoreTool) parse(raw json.RawMessage) (key, text string, err error) {
	var a struct {
		Key  string `json:"key"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return "", "", tools.Errorf(tools.KindInvalidArgs, `Send {"key": "...", "text": "..."}.`, "arguments are not valid: %v", err)
	}
	key = strings.TrimSpace(a.Key)
	text = strings.TrimSpace(a.Text)
	switch {
	case key == "":
		return "", "", tools.Errorf(tools.KindInvalidArgs, "Give the note a short key such as \"user-preferences\".", "key is empty")
	case utf8.RuneCountInString(key) > memoryMaxKey:
		return "", "", tools.Errorf(tools.KindInvalidArgs, "Use a shorter key; put the detail in the text.", "key is %d characters long; the limit is %d", utf8.RuneCountInString(key), memoryMaxKey)
	case strings.IndexFunc(key, unicode.IsControl) >= 0:
		return "", "", tools.Errorf(tools.KindInvalidArgs, "Write the key on one line, without control characters.", "key contains a line break or control character")
	case text == "":
		return "", "", tools.Errorf(tools.KindInvalidArgs, "Put what to remember in \"text\".", "text is empty")
	case utf8.RuneCountInString(text) > memoryMaxText:
		return "", "", tools.Errorf(tools.KindInvalidArgs, "Summarise the note, or split it under several keys.", "text is %d characters long; the limit is %d", utf8.RuneCountInString(text), memoryMaxText).With("text_chars", utf8.RuneCountInString(text))
	}
	return key, text, nil
}

func memoryQuotaError(n int) *tools.Error {
	return tools.Errorf(tools.KindQuotaExceeded, "Replace an outdated note by storing under its key (see memory_fetch), or ask the user to prune the notes.",
		"memory already holds %d notes, the limit", n)
}

// memoryUndo is the undo data of memory_store: the note before and after.
type memoryUndo struct {
	Key    string      `json:"key"`
	Before *memoryNote `json:"before"`
	After  *memoryNote `json:"after"`
}

// memoryStoreOutput tells the model what happened.
type memoryStoreOutput struct {
	Key        string `json:"key"`
	Action     string `json:"action"` // created, replaced or unchanged
	TextChars  int    `json:"text_chars"`
	NotesTotal int    `json:"notes_total"`
}

// plan works out what storing text under key would do to f.
func (s *memoryStoreTool) plan(f *memoryFile, key, text string) (before, after *memoryNote, action string, err error) {
	now := s.m.now().UTC().Truncate(time.Second)
	before = f.find(key)
	switch {
	case before == nil && len(f.Notes) >= memoryMaxNotes:
		return nil, nil, "", memoryQuotaError(len(f.Notes))
	case before == nil:
		return nil, &memoryNote{Key: key, Text: text, CreatedAt: now, UpdatedAt: now}, "created", nil
	case before.Text == text:
		after := *before
		return before, &after, "unchanged", nil
	}
	return before, &memoryNote{Key: key, Text: text, CreatedAt: before.CreatedAt, UpdatedAt: now}, "replaced", nil
}

// DryRun implements Tool.
func (s *memoryStoreTool) DryRun(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	key, text, err := s.parse(raw)
	if err != nil {
		return tools.Result{}, err
	}
	f, err := s.m.snapshot()
	if err != nil {
		return tools.Result{}, err
	}
	before, after, action, err := s.plan(f, key, text)
	if err != nil {
		return tools.Result{}, err
	}
	res := tools.Result{Capability: "memory:write", UndoPlan: memoryUndoPlan(key, before, action)}
	switch action {
	case "created":
		res.Summary = fmt.Sprintf("Remember %q (%d chars)", key, utf8.RuneCountInString(text))
		res.Preview = "New note " + fmt.Sprintf("%q", key) + ":\n" + text
	case "replaced":
		res.Summary = fmt.Sprintf("Replace note %q", key)
		res.Preview = "Before:\n" + before.Text + "\n\nAfter:\n" + text
	default:
		res.Summary = fmt.Sprintf("Keep note %q (unchanged)", key)
		res.Preview = text
	}
	res.Undo, _ = json.Marshal(memoryUndo{Key: key, Before: before, After: after})
	return res, nil
}

func memoryUndoPlan(key string, before *memoryNote, action string) string {
	switch {
	case action == "unchanged":
		return fmt.Sprintf("Nothing to undo: note %q was already stored", key)
	case before == nil:
		return fmt.Sprintf("Forget note %q", key)
	}
	return fmt.Sprintf("Restore the previous text of note %q", key)
}

// Execute implements Tool.
func (s *memoryStoreTool) Execute(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	key, text, err := s.parse(raw)
	if err != nil {
		return tools.Result{}, err
	}
	var before, after *memoryNote
	var action string
	var total int
	err = s.m.update(func(f *memoryFile) (bool, error) {
		var err error
		before, after, action, err = s.plan(f, key, text)
		if err != nil || action == "unchanged" {
			total = len(f.Notes)
			return false, err
		}
		f.set(key, after)
		total = len(f.Notes)
		return true, nil
	})
	if err != nil {
		return tools.Result{}, err
	}
	undo, err := json.Marshal(memoryUndo{Key: key, Before: before, After: after})
	if err != nil {
		return tools.Result{}, fmt.Errorf("encode memory undo: %w", err)
	}
	return tools.Result{
		Output:     memoryStoreOutput{Key: key, Action: action, TextChars: utf8.RuneCountInString(text), NotesTotal: total},
		Summary:    fmt.Sprintf("Memory note %q %s", key, action),
		Capability: "memory:write",
		UndoPlan:   memoryUndoPlan(key, before, action),
		Undo:       undo,
	}, nil
}

// memorySameNote reports whether the stored note a is the state n describes: both
// absent, or both present with the same text.
func memorySameNote(a, n *memoryNote) bool {
	if a == nil || n == nil {
		return a == nil && n == nil
	}
	return a.Text == n.Text
}

func memoryDescribe(n *memoryNote) string {
	if n == nil {
		return "absent"
	}
	return fmt.Sprintf("%q (%d chars)", tools.ClipOneLine(n.Text, 40), utf8.RuneCountInString(n.Text))
}

// Revert implements Reverter: it puts back the note as it was before the
// change if the note is still as the change left it.
func (s *memoryStoreTool) Revert(ctx context.Context, undo json.RawMessage, force bool) (json.RawMessage, error) {
	var u memoryUndo
	if err := json.Unmarshal(undo, &u); err != nil || u.Key == "" {
		return nil, tools.ErrCorruptUndo
	}
	var redo memoryUndo
	err := s.m.update(func(f *memoryFile) (bool, error) {
		cur := f.find(u.Key)
		switch {
		case memorySameNote(cur, u.After):
			f.set(u.Key, u.Before)
			redo = memoryUndo{Key: u.Key, Before: cur, After: u.Before}
			return true, nil
		case memorySameNote(cur, u.Before):
			redo = memoryUndo{Key: u.Key, Before: u.After, After: u.Before}
			return false, nil
		case force:
			f.set(u.Key, u.Before)
			// The redo data carries the overwritten note itself, so a forced
			// revert can be redone without a blob store.
			redo = memoryUndo{Key: u.Key, Before: cur, After: u.Before}
			return true, nil
		}
		return false, &tools.Conflict{What: fmt.Sprintf("memory note %q", u.Key),
			Detail: fmt.Sprintf("it is now %s, not %s as the call left it", memoryDescribe(cur), memoryDescribe(u.After))}
	})
	if err != nil {
		return nil, err
	}
	return json.Marshal(redo)
}

// memoryFetchTool is memory_fetch.
type memoryFetchTool struct {
	m    *Memory
	meta tools.Meta
}

// NewMemoryFetch returns the memory_fetch tool. Its output is trusted: notes
// are stored only with the user's approval.
func NewMemoryFetch(m *Memory) tools.Tool {
	return &memoryFetchTool{m: m, meta: tools.Meta{
		Name:        "memory_fetch",
		Description: strings.TrimSpace(memoryFetchDescription),
		Schema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "query": {"type": "string", "maxLength": 200, "description": "Words to look for in the keys and texts of the notes (case-insensitive). Leave it out to list all notes."}
  },
  "additionalProperties": false
}`),
		ReadOnly:   true,
		Risk:       tools.RiskLow,
		Idempotent: true,
		Capability: "memory:read",
		Timeout:    10 * time.Second,
		Source:     tools.SourceBuiltin,
	}}
}

// Meta implements Tool.
func (s *memoryFetchTool) Meta() tools.Meta { return s.meta }

type memoryFetchNote struct {
	Key       string `json:"key"`
	Text      string `json:"text"`
	UpdatedAt string `json:"updated_at"`
}

type memoryFetchOutput struct {
	Query      string            `json:"query,omitempty"`
	NotesTotal int               `json:"notes_total"`
	Matches    int               `json:"matches"`
	Shown      int               `json:"shown"`
	Notes      []memoryFetchNote `json:"notes"`
	Note       string            `json:"note,omitempty"`
}

// memoryMatches reports whether n matches query: the whole query, or every
// word of it, appears in the key or the text, ignoring case.
func memoryMatches(n memoryNote, query string) bool {
	if query == "" {
		return true
	}
	hay := strings.ToLower(n.Key + "\n" + n.Text)
	q := strings.ToLower(query)
	if strings.Contains(hay, q) {
		return true
	}
	words := strings.Fields(q)
	for _, w := range words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return len(words) > 0
}

// Execute implements Tool.
func (s *memoryFetchTool) Execute(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Query string `json:"query"`
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &a); err != nil {
			return tools.Result{}, tools.Errorf(tools.KindInvalidArgs, `Send {} or {"query": "..."}.`, "arguments are not valid: %v", err)
		}
	}
	query := strings.TrimSpace(a.Query)
	f, err := s.m.snapshot()
	if err != nil {
		return tools.Result{}, err
	}
	// Newest first: by update time, then by position in the file (later
	// writes are appended).
	var matched []memoryNote
	for i := len(f.Notes) - 1; i >= 0; i-- {
		if memoryMatches(f.Notes[i], query) {
			matched = append(matched, f.Notes[i])
		}
	}
	sort.SliceStable(matched, func(i, j int) bool { return matched[i].UpdatedAt.After(matched[j].UpdatedAt) })

	out := memoryFetchOutput{Query: query, NotesTotal: len(f.Notes), Matches: len(matched), Notes: []memoryFetchNote{}}
	size := 0
	for _, n := range matched {
		if len(out.Notes) == memoryFetchMax || size+len(n.Text) > memoryFetchMaxText {
			break
		}
		size += len(n.Text)
		out.Notes = append(out.Notes, memoryFetchNote{Key: n.Key, Text: n.Text, UpdatedAt: n.UpdatedAt.Format(time.RFC3339)})
	}
	out.Shown = len(out.Notes)
	switch {
	case len(f.Notes) == 0:
		out.Note = "no notes are stored yet"
	case len(matched) == 0:
		out.Note = "no note matches; try fewer or other words, or no query to list all"
	case out.Shown < len(matched):
		out.Note = fmt.Sprintf("shown the newest %d of %d matching notes; narrow with a more specific query", out.Shown, len(matched))
	}
	return tools.Result{
		Output:  out,
		Summary: fmt.Sprintf("Read %d memory notes", out.Shown),
	}, nil
}
