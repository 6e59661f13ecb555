package history

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Files of a session directory.
const (
	infoFile       = "session.json"
	transcriptFile = "transcript.jsonl"
	journalFile    = "journal.jsonl"
)

// maxTitle bounds SessionInfo.Title, in runes.
const maxTitle = 80

// Store is the state dir (e.g. $XDG_STATE_HOME/myclaw): sessions under
// sessions/<id>/ and content-addressed blobs under blobs/. Directories are
// created 0700 and files 0600, since they hold conversations and file
// contents.
type Store struct {
	dir   string
	blobs *Blobs
	now   func() time.Time
}

// NewStore returns the store rooted at dir. Nothing is created until a
// session or a blob is written.
func NewStore(dir string) *Store {
	return &Store{dir: dir, blobs: NewBlobs(filepath.Join(dir, "blobs")), now: time.Now}
}

// Dir returns the state dir.
func (s *Store) Dir() string { return s.dir }

// Blobs returns the blob store shared by the sessions (dir/blobs).
func (s *Store) Blobs() *Blobs { return s.blobs }

func (s *Store) sessionsDir() string { return filepath.Join(s.dir, "sessions") }

// NewSession creates a session of workspace (made absolute) and model. Its
// id is the UTC creation time and a random suffix, e.g.
// 20261130-045837-a1b2, so ids sort by creation and never collide.
func (s *Store) NewSession(workspace, model string) (*Session, error) {
	if workspace == "" {
		return nil, errors.New("new session: the workspace is empty")
	}
	ws := normWorkspace(workspace)
	root := s.sessionsDir()
	if err := ensureDir(root); err != nil {
		return nil, fmt.Errorf("new session: %w", err)
	}
	now := s.now().UTC()
	for range 16 {
		var suffix [2]byte
		if _, err := rand.Read(suffix[:]); err != nil {
			return nil, fmt.Errorf("new session: %w", err)
		}
		id := now.Format("20060102-150405") + "-" + hex.EncodeToString(suffix[:])
		dir := filepath.Join(root, id)
		if err := os.Mkdir(dir, dirPerm); errors.Is(err, fs.ErrExist) {
			continue
		} else if err != nil {
			return nil, fmt.Errorf("new session: %w", err)
		}
		sess := &Session{dir: dir, now: s.now, info: SessionInfo{ID: id, Workspace: ws, Model: model, Created: now, Updated: now}}
		err := syncDir(root)
		if err == nil {
			err = sess.saveInfo()
		}
		if err != nil {
			os.Remove(dir)
			return nil, fmt.Errorf("new session: %w", err)
		}
		return sess, nil
	}
	return nil, fmt.Errorf("new session: no free id in %s for %s", root, now.Format(time.RFC3339))
}

// OpenSession opens a stored session by id; an id that is not there gives
// an error wrapping ErrNoSession.
func (s *Store) OpenSession(id string) (*Session, error) {
	if id == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\`) {
		return nil, fmt.Errorf("open session %q: not a session id (want e.g. 20261130-045837-a1b2)", id)
	}
	dir := filepath.Join(s.sessionsDir(), id)
	info, err := readInfo(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("open session %s: not found in %s: %w", id, s.sessionsDir(), ErrNoSession)
	}
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w", id, err)
	}
	info.ID = id // the directory names the session
	return &Session{dir: dir, now: s.now, info: info}, nil
}

// Latest returns the session of workspace that was used last; ErrNoSession
// (wrapped) if it has none. A session with nothing in it yet is passed
// over for one with a conversation: a run that only opened another
// session (/resume) left one, newer than the session it opened.
func (s *Store) Latest(workspace string) (SessionInfo, error) {
	all, err := s.Sessions(workspace)
	if err != nil {
		return SessionInfo{}, err
	}
	if len(all) == 0 {
		return SessionInfo{}, fmt.Errorf("no session for workspace %s in %s: %w", normWorkspace(workspace), s.sessionsDir(), ErrNoSession)
	}
	for _, info := range all {
		if !info.Empty {
			return info, nil
		}
	}
	return all[0], nil
}

// Sessions lists the sessions of workspace ("" for all), the one used last
// first (by Updated, then Created, then id). A directory without a readable
// session.json (a crash while creating it) is left out.
func (s *Store) Sessions(workspace string) ([]SessionInfo, error) {
	dirents, err := os.ReadDir(s.sessionsDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	ws := ""
	if workspace != "" {
		ws = normWorkspace(workspace)
	}
	var out []SessionInfo
	for _, d := range dirents {
		if !d.IsDir() {
			continue
		}
		info, err := readInfo(filepath.Join(s.sessionsDir(), d.Name()))
		if err != nil {
			continue
		}
		info.ID = d.Name()
		if ws == "" || info.Workspace == ws {
			out = append(out, info)
		}
	}
	sortSessions(out)
	return out, nil
}

// sortSessions puts the most recently updated first.
func sortSessions(out []SessionInfo) {
	sort.Slice(out, func(a, b int) bool {
		x, y := out[a], out[b]
		switch {
		case !x.Updated.Equal(y.Updated):
			return x.Updated.After(y.Updated)
		case !x.Created.Equal(y.Created):
			return x.Created.After(y.Created)
		}
		return x.ID > y.ID
	})
}

func normWorkspace(ws string) string {
	if abs, err := filepath.Abs(ws); err == nil {
		return abs
	}
	return filepath.Clean(ws)
}

func readInfo(dir string) (SessionInfo, error) {
	path := filepath.Join(dir, infoFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return SessionInfo{}, err
	}
	var info SessionInfo
	if err := json.Unmarshal(data, &info); err != nil {
		return SessionInfo{}, fmt.Errorf("%s: not valid session info: %w", path, err)
	}
	// Updated is the time of the last transcript record: derived here
	// rather than rewritten on every append.
	t, ok := lastRecordTime(filepath.Join(dir, transcriptFile))
	if ok && t.After(info.Updated) {
		info.Updated = t
	}
	info.Empty = !ok
	return info, nil
}

// lastRecordTime reads the time of the last complete line of a transcript.
func lastRecordTime(path string) (time.Time, bool) {
	f, err := os.Open(path)
	if err != nil {
		return time.Time{}, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return time.Time{}, false
	}
	// Find the end of the last complete line, then its start.
	end, ok, err := lastNewline(f, fi.Size())
	if err != nil || !ok {
		return time.Time{}, false
	}
	start, ok, err := lastNewline(f, end)
	if err != nil {
		return time.Time{}, false
	}
	if ok {
		start++
	}
	line := make([]byte, end-start)
	if _, err := f.ReadAt(line, start); err != nil {
		return time.Time{}, false
	}
	var rec struct {
		Time time.Time `json:"time"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.Time.IsZero() {
		return time.Time{}, false
	}
	return rec.Time, true
}

