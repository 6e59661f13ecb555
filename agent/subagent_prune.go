package agent

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"myclaw/history"
)

// Sessions are never pruned, so sub-agent transcripts follow a bound of
// their own: the newest KeepSubagentTranscripts, none older than
// SubagentTranscriptAge, and none whose parent session is gone.
const (
	KeepSubagentTranscripts = 200
	SubagentTranscriptAge   = 30 * 24 * time.Hour
)

// parentFile names, in a sub-agent's session folder, the session that
// ran it.
const parentFile = "parent"

// noteParent records in the sub-agent's session folder which session ran
// it, for PruneSubagentTranscripts.
func noteParent(sub *history.Session, parent string) error {
	if parent == "" {
		return nil
	}
	return os.WriteFile(filepath.Join(sub.Dir(), parentFile), []byte(parent+"\n"), 0o600)
}

// PruneSubagentTranscripts removes from agents (the sub-agents' store)
// the transcripts whose parent session is gone from sessions (the main
// store), then, of the rest, those past the newest keep or older than
// maxAge. The transcripts of the session current (running now) stay
// whatever their age. It returns how many it removed.
func PruneSubagentTranscripts(agents, sessions *history.Store, current string, now time.Time, keep int, maxAge time.Duration) (int, error) {
	list, err := agents.Sessions("")
	if err != nil {
		return 0, err
	}
	removed, kept := 0, 0
	var errs []error
	for _, info := range list { // newest first
		dir := filepath.Join(agents.Dir(), "sessions", info.ID)
		parent := ""
		if b, err := os.ReadFile(filepath.Join(dir, parentFile)); err == nil {
			parent = strings.TrimSpace(string(b))
		}
		if parent != "" && parent == current {
			continue
		}
		gone := false
		if parent != "" && validID(parent) {
			_, err := os.Stat(filepath.Join(sessions.Dir(), "sessions", parent))
			gone = errors.Is(err, fs.ErrNotExist)
		}
		if !gone && kept < keep && now.Sub(info.Updated) <= maxAge {
			kept++
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		removed++
	}
	return removed, errors.Join(errs...)
}

// validID reports whether id can name a session folder.
func validID(id string) bool {
	return id != "." && id != ".." && !strings.ContainsAny(id, `/\`)
}
