package history

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// tailStart is the first part of a transcript TailRecords reads, from its
// end: a few dozen turns of a typical session.
const tailStart = 64 << 10

// TailRecords reads the last records of the transcript, enough for enough
// to say yes (it is asked of each larger part read, up to limit bytes), so
// that a long session's last turns can be shown before the rest is read.
// whole is set when they are every record of the transcript: warnings are
// then what Records warns of. Otherwise lines that do not parse are skipped
// without a warning (a full read reports them with their line numbers).
// The data of the kinds are not checked, as with RecordsDecoding.
func (s *Session) TailRecords(limit int64, enough func([]Record) bool, kinds ...string) (records []Record, warnings []string, whole bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := filepath.Join(s.dir, transcriptFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, true, nil
	}
	if err != nil {
		return nil, nil, false, fmt.Errorf("read transcript: %w", err)
	}
	defer f.Close()
	if err := lockFile(f, false); err != nil {
		return nil, nil, false, fmt.Errorf("read transcript: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, false, fmt.Errorf("read transcript: %w", err)
	}
	unchecked := make(map[string]bool, len(kinds))
	for _, k := range kinds {
		unchecked[k] = true
	}
	size := fi.Size()
	for n := int64(tailStart); ; n *= 2 {
		n = min(n, size)
		buf := make([]byte, n)
		if _, err := f.ReadAt(buf, size-n); err != nil {
			return nil, nil, false, fmt.Errorf("read transcript %s: %w", path, err)
		}
		whole = n == size
		if !whole {
			// The part starts inside a line: records begin after it.
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				buf = nil
			} else {
				buf = buf[i+1:]
			}
		}
		records, warnings = parseRecords(buf, path, unchecked)
		if whole {
			return records, warnings, true, nil
		}
		if n >= limit || enough(records) {
			return records, nil, false, nil
		}
	}
}