// lastNewline returns the offset of the last '\n' before limit, reading
// backwards in chunks; found is false when there is none.
func lastNewline(f *os.File, limit int64) (at int64, found bool, err error) {
	buf := make([]byte, 4096)
	for pos := limit; pos > 0; {
		n := min(int64(len(buf)), pos)
		pos -= n
		if _, err := f.ReadAt(buf[:n], pos); err != nil {
			return 0, false, fmt.Errorf("read %s: %w", f.Name(), err)
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return pos + int64(i), true, nil
		}
	}
	return 0, false, nil
}

// Session is one stored conversation: its info, its transcript and its undo
// journal. It is safe for concurrent use; appends to the transcript take an
// advisory lock on the file so records from two processes never interleave.
type Session struct {
	mu     sync.Mutex
	dir    string
	now    func() time.Time
	info   SessionInfo
	tf     *os.File // transcript, opened on the first Append
	j      *Journal // opened on the first Journal call
	active *os.File // held by Hold while the session runs
	closed bool
}

// Record is one transcript line.
type Record struct {
	Kind string          `json:"kind"`
	Time time.Time       `json:"time"`
	Data json.RawMessage `json:"data"`
}

// Info returns the session's description.
func (s *Session) Info() SessionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.info
}

// Dir returns the session's directory.
func (s *Session) Dir() string { return s.dir }

// saveInfo rewrites session.json atomically. Callers hold s.mu or own s.
func (s *Session) saveInfo() error {
	data, err := json.MarshalIndent(s.info, "", "  ")
	if err != nil {
		return fmt.Errorf("session %s: %w", s.info.ID, err)
	}
	return writeFileAtomic(filepath.Join(s.dir, infoFile), append(data, '\n'))
}

// Touch marks the session used now, as a record appended would: a
// session opened again (/resume) is the one --continue opens next, before
// anything is added to it.
func (s *Session) Touch() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("session %s is closed", s.info.ID)
	}
	old := s.info.Updated
	s.info.Updated = s.now().UTC()
	if err := s.saveInfo(); err != nil {
		s.info.Updated = old
		return err
	}
	return nil
}

// SetTitle sets the title shown in session lists (the start of the first
// user prompt), on one line and cut to 80 characters.
func (s *Session) SetTitle(title string) error {
	title = strings.Join(strings.Fields(title), " ")
	if utf8.RuneCountInString(title) > maxTitle {
		r := []rune(title)
		title = strings.TrimSpace(string(r[:maxTitle-1])) + "…"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("session %s is closed", s.info.ID)
	}
	if title == s.info.Title {
		return nil
	}
	old := s.info.Title
	s.info.Title = title
	if err := s.saveInfo(); err != nil {
		s.info.Title = old
		return err
	}
	return nil
}

