package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"myclaw/internal/parallel"
)

// parseRecords splits a transcript into its records, on every core: the
// data of each is a slice of all. A truncated last line (a crash
// mid-write) is skipped with a warning, and so is a corrupt line, with its
// line number.
func parseRecords(all []byte, path string, unchecked map[string]bool) ([]Record, []string) {
	lines := make([][]byte, 0, bytes.Count(all, []byte{'\n'}))
	truncated := false
	for len(all) > 0 {
		line, rest, found := bytes.Cut(all, []byte{'\n'})
		if !found {
			truncated = true
			break
		}
		lines = append(lines, line)
		all = rest
	}
	recs := make([]Record, len(lines))
	errs := make([]error, len(lines))
	parallel.Ranges(len(lines), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			recs[i], errs[i] = decodeLine(lines[i], unchecked)
		}
	})
	n := len(lines)
	if truncated {
		n++
	}
	var warnings []string
	out := recs[:0]
	for i, err := range errs {
		switch {
		case err == nil:
			out = append(out, recs[i])
		case i+1 == n:
			warnings = append(warnings, fmt.Sprintf("skipped a corrupt last line (line %d) of %s: %v", i+1, path, err))
		default:
			warnings = append(warnings, fmt.Sprintf("skipped corrupt line %d of %s: %v", i+1, path, err))
		}
	}
	if truncated {
		warnings = append(warnings, fmt.Sprintf("skipped a truncated last line (line %d) of %s", n, path))
	}
	return out, warnings
}

// Append writes each record as json.Marshal(Record) gives it:
//
//	{"kind":"…","time":"…","data":…}
//
// decodeLine reads that shape without decoding the data (a resumed
// session of a thousand turns is megabytes of it, and the reader decodes
// each kind it wants anyway); it only checks the data is valid JSON, in
// one pass. A line of any other shape is decoded in full, as before.
func decodeLine(line []byte, unchecked map[string]bool) (Record, error) {
	line = bytes.TrimRight(line, "\r\n")
	if rec, ok := fastLine(line, unchecked); ok {
		return rec, nil
	}
	var rec Record
	if err := json.Unmarshal(line, &rec); err != nil {
		return Record{}, err
	}
	if rec.Kind == "" {
		return Record{}, errors.New("no record kind")
	}
	return rec, nil
}

var (
	kindHead = []byte(`{"kind":"`)
	timeHead = []byte(`","time":"`)
	dataHead = []byte(`","data":`)
)

// fastLine parses the shape Append writes; ok is false for anything else
// (escapes in the kind, another order of fields, invalid data), which the
// full decoder then judges. The data of the unchecked kinds are not
// checked: their reader decodes them.
func fastLine(line []byte, unchecked map[string]bool) (Record, bool) {
	rest, ok := bytes.CutPrefix(line, kindHead)
	if !ok {
		return Record{}, false
	}
	i := bytes.IndexByte(rest, '"')
	if i <= 0 || bytes.IndexByte(rest[:i], '\\') >= 0 {
		return Record{}, false
	}
	kind := rest[:i]
	rest, ok = bytes.CutPrefix(rest[i:], timeHead)
	if !ok {
		return Record{}, false
	}
	i = bytes.IndexByte(rest, '"')
	if i < 0 {
		return Record{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, string(rest[:i]))
	if err != nil {
		return Record{}, false
	}
	rest, ok = bytes.CutPrefix(rest[i:], dataHead)
	if !ok || len(rest) < 2 || rest[len(rest)-1] != '}' {
		return Record{}, false
	}
	data := rest[:len(rest)-1]
	if !unchecked[string(kind)] && !json.Valid(data) {
		return Record{}, false
	}
	return Record{Kind: string(kind), Time: t, Data: json.RawMessage(data)}, true
}
