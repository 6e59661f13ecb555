package history

import (
	"fmt"
	"strings"

	"myclaw/tools"
)

// applied reports whether the entry's change is in place now.
func applied(e Entry) bool {
	return e.Reversible && (e.State == StateApplied || e.State == StatePending)
}

// SessionDiff is everything the applied calls of entries changed, one
// unified diff per file (from its content before the first of them to its
// content after the last), in the order the files were first changed.
// The text is "" when nothing applied changed a file.
func SessionDiff(entries []Entry, blobs tools.BlobStore) (string, error) {
	type span struct {
		before, after         []byte
		beforeMode, afterMode uint32
	}
	spans := map[string]*span{}
	var order []string
	for _, e := range entries {
		if !applied(e) {
			continue
		}
		cs, ok, err := tools.ReadFileChanges(blobs, e.Undo)
		if !ok {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("call #%d (%s): %w", e.Seq, e.Tool, err)
		}
		for _, c := range cs {
			s, seen := spans[c.Path]
			if !seen {
				s = &span{before: c.Before, beforeMode: c.BeforeMode}
				spans[c.Path] = s
				order = append(order, c.Path)
			}
			s.after, s.afterMode = c.After, c.AfterMode
		}
	}
	var b strings.Builder
	for _, p := range order {
		s := spans[p]
		b.WriteString(tools.FileModeDiff(p, s.before, s.after, s.beforeMode, s.afterMode))
	}
	return b.String(), nil
}

// CallDiff is the change call #seq made, with a line saying where it
// stands when it is not in place.
func CallDiff(entries []Entry, seq int, blobs tools.BlobStore) (string, error) {
	for _, e := range entries {
		if e.Seq != seq {
			continue
		}
		cs, ok, err := tools.ReadFileChanges(blobs, e.Undo)
		switch {
		case !ok:
			return "", fmt.Errorf("call #%d (%s) changed no file that myclaw can show", seq, e.Tool)
		case err != nil:
			return "", fmt.Errorf("call #%d (%s): %w", seq, e.Tool, err)
		}
		var b strings.Builder
		for _, c := range cs {
			b.WriteString(tools.FileModeDiff(c.Path, c.Before, c.After, c.BeforeMode, c.AfterMode))
		}
		d := b.String()
		if !applied(e) {
			d = fmt.Sprintf("(call #%d is %s: this change is not in place now)\n", seq, e.State) + d
		}
		return d, nil
	}
	return "", fmt.Errorf("there is no call #%d in this session; /history lists them", seq)
}