// Append writes one transcript record (kind such as "message", "note",
// "meta"; data marshalled to JSON) as one JSONL line, fsynced before it
// returns, so a crash loses nothing already sent.
func (s *Session) Append(kind string, data any) error {
	if kind == "" {
		return errors.New("append: the record kind is empty")
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("append %s record: %w", kind, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("append %s record: session %s is closed", kind, s.info.ID)
	}
	now := s.now().UTC()
	line, err := json.Marshal(Record{Kind: kind, Time: now, Data: raw})
	if err != nil {
		return fmt.Errorf("append %s record: %w", kind, err)
	}
	if err := s.appendLine(append(line, '\n')); err != nil {
		return fmt.Errorf("append %s record: %w", kind, err)
	}
	s.info.Updated = now
	return nil
}

func (s *Session) appendLine(line []byte) (err error) {
	if s.tf == nil {
		path := filepath.Join(s.dir, transcriptFile)
		_, statErr := os.Stat(path)
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, filePerm)
		if err != nil {
			return err
		}
		if errors.Is(statErr, fs.ErrNotExist) {
			if err := syncDir(s.dir); err != nil {
				f.Close()
				return err
			}
		}
		s.tf = f
	}
	if err := lockFile(s.tf, true); err != nil {
		return err
	}
	defer func() {
		if uerr := unlockFile(s.tf); err == nil {
			err = uerr
		}
	}()
	if err := cutPartialLine(s.tf); err != nil {
		return err
	}
	if _, err := s.tf.Write(line); err != nil {
		return fmt.Errorf("write %s: %w", s.tf.Name(), err)
	}
	if err := s.tf.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", s.tf.Name(), err)
	}
	return nil
}

// cutPartialLine removes a last line that has no newline (a crash
// mid-write), so the next record starts on a line of its own instead of
// being glued to the torn one.
func cutPartialLine(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	end := fi.Size()
	if end == 0 {
		return nil
	}
	i, ok, err := lastNewline(f, end)
	switch {
	case err != nil:
		return err
	case !ok:
		return truncate(f, 0)
	case i+1 == end:
		return nil
	}
	return truncate(f, i+1)
}

func truncate(f *os.File, size int64) error {
	if err := f.Truncate(size); err != nil {
		return fmt.Errorf("cut torn line of %s: %w", f.Name(), err)
	}
	return nil
}

// Records reads the transcript, oldest first. A truncated or corrupt last
// line (a crash mid-write) is skipped with a warning, not a failure, and so
// is a corrupt line in the middle, with its line number.
func (s *Session) Records() (records []Record, warnings []string, err error) {
	return s.RecordsDecoding()
}

// RecordsDecoding is Records for a reader that decodes the data of the
// records of kinds itself, and deals with those that do not decode: in
// lines of the shape Append writes, their data are not checked (a resumed
// session's transcript is megabytes of messages, read before its first
// frame).
func (s *Session) RecordsDecoding(kinds ...string) (records []Record, warnings []string, err error) {
	data, path, err := s.readTranscript()
	if err != nil || data == nil {
		return nil, nil, err
	}
	unchecked := make(map[string]bool, len(kinds))
	for _, k := range kinds {
		unchecked[k] = true
	}
	records, warnings = parseRecords(data, path, unchecked)
	return records, warnings, nil
}

// readTranscript reads the whole transcript (nil when there is none).
// The records are parsed after, without holding the session.
func (s *Session) readTranscript() ([]byte, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := filepath.Join(s.dir, transcriptFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, path, nil
	}
	if err != nil {
		return nil, path, fmt.Errorf("read transcript: %w", err)
	}
	defer f.Close()
	// A shared lock keeps a writer in another process from being caught
	// half-way through a line.
	if err := lockFile(f, false); err != nil {
		return nil, path, fmt.Errorf("read transcript: %w", err)
	}
	var buf bytes.Buffer
	if fi, err := f.Stat(); err == nil {
		buf.Grow(int(fi.Size()) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, path, fmt.Errorf("read transcript %s: %w", path, err)
	}
	return buf.Bytes(), path, nil
}

// Journal returns the session's undo journal, opened on the first call and
// kept until Close.
func (s *Session) Journal() (*Journal, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("journal: session %s is closed", s.info.ID)
	}
	if s.j == nil {
		j, err := OpenJournal(filepath.Join(s.dir, journalFile))
		if err != nil {
			return nil, err
		}
		s.j = j
	}
	return s.j, nil
}

// Close releases the transcript and the journal. Everything written is
// already durable; Close only frees the files.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	if s.tf != nil {
		errs = append(errs, s.tf.Close())
	}
	if s.j != nil {
		errs = append(errs, s.j.Close())
	}
	if s.active != nil {
		errs = append(errs, s.active.Close())
	}
	return errors.Join(errs...)
}
