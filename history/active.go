package history

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"myclaw/internal/durable"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// activeFile is the lock a running session holds in its directory. The
// lock, not the file, says the session is running: the kernel drops it when
// the process ends, however it ends, so a crash leaves no false "active".
const activeFile = "active.lock"

// Hold marks the session as running in this process until Close, so that
// another process on the workspace can tell (Store.Active). It fails when
// another process holds the session already.
func (s *Session) Hold() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("hold session %s: it is closed", s.info.ID)
	}
	if s.active != nil {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(s.dir, activeFile), os.O_RDWR|os.O_CREATE, filePerm)
	if err != nil {
		return fmt.Errorf("hold session %s: %w", s.info.ID, err)
	}
	ok, err := durable.TryLock(f)
	if err == nil && !ok {
		err = errors.New("another myclaw process is running it")
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("hold session %s: %w", s.info.ID, err)
	}
	s.active = f
	return nil
}

// Active returns the sessions of workspace that a running process holds,
// other than except, newest first.
func (s *Store) Active(workspace, except string) ([]SessionInfo, error) {
	// The locks first: only a held one's info is read, so a start costs
	// one open per earlier session, not a read of each one's transcript.
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
		if !d.IsDir() || d.Name() == except {
			continue
		}
		dir := filepath.Join(s.sessionsDir(), d.Name())
		held, err := held(filepath.Join(dir, activeFile))
		if err != nil {
			sortSessions(out)
			return out, err
		}
		if !held {
			continue
		}
		info, err := readInfo(dir)
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

// held reports whether a process holds the lock at path, by trying to take
// it (and letting go at once).
func held(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check %s: %w", path, err)
	}
	defer f.Close()
	ok, err := durable.TryLock(f)
	if err != nil {
		return false, err
	}
	return !ok, nil // closing f releases a lock we took
}

// Labelled is a journaled call with the session that made it.
type Labelled struct {
	Session string
	Entry
}

// SessionJournal is the journal of one session, named by its id.
type SessionJournal struct {
	Session string
	Journal *Journal
}

// Merged returns the calls of several sessions' journals in time order,
// each labelled with its session.
func Merged(js []SessionJournal) []Labelled {
	var out []Labelled
	for _, sj := range js {
		for _, e := range sj.Journal.Entries() {
			out = append(out, Labelled{Session: sj.Session, Entry: e})
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Time.Before(out[b].Time) })
	return out
}

// UndoNewest reverts the newest n undoable calls among several sessions'
// journals, newest first whichever session made them, and stops at the
// first refusal or failure, as Journal.Undo does within one.
func UndoNewest(ctx context.Context, js []SessionJournal, n int, force bool, resolve Resolver) ([]Outcome, error) {
	return walkNewest(js, n, func(j *Journal) (time.Time, bool) { return j.newestUndoable() },
		func(j *Journal) ([]Outcome, error) { return j.Undo(ctx, 1, force, resolve) }, ErrNothingToUndo)
}

// RedoNewest re-applies the n most recently undone calls among several
// sessions' journals, the most recently undone first.
func RedoNewest(ctx context.Context, js []SessionJournal, n int, resolve Resolver) ([]Outcome, error) {
	return walkNewest(js, n, func(j *Journal) (time.Time, bool) { return j.lastUndone() },
		func(j *Journal) ([]Outcome, error) { return j.Redo(ctx, 1, resolve) }, ErrNothingToRedo)
}

func walkNewest(js []SessionJournal, n int, when func(*Journal) (time.Time, bool), step func(*Journal) ([]Outcome, error), none error) ([]Outcome, error) {
	if n < 1 {
		return nil, fmt.Errorf("the number of calls must be at least 1, got %d", n)
	}
	var outs []Outcome
	for done := 0; done < n; done++ {
		var pick *SessionJournal
		var at time.Time
		for i, sj := range js {
			// Another process may have written since: read its state first.
			if err := sj.Journal.Refresh(); err != nil {
				return outs, err
			}
			if t, ok := when(sj.Journal); ok && (pick == nil || t.After(at)) {
				pick, at = &js[i], t
			}
		}
		if pick == nil {
			if done == 0 {
				return outs, none
			}
			return outs, nil
		}
		o, err := step(pick.Journal)
		for i := range o {
			o[i].Session = pick.Session
		}
		outs = append(outs, o...)
		if err != nil || len(o) == 0 || !o[len(o)-1].Done {
			return outs, err
		}
	}
	return outs, nil
}
