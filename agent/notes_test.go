package agent

import "strings"

// withoutStateNotes drops the date and autonomy notes that lead a user
// message, for tests about what follows them.
func withoutStateNotes(s string) string {
	for {
		line, rest, _ := strings.Cut(s, "\n")
		if !strings.HasPrefix(line, noteHead+dateNoteHead) && !strings.HasPrefix(line, noteHead+levelNoteHead) {
			return s
		}
		s = strings.TrimPrefix(rest, "\n")
	}
}
