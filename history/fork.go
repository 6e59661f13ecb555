package history

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Fork starts a new session of the same workspace from src's transcript:
// its first keep records (all of them when keep < 0). The fork has its
// own, empty undo journal, so undoing in one never reverts what the other
// journaled; src is left as it was. The records are written in one atomic
// file, so a crash leaves either no transcript or the whole copy.
func (s *Store) Fork(src *Session, keep int) (*Session, error) {
	records, _, err := src.Records()
	if err != nil {
		return nil, fmt.Errorf("fork session %s: %w", src.Info().ID, err)
	}
	if keep >= 0 && keep < len(records) {
		records = records[:keep]
	}
	info := src.Info()
	fork, err := s.NewSession(info.Workspace, info.Model)
	if err != nil {
		return nil, fmt.Errorf("fork session %s: %w", info.ID, err)
	}
	var buf bytes.Buffer
	for _, r := range records {
		line, err := json.Marshal(r)
		if err != nil {
			return nil, fmt.Errorf("fork session %s: %w", info.ID, err)
		}
		buf.Write(append(line, '\n'))
	}
	fail := func(err error) (*Session, error) {
		os.RemoveAll(fork.dir)
		return nil, fmt.Errorf("fork session %s: %w", info.ID, err)
	}
	if buf.Len() > 0 {
		if err := writeFileAtomic(filepath.Join(fork.dir, transcriptFile), buf.Bytes()); err != nil {
			return fail(err)
		}
	}
	fork.mu.Lock()
	// Updated stays the fork's creation: it is the session used last.
	fork.info.Parent, fork.info.Title = info.ID, info.Title
	err = fork.saveInfo()
	fork.mu.Unlock()
	if err != nil {
		return fail(err)
	}
	return fork, nil
}
